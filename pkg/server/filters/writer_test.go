package filters

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// wrapAll puts h behind every filter that wraps the ResponseWriter, as
// a long-running request (which the timeout filter lets through) sees
// them.
func wrapAll(h http.Handler) http.Handler {
	logger, _ := newTestLogger()
	return WithPanicRecovery(WithWarningRecorder(h), logger)
}

// An upgrade (exec, attach, port-forward) hijacks the connection through
// the filters' writers, with a type assertion as SPDY servers do.
func TestHijackThroughTheFilters(t *testing.T) {
	srv := httptest.NewServer(wrapAll(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hj, ok := w.(http.Hijacker)
		if !ok {
			http.Error(w, "cannot hijack", http.StatusInternalServerError)
			return
		}
		w.Header().Set("Upgrade", "test")
		w.Header().Set("Connection", "Upgrade")
		w.WriteHeader(http.StatusSwitchingProtocols)
		conn, rw, err := hj.Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		_, _ = rw.WriteString("hello over the raw connection\n")
		_ = rw.Flush()
	})))
	defer srv.Close()

	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(time.Minute))
	_, _ = io.WriteString(conn, "GET /api/v1/namespaces/ns/pods/p/exec HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: test\r\n\r\n")
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("status %d, want 101", resp.StatusCode)
	}
	line, err := br.ReadString('\n')
	if err != nil || line != "hello over the raw connection\n" {
		t.Errorf("read %q, %v", line, err)
	}
}

// A watch streams: each Flush must reach the client through the filters.
func TestFlushThroughTheFilters(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(wrapAll(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "event 1\n")
		w.(http.Flusher).Flush()
		<-release
		_, _ = io.WriteString(w, "event 2\n")
	})))
	defer srv.Close()

	resp, err := http.Get(srv.URL + "/api/v1/pods?watch=1")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	// The first event arrives while the handler is still blocked.
	if line, err := br.ReadString('\n'); err != nil || line != "event 1\n" {
		t.Fatalf("read %q, %v", line, err)
	}
	close(release)
	rest, _ := io.ReadAll(br)
	if string(rest) != "event 2\n" {
		t.Errorf("read %q after release", rest)
	}
}

// http.ResponseController reaches what the filters' writers do not
// implement themselves through Unwrap.
func TestResponseControllerThroughTheFilters(t *testing.T) {
	srv := httptest.NewServer(wrapAll(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := http.NewResponseController(w).SetWriteDeadline(time.Now().Add(time.Minute)); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		_, _ = io.WriteString(w, "ok")
	})))
	defer srv.Close()

	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("status %d: %s", resp.StatusCode, strings.TrimSpace(string(body)))
	}
}

func TestWriterDelegateRecordsTheResponse(t *testing.T) {
	tests := []struct {
		name        string
		write       func(w http.ResponseWriter)
		wantStatus  int
		wantWritten int64
	}{
		{"nothing", func(http.ResponseWriter) {}, 0, 0},
		{"header", func(w http.ResponseWriter) { w.WriteHeader(http.StatusNotFound) }, 404, 0},
		{"body", func(w http.ResponseWriter) { _, _ = io.WriteString(w, "12345") }, 200, 5},
		{"informational first", func(w http.ResponseWriter) {
			w.WriteHeader(http.StatusEarlyHints)
			w.WriteHeader(http.StatusCreated)
		}, 201, 0},
		{"flush", func(w http.ResponseWriter) { w.(http.Flusher).Flush() }, 200, 0},
		{"second WriteHeader ignored", func(w http.ResponseWriter) {
			w.WriteHeader(http.StatusAccepted)
			w.WriteHeader(http.StatusInternalServerError)
		}, 202, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			calls := 0
			d := &writerDelegate{ResponseWriter: httptest.NewRecorder(), beforeHeader: func() { calls++ }}
			tc.write(d)
			if d.status != tc.wantStatus || d.written != tc.wantWritten {
				t.Errorf("status %d, written %d; want %d, %d", d.status, d.written, tc.wantStatus, tc.wantWritten)
			}
			wantCalls := 0
			if tc.wantStatus != 0 {
				wantCalls = 1
			}
			if calls != wantCalls {
				t.Errorf("beforeHeader called %d times, want %d", calls, wantCalls)
			}
		})
	}
}
