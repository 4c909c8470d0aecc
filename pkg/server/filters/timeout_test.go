package filters

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/pkg/endpoints/request"
	"github.com/kapi-dev/kapi/pkg/endpoints/warning"
	"github.com/kapi-dev/kapi/pkg/metrics"
)

// longTimeout never fires in a test; tests that want a timeout ask for a
// short one with ?timeout=.
const longTimeout = time.Hour

func withTimeout(h http.Handler) http.Handler {
	logger, _ := newTestLogger()
	return WithTimeout(h, request.IsLongRunning, longTimeout, nil, logger)
}

func TestTimeoutLetsPromptRequestsThrough(t *testing.T) {
	h := withTimeout(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, ok := r.Context().Deadline(); !ok {
			t.Error("the handler's context has no deadline")
		}
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusCreated)
		_, _ = io.WriteString(w, "made")
	}))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, newRequest(t, "POST", "/api/v1/namespaces/ns/configmaps", nil))
	if rec.Code != http.StatusCreated || rec.Body.String() != "made" || rec.Header().Get("Content-Type") != "text/plain" {
		t.Errorf("got %d %q %v", rec.Code, rec.Body, rec.Header())
	}
}

func TestTimeoutDuration(t *testing.T) {
	const defaultTimeout = time.Minute
	tests := []struct {
		query string
		want  time.Duration
	}{
		{"", defaultTimeout},
		{"?timeout=30s", 30 * time.Second},
		{"?timeout=1m30s", defaultTimeout},
		{"?timeout=0s", defaultTimeout},
		{"?timeout=-5s", defaultTimeout},
		{"?timeout=", defaultTimeout},
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			logger, _ := newTestLogger()
			var deadline time.Time
			h := WithTimeout(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				deadline, _ = r.Context().Deadline()
			}), request.IsLongRunning, defaultTimeout, nil, logger)
			begin := time.Now()
			h.ServeHTTP(httptest.NewRecorder(), newRequest(t, "GET", "/api/v1/pods"+tc.query, nil))
			end := time.Now()
			// The limit started between begin and end, whenever those were.
			if deadline.Before(begin.Add(tc.want)) || deadline.After(end.Add(tc.want)) {
				t.Errorf("deadline %v after the request began, want %v", deadline.Sub(begin), tc.want)
			}
		})
	}
}

func TestInvalidTimeoutIsABadRequest(t *testing.T) {
	rec := httptest.NewRecorder()
	withTimeout(okHandler).ServeHTTP(rec, newRequest(t, "GET", "/api/v1/pods?timeout=soon", nil))
	want := metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusFailure, Code: 400, Reason: metav1.StatusReasonBadRequest,
		Message: `invalid timeout specified in the request URL - time: invalid duration "soon"`,
	}
	if diff := cmp.Diff(want, decodeStatus(t, rec.Body.Bytes())); diff != "" {
		t.Errorf("Status (-want +got):\n%s", diff)
	}
}

func TestLongRunningRequestsHaveNoTimeout(t *testing.T) {
	rec := httptest.NewRecorder()
	h := withTimeout(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, ok := r.Context().Deadline(); ok {
			t.Error("a watch got a deadline")
		}
		if w != http.ResponseWriter(rec) {
			t.Error("a watch got a wrapped writer")
		}
	}))
	// Even an invalid timeout parameter is ignored: watches use timeoutSeconds.
	h.ServeHTTP(rec, newRequest(t, "GET", "/api/v1/pods?watch=1&timeout=soon", nil))
	if rec.Code != http.StatusOK {
		t.Errorf("status %d", rec.Code)
	}
}

// TestTimeoutBeforeTheHandlerWrites covers the common case: the client
// gets a 504 while the handler is still running; the handler's context
// is cancelled, and what it does afterwards reaches nobody.
func TestTimeoutBeforeTheHandlerWrites(t *testing.T) {
	reg := metrics.NewRegistry()
	logger, _ := newTestLogger()
	served := make(chan struct{})      // closed when ServeHTTP has returned
	handlerDone := make(chan error, 1) // what the handler's late write returned
	h := WithTimeout(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Handler", "set before the timeout")
		<-r.Context().Done()
		if err := r.Context().Err(); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("context error %v, want DeadlineExceeded", err)
		}
		<-served
		w.Header().Set("X-Late", "set after the timeout")
		w.WriteHeader(http.StatusOK)
		_, err := io.WriteString(w, "too late")
		handlerDone <- err
	}), request.IsLongRunning, longTimeout, reg, logger)

	rec := httptest.NewRecorder()
	rec.Header().Set("Cache-Control", "no-cache, private") // as set by an earlier filter
	h.ServeHTTP(rec, newRequest(t, "GET", "/api/v1/namespaces/ns/configmaps?timeout=1ms", nil))
	close(served)
	if err := <-handlerDone; !errors.Is(err, http.ErrHandlerTimeout) {
		t.Errorf("late write returned %v, want http.ErrHandlerTimeout", err)
	}

	if rec.Code != http.StatusGatewayTimeout {
		t.Fatalf("status %d, want 504", rec.Code)
	}
	want := metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusFailure, Code: 504, Reason: metav1.StatusReasonTimeout,
		Message: "Timeout: request did not complete within the allotted timeout",
		Details: &metav1.StatusDetails{},
	}
	if diff := cmp.Diff(want, decodeStatus(t, rec.Body.Bytes())); diff != "" {
		t.Errorf("Status (-want +got):\n%s", diff)
	}
	if got := rec.Header().Get("Cache-Control"); got != "no-cache, private" {
		t.Errorf("Cache-Control %q: headers of earlier filters were lost", got)
	}
	for _, h := range []string{"X-Handler", "X-Late"} {
		if v := rec.Header().Get(h); v != "" {
			t.Errorf("the handler's %s: %q reached the 504", h, v)
		}
	}
	labels := map[string]string{"verb": "LIST", "resource": "configmaps", "code": "504"}
	if got := metricValue(t, reg, "apiserver_request_terminations_total", labels); got != 1 {
		t.Errorf("apiserver_request_terminations_total{code=504} = %v, want 1", got)
	}
}

// Once the handler has started its response, a 504 cannot be sent: the
// response is aborted instead. The request's time runs out only once the
// handler has written (its context is ended then, as a deadline would),
// so that the test does not depend on how fast the handler is scheduled.
func TestTimeoutAfterTheHandlerWrites(t *testing.T) {
	release := make(chan struct{}) // closed once ServeHTTP has given up
	wrote := make(chan struct{})
	handlerDone := make(chan struct{})
	h := withTimeout(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer close(handlerDone)
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, `{"kind":"ConfigMapList","items":[`)
		close(wrote)
		<-r.Context().Done()
		<-release
	}))
	rec := httptest.NewRecorder()
	req := newRequest(t, "GET", "/api/v1/configmaps", nil)
	ctx, timeUp := context.WithCancel(req.Context())
	req = req.WithContext(ctx)
	go func() {
		<-wrote
		timeUp()
	}()
	func() {
		defer func() {
			if p := recover(); p != http.ErrAbortHandler {
				t.Errorf("recovered %v, want http.ErrAbortHandler", p)
			}
		}()
		h.ServeHTTP(rec, req)
		t.Error("ServeHTTP returned normally")
	}()
	close(release)
	<-handlerDone
	if rec.Code != http.StatusOK {
		t.Errorf("status %d: the handler's status line was overwritten", rec.Code)
	}
}

// A handler that answers as its time runs out either wins, and keeps its
// response, or loses to the 504; or, if it had begun writing, the
// response is aborted. Never a mix of both.
func TestHandlerFinishingAtTheDeadline(t *testing.T) {
	for i := 0; i < 20; i++ {
		rec := httptest.NewRecorder()
		aborted := func() (aborted bool) {
			defer func() {
				if p := recover(); p != nil {
					if p != http.ErrAbortHandler {
						panic(p)
					}
					aborted = true
				}
			}()
			withTimeout(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				<-r.Context().Done()
				w.WriteHeader(http.StatusConflict)
			})).ServeHTTP(rec, newRequest(t, "GET", "/api/v1/pods?timeout=1ms", nil))
			return false
		}()
		switch {
		case aborted && rec.Code == http.StatusConflict:
		case !aborted && (rec.Code == http.StatusGatewayTimeout || rec.Code == http.StatusConflict):
		default:
			t.Fatalf("aborted %v with status %d", aborted, rec.Code)
		}
	}
}

func TestHandlerPanicsReachTheServingGoroutine(t *testing.T) {
	tests := []struct {
		name  string
		value any
		check func(t *testing.T, recovered any)
	}{
		{
			name:  "a panic carries the handler's stack",
			value: "boom",
			check: func(t *testing.T, recovered any) {
				err, ok := recovered.(error)
				if !ok {
					t.Fatalf("recovered %T, want an error", recovered)
				}
				if msg := err.Error(); !strings.Contains(msg, "boom") || !strings.Contains(msg, "timeout_test.go") {
					t.Errorf("panic lacks the value or the handler's stack:\n%s", msg)
				}
			},
		},
		{
			name:  "an error value can be unwrapped",
			value: io.ErrUnexpectedEOF,
			check: func(t *testing.T, recovered any) {
				if err, _ := recovered.(error); !errors.Is(err, io.ErrUnexpectedEOF) {
					t.Errorf("recovered %v, want it to wrap io.ErrUnexpectedEOF", recovered)
				}
			},
		},
		{
			name:  "an abort stays an abort",
			value: http.ErrAbortHandler,
			check: func(t *testing.T, recovered any) {
				if recovered != http.ErrAbortHandler {
					t.Errorf("recovered %v, want http.ErrAbortHandler", recovered)
				}
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := withTimeout(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic(tc.value) }))
			defer func() { tc.check(t, recover()) }()
			h.ServeHTTP(httptest.NewRecorder(), newRequest(t, "GET", "/api/v1/pods", nil))
			t.Error("ServeHTTP returned normally")
		})
	}
}

// Behind WithPanicRecovery, as in the chain, a panic is a 500.
func TestHandlerPanicBehindPanicRecovery(t *testing.T) {
	logger, logs := newTestLogger()
	h := WithPanicRecovery(withTimeout(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		panic("boom")
	})), logger)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, newRequest(t, "GET", "/api/v1/pods", nil))
	if rec.Code != http.StatusInternalServerError {
		t.Errorf("status %d, want 500", rec.Code)
	}
	if !strings.Contains(logs.String(), "handler goroutine stack") {
		t.Errorf("the log lacks the handler's stack:\n%s", logs)
	}
}

// A handler that panics after its request timed out does not crash the
// server; the panic is logged.
func TestPanicAfterTimeoutIsLogged(t *testing.T) {
	records := make(chan slog.Record, 1)
	served := make(chan struct{})
	h := WithTimeout(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
		<-served
		panic("late boom")
	}), request.IsLongRunning, longTimeout, nil, slog.New(recordsHandler{records}))

	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, newRequest(t, "GET", "/api/v1/pods?timeout=1ms", nil))
	close(served)
	if rec.Code != http.StatusGatewayTimeout {
		t.Errorf("status %d, want 504", rec.Code)
	}
	record := <-records
	if attrs := recordAttrs(record); attrs["panic"] != "late boom" || attrs["uri"] != "/api/v1/pods?timeout=1ms" {
		t.Errorf("logged %q %v", record.Message, attrs)
	}
}

// A body read after the request's time ran out fails. The time runs out
// only once the handler has read once (its context is ended then, as a
// deadline would), so that the first read does not race the deadline.
func TestBodyReadsFailAfterTimeout(t *testing.T) {
	served := make(chan struct{})
	readOnce := make(chan struct{})
	readErr := make(chan error, 1)
	h := withTimeout(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		buf := make([]byte, 4)
		if _, err := r.Body.Read(buf); err != nil {
			t.Errorf("read before the timeout: %v", err)
		}
		close(readOnce)
		<-r.Context().Done()
		<-served
		_, err := r.Body.Read(buf)
		readErr <- err
	}))
	req := newRequest(t, "POST", "/api/v1/namespaces/ns/configmaps", strings.NewReader(`{"kind":"ConfigMap"}`))
	ctx, timeUp := context.WithCancel(req.Context())
	go func() {
		<-readOnce
		timeUp()
	}()
	h.ServeHTTP(httptest.NewRecorder(), req.WithContext(ctx))
	close(served)
	if err := <-readErr; !errors.Is(err, http.ErrHandlerTimeout) {
		t.Errorf("read after the timeout returned %v, want http.ErrHandlerTimeout", err)
	}
}

// The handler gets its own copy of the request: changing its headers
// does not change those the filters before the timeout see.
func TestTheHandlerGetsACopyOfTheRequest(t *testing.T) {
	h := withTimeout(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Header.Del("Authorization")
	}))
	r := newRequest(t, "GET", "/api/v1/pods", nil)
	r.Header.Set("Authorization", "Bearer x")
	h.ServeHTTP(httptest.NewRecorder(), r)
	if r.Header.Get("Authorization") == "" {
		t.Error("the handler changed the caller's request")
	}
}

func TestHandlerHeadersReplaceEarlierOnes(t *testing.T) {
	h := withTimeout(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if got := w.Header().Get("Cache-Control"); got != "no-cache, private" {
			t.Errorf("the handler sees Cache-Control %q", got)
		}
		w.Header().Set("Cache-Control", "public")
		w.Header().Del("X-Earlier")
		w.WriteHeader(http.StatusOK)
	}))
	rec := httptest.NewRecorder()
	rec.Header().Set("Cache-Control", "no-cache, private")
	rec.Header().Set("X-Earlier", "1")
	h.ServeHTTP(rec, newRequest(t, "GET", "/api/v1/pods", nil))
	if got := rec.Header().Get("Cache-Control"); got != "public" {
		t.Errorf("Cache-Control %q, want the handler's", got)
	}
	if _, ok := rec.Header()["X-Earlier"]; ok {
		t.Error("a header the handler deleted was sent")
	}
}

func TestFlushThroughTheTimeoutWriter(t *testing.T) {
	rec := httptest.NewRecorder()
	withTimeout(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Handler", "1")
		w.(http.Flusher).Flush()
	})).ServeHTTP(rec, newRequest(t, "GET", "/api/v1/pods", nil))
	if !rec.Flushed || rec.Code != http.StatusOK || rec.Header().Get("X-Handler") != "1" {
		t.Errorf("flushed %v, status %d, headers %v", rec.Flushed, rec.Code, rec.Header())
	}
}

// TestTimeoutRaces runs requests whose handlers write, warn and flush
// from several goroutines while their timeout fires, through a real
// server and the filters around the timeout in the chain. It asserts
// little: its point is to run under the race detector. Each response
// must be a 200, a 504 or an aborted one.
func TestTimeoutRaces(t *testing.T) {
	logger, _ := newTestLogger()
	reg := metrics.NewRegistry()
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var wg sync.WaitGroup
		for i := 0; i < 3; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for j := 0; j < 20; j++ {
					warning.AddWarning(r.Context(), fmt.Sprintf("w%d-%d", i, j))
				}
			}()
		}
		w.Header().Set("Content-Type", "text/plain")
		for i := 0; i < 20; i++ {
			if _, err := io.WriteString(w, "line\n"); err != nil {
				break
			}
			w.(http.Flusher).Flush()
		}
		wg.Wait()
	})
	chain := WithPanicRecovery(
		WithCacheControl(
			WithRequestInfo(
				WithTimeout(
					WithWarningRecorder(WithMetrics(handler, reg, request.IsLongRunning)),
					request.IsLongRunning, longTimeout, reg, logger),
				request.NewRequestInfoFactory())),
		logger)
	srv := httptest.NewServer(chain)
	defer srv.Close()

	var wg sync.WaitGroup
	for i := 0; i < 30; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Timeouts from "nearly at once" to "likely after the handler".
			timeout := time.Duration(1+i*20) * time.Microsecond
			resp, err := http.Get(fmt.Sprintf("%s/api/v1/namespaces/ns/pods/p%d?timeout=%s", srv.URL, i, timeout))
			if err != nil {
				return // aborted
			}
			defer resp.Body.Close()
			if _, err := io.Copy(io.Discard, resp.Body); err != nil {
				return // aborted
			}
			if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusGatewayTimeout {
				t.Errorf("status %d", resp.StatusCode)
			}
		}()
	}
	wg.Wait()
}
