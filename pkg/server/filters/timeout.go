package filters

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kapi-dev/kapi/pkg/endpoints/request"
	"github.com/kapi-dev/kapi/pkg/endpoints/responsewriters"
	"github.com/kapi-dev/kapi/pkg/metrics"
)

// WithTimeout bounds the time a request that is not long-running may
// take: --request-timeout (defaultTimeout), or less if the client asks
// with the timeout query parameter (a Go duration such as "30s"; values
// that are not positive or exceed the default mean the default, and
// values that do not parse get a 400).
//
// The request's context is cancelled when its time is up, so that
// storage calls and webhooks stop. Unless the handler has answered by
// then, the client gets a 504 Timeout Status at once (or, if the handler
// had started its response, an aborted response), and whatever the
// handler writes afterwards is discarded. A defaultTimeout that is not
// positive disables the filter.
//
// To answer on time while the handler is still running, the filter runs
// the handler in its own goroutine, on a copy of the request, with a
// response writer that serializes the handler's writes with the 504 and
// keeps the handler's headers apart from the response until the handler
// writes. A panic in the handler is re-raised in the serving goroutine
// (with the handler's stack) for WithPanicRecovery; one after the
// timeout is logged. m, which may be nil, gets
// apiserver_request_terminations_total with code 504.
//
// A nil logger discards the log.
func WithTimeout(handler http.Handler, longRunning request.LongRunningCheck, defaultTimeout time.Duration, m *metrics.Registry, logger *slog.Logger) http.Handler {
	if defaultTimeout <= 0 {
		return handler
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &timeoutHandler{
		handler:        handler,
		longRunning:    longRunning,
		defaultTimeout: defaultTimeout,
		metrics:        m,
		logger:         logger,
	}
}

// invalidTimeoutMessage is kube-apiserver's.
const invalidTimeoutMessage = "invalid timeout specified in the request URL"

type timeoutHandler struct {
	handler        http.Handler
	longRunning    request.LongRunningCheck
	defaultTimeout time.Duration
	metrics        *metrics.Registry
	logger         *slog.Logger
}

func (t *timeoutHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	info, ok := requestInfoOrFail(w, r)
	if !ok {
		return
	}
	if t.longRunning != nil && t.longRunning(info) {
		t.handler.ServeHTTP(w, r)
		return
	}
	timeout, err := t.timeoutFor(r)
	if err != nil {
		responsewriters.WriteErrorStatus(w, r, apierrors.NewBadRequest(err.Error()))
		return
	}

	ctx, cancel := context.WithTimeout(r.Context(), timeout)
	defer cancel()

	tw := newTimeoutWriter(w)
	// The handler gets its own request: it may modify its headers while
	// the filters before this one read theirs, and its body, which it
	// may still be reading when this function has returned.
	hr := r.Clone(ctx)
	var body *timeoutBody
	if r.Body != nil && r.Body != http.NoBody {
		body = &timeoutBody{ReadCloser: r.Body}
		hr.Body = body
	}

	// Buffered, so that the handler goroutine can always finish.
	done := make(chan handlerResult, 1)
	go func() {
		var res handlerResult
		defer func() {
			if p := recover(); p != nil {
				res = handlerResult{panicked: true, value: p, stack: stack()}
			}
			tw.handlerFinished()
			done <- res
		}()
		t.handler.ServeHTTP(tw, hr)
	}()

	select {
	case res := <-done:
		res.reraise()
		return
	case <-ctx.Done():
	}

	if body != nil {
		body.timeOut()
	}
	if tw.stop() {
		// The handler returned just as time ran out. Its response
		// stands, if it gave one.
		(<-done).reraise()
		if tw.responseStarted() {
			return
		}
	} else {
		go t.logPostTimeout(r.Method, r.RequestURI, done)
	}
	if t.metrics != nil {
		t.metrics.RecordTermination(metrics.RequestLabelsFor(r, info), http.StatusGatewayTimeout)
	}
	if started := tw.respondTimedOut(r); started {
		// Part of the handler's response has been sent: a 504 can no
		// longer be, and ending the response normally would make it look
		// complete. Abort it; net/http does not log this panic.
		panic(http.ErrAbortHandler)
	}
}

// timeoutFor is the request's time limit.
func (t *timeoutHandler) timeoutFor(r *http.Request) (time.Duration, error) {
	if !strings.Contains(r.URL.RawQuery, "timeout") {
		return t.defaultTimeout, nil
	}
	value := r.URL.Query().Get("timeout")
	if value == "" {
		return t.defaultTimeout, nil
	}
	requested, err := time.ParseDuration(value)
	if err != nil {
		return 0, fmt.Errorf("%s - %v", invalidTimeoutMessage, err)
	}
	if requested <= 0 || requested >= t.defaultTimeout {
		return t.defaultTimeout, nil
	}
	return requested, nil
}

// logPostTimeout waits for a timed-out handler to return, and logs a
// panic nobody else will see.
func (t *timeoutHandler) logPostTimeout(method, uri string, done <-chan handlerResult) {
	res := <-done
	if res.panicked && res.value != http.ErrAbortHandler {
		t.logger.Error("Panic in a handler after its request timed out",
			"method", method, "uri", uri, "panic", res.value, "stack", string(res.stack))
	}
}

// handlerResult is how the handler goroutine ended.
type handlerResult struct {
	panicked bool
	value    any
	stack    []byte
}

// reraise panics again, in the serving goroutine, if the handler did.
func (res handlerResult) reraise() {
	if !res.panicked {
		return
	}
	if res.value == http.ErrAbortHandler {
		panic(res.value)
	}
	panic(&handlerPanic{value: res.value, stack: res.stack})
}

// handlerPanic carries a handler goroutine's panic and stack to the
// serving goroutine, whose own stack says nothing about it. It is an
// error so that loggers print it in full.
type handlerPanic struct {
	value any
	stack []byte
}

func (p *handlerPanic) Error() string {
	return fmt.Sprintf("%v\n\nhandler goroutine stack:\n%s", p.value, p.stack)
}

// Unwrap exposes a panic value that is an error.
func (p *handlerPanic) Unwrap() error {
	err, _ := p.value.(error)
	return err
}

// stack is the current goroutine's stack, bounded as net/http bounds the
// stacks it logs.
func stack() []byte {
	buf := make([]byte, 64<<10)
	return buf[:runtime.Stack(buf, false)]
}

// timeoutWriter is the handler's ResponseWriter. Writes go through to
// the real writer, under a lock the timeout also takes, so the two never
// write at once; after the timeout they fail with http.ErrHandlerTimeout.
//
// The handler's headers stay in a map of its own until it writes: if
// time runs out first, the 504 goes out without them, and the handler,
// still adding headers, races with nobody.
type timeoutWriter struct {
	w http.ResponseWriter
	// header is the handler's, used by its goroutine only. It starts as
	// a copy of the headers set by earlier filters.
	header http.Header

	mu          sync.Mutex
	wroteHeader bool
	hijacked    bool
	timedOut    bool
	finished    bool // the handler has returned
}

func newTimeoutWriter(w http.ResponseWriter) *timeoutWriter {
	return &timeoutWriter{w: w, header: w.Header().Clone()}
}

func (tw *timeoutWriter) Header() http.Header {
	return tw.header
}

func (tw *timeoutWriter) WriteHeader(code int) {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	if tw.timedOut || tw.wroteHeader || tw.hijacked {
		return
	}
	tw.copyHeaderLocked()
	tw.w.WriteHeader(code)
}

func (tw *timeoutWriter) Write(p []byte) (int, error) {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	switch {
	case tw.timedOut:
		return 0, http.ErrHandlerTimeout
	case tw.hijacked:
		return 0, http.ErrHijacked
	}
	if !tw.wroteHeader {
		tw.copyHeaderLocked()
	}
	return tw.w.Write(p)
}

// Flush sends what the handler has written so far.
func (tw *timeoutWriter) Flush() {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	if tw.timedOut || tw.hijacked {
		return
	}
	if !tw.wroteHeader {
		tw.copyHeaderLocked()
		tw.w.WriteHeader(http.StatusOK)
	}
	_ = http.NewResponseController(tw.w).Flush()
}

// Hijack hands the connection to the handler, if time is not up.
func (tw *timeoutWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	if tw.timedOut {
		return nil, nil, http.ErrHandlerTimeout
	}
	conn, rw, err := http.NewResponseController(tw.w).Hijack()
	if err == nil {
		tw.hijacked = true
	}
	return conn, rw, err
}

// copyHeaderLocked makes the handler's headers the response's, as the
// handler is about to write its header.
func (tw *timeoutWriter) copyHeaderLocked() {
	dst := tw.w.Header()
	for k := range dst {
		if _, ok := tw.header[k]; !ok {
			delete(dst, k)
		}
	}
	for k, v := range tw.header {
		dst[k] = v
	}
	tw.wroteHeader = true
}

// handlerFinished records that the handler returned.
func (tw *timeoutWriter) handlerFinished() {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	tw.finished = true
}

// stop ends the handler's use of the writer: from now on its writes
// fail. It reports whether the handler had already returned.
func (tw *timeoutWriter) stop() (handlerReturned bool) {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	tw.timedOut = true
	return tw.finished
}

// responseStarted reports whether the handler has begun its response.
func (tw *timeoutWriter) responseStarted() bool {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	return tw.wroteHeader || tw.hijacked
}

// respondTimedOut sends the 504, unless the handler had begun its
// response (started).
func (tw *timeoutWriter) respondTimedOut(r *http.Request) (started bool) {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	if tw.wroteHeader || tw.hijacked {
		return true
	}
	tw.wroteHeader = true
	responsewriters.WriteErrorStatus(tw.w, r, apierrors.NewTimeoutError("request did not complete within the allotted timeout", 0))
	return false
}

// timeoutBody is the handler's request body. Once time is up its reads
// fail, so that a handler still running does not read a body net/http is
// done with. A read already in progress is left to finish: net/http's
// bodies allow that, and waiting for it could delay the 504 for as long
// as the client takes to send the next bytes.
type timeoutBody struct {
	io.ReadCloser
	timedOut atomic.Bool
}

func (b *timeoutBody) timeOut() { b.timedOut.Store(true) }

func (b *timeoutBody) Read(p []byte) (int, error) {
	if b.timedOut.Load() {
		return 0, http.ErrHandlerTimeout
	}
	return b.ReadCloser.Read(p)
}

func (b *timeoutBody) Close() error {
	if b.timedOut.Load() {
		// net/http closes the body it owns.
		return nil
	}
	return b.ReadCloser.Close()
}
