package filters

import (
	"bufio"
	"net"
	"net/http"
)

// writerDelegate wraps the ResponseWriter a filter passes on, to learn
// what the handlers after it write. It keeps the optional behaviour of
// the writer it wraps working: Flush and Hijack are passed through (watch
// needs the first; exec, attach and port-forward upgrades the second),
// and Unwrap lets http.ResponseController reach the rest.
//
// A delegate is used by one handler at a time; the filter that made it
// reads its fields only after the handlers it wraps have returned.
type writerDelegate struct {
	http.ResponseWriter

	// beforeHeader, if set, runs once, just before the header is
	// written, whether by WriteHeader, a first Write, Flush or Hijack.
	beforeHeader func()

	// status is the status code written, 0 while none has been.
	status int
	// written counts the body bytes written.
	written int64
	// hijacked is set once the connection has been taken over.
	hijacked bool
}

// headerWritten reports whether the response has been committed, so that
// nothing else (an error Status, say) can be sent in its place.
func (d *writerDelegate) headerWritten() bool {
	return d.status != 0 || d.hijacked
}

func (d *writerDelegate) commit(code int) {
	if d.headerWritten() {
		return
	}
	if d.beforeHeader != nil {
		d.beforeHeader()
	}
	d.status = code
}

func (d *writerDelegate) WriteHeader(code int) {
	// 1xx informational responses (but 101, which ends the HTTP
	// exchange) precede the real header.
	if code >= 200 || code == http.StatusSwitchingProtocols {
		d.commit(code)
	}
	d.ResponseWriter.WriteHeader(code)
}

func (d *writerDelegate) Write(p []byte) (int, error) {
	d.commit(http.StatusOK)
	n, err := d.ResponseWriter.Write(p)
	d.written += int64(n)
	return n, err
}

// Flush sends the header, if not yet sent, and buffered body bytes. It
// does nothing if the writer it wraps cannot flush.
func (d *writerDelegate) Flush() {
	d.commit(http.StatusOK)
	_ = http.NewResponseController(d.ResponseWriter).Flush()
}

// Hijack takes over the connection, if the writer it wraps allows it
// (HTTP/1 does, HTTP/2 does not).
func (d *writerDelegate) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	if !d.headerWritten() && d.beforeHeader != nil {
		d.beforeHeader()
	}
	conn, rw, err := http.NewResponseController(d.ResponseWriter).Hijack()
	if err == nil {
		d.hijacked = true
	}
	return conn, rw, err
}

// Unwrap is for http.ResponseController.
func (d *writerDelegate) Unwrap() http.ResponseWriter {
	return d.ResponseWriter
}

// statusOrOK is the status the client got once the handler returned:
// net/http sends 200 for a handler that wrote nothing.
func (d *writerDelegate) statusOrOK() int {
	if d.status == 0 {
		return http.StatusOK
	}
	return d.status
}
