package filters

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestPanicBeforeWritingIsA500Status(t *testing.T) {
	logger, logs := newTestLogger()
	h := WithPanicRecovery(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Headers for a body that never comes must not survive.
		w.Header().Set("Content-Length", "12345")
		panic("boom")
	}), logger)

	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/api/v1/namespaces/ns/pods?limit=5", nil))

	if rec.Code != http.StatusInternalServerError {
		t.Fatalf("status %d, want 500", rec.Code)
	}
	if got := rec.Header().Get("Content-Length"); got != "" {
		t.Errorf("Content-Length %q survived", got)
	}
	if got := rec.Header().Get("Content-Type"); got != "application/json" {
		t.Errorf("Content-Type %q, want application/json", got)
	}
	st := decodeStatus(t, rec.Body.Bytes())
	if st.Reason != "InternalError" || st.Code != 500 ||
		st.Message != "Internal error occurred: This request caused apiserver to panic. Look in the logs for details." {
		t.Errorf("unexpected Status %+v", st)
	}
	for _, want := range []string{"boom", "method=GET", `uri="/api/v1/namespaces/ns/pods?limit=5"`, "panic_recovery_test.go"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, logs)
		}
	}
}

func TestPanicAfterWritingAbortsTheResponse(t *testing.T) {
	logger, logs := newTestLogger()
	h := WithPanicRecovery(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, `{"kind":"PodList","items":[`)
		panic("boom")
	}), logger)

	defer func() {
		if p := recover(); p != http.ErrAbortHandler {
			t.Errorf("recovered %v, want http.ErrAbortHandler", p)
		}
		if !strings.Contains(logs.String(), "boom") {
			t.Errorf("the panic was not logged:\n%s", logs)
		}
	}()
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/api/v1/pods", nil))
	t.Fatal("ServeHTTP returned normally")
}

func TestErrAbortHandlerPassesThroughUnlogged(t *testing.T) {
	logger, logs := newTestLogger()
	h := WithPanicRecovery(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		panic(http.ErrAbortHandler)
	}), logger)

	defer func() {
		if p := recover(); p != http.ErrAbortHandler {
			t.Errorf("recovered %v, want http.ErrAbortHandler", p)
		}
		if logs.String() != "" {
			t.Errorf("an abort was logged:\n%s", logs)
		}
	}()
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
	t.Fatal("ServeHTTP returned normally")
}

func TestNoPanicPassesThrough(t *testing.T) {
	rec := httptest.NewRecorder()
	WithPanicRecovery(okHandler, nil).ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
	if rec.Code != http.StatusOK || rec.Body.String() != "ok" {
		t.Errorf("got %d %q, want 200 ok", rec.Code, rec.Body)
	}
}

// TestServerSurvivesPanics runs a real server: a panic before writing
// gives the client a 500, one after writing an aborted response, and
// the server goes on serving.
func TestServerSurvivesPanics(t *testing.T) {
	logger, _ := newTestLogger()
	mux := http.NewServeMux()
	mux.HandleFunc("/early", func(w http.ResponseWriter, r *http.Request) { panic("early") })
	mux.HandleFunc("/late", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, strings.Repeat("x", 100))
		http.NewResponseController(w).Flush()
		panic("late")
	})
	mux.Handle("/ok", okHandler)
	srv := httptest.NewServer(WithPanicRecovery(mux, logger))
	defer srv.Close()

	resp, err := http.Get(srv.URL + "/early")
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusInternalServerError {
		t.Errorf("/early: status %d, want 500", resp.StatusCode)
	}

	resp, err = http.Get(srv.URL + "/late")
	if err == nil {
		_, err = io.ReadAll(resp.Body)
		_ = resp.Body.Close()
	}
	if err == nil {
		t.Error("/late: the response looked complete, want it aborted")
	}

	resp, err = http.Get(srv.URL + "/ok")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK || string(body) != "ok" {
		t.Errorf("/ok after panics: %d %q", resp.StatusCode, body)
	}
}
