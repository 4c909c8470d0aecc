package filters

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kapi-dev/kapi/pkg/endpoints/warning"
)

func TestWarningsBecomeHeaders(t *testing.T) {
	h := WithWarningRecorder(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		warning.AddWarning(r.Context(), `unknown field "bogus"`)
		warning.AddWarning(r.Context(), "policy/v1beta1 PodSecurityPolicy is deprecated")
		warning.AddWarning(r.Context(), `unknown field "bogus"`)
		w.WriteHeader(http.StatusCreated)
		warning.AddWarning(r.Context(), "too late")
	}))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("POST", "/api/v1/namespaces/ns/configmaps", nil))

	want := []string{
		`299 - "unknown field \"bogus\""`,
		`299 - "policy/v1beta1 PodSecurityPolicy is deprecated"`,
	}
	if diff := cmp.Diff(want, rec.Header().Values("Warning")); diff != "" {
		t.Errorf("Warning headers (-want +got):\n%s", diff)
	}
}

// Every way of starting the response seals the recorder.
func TestWarningsStopWhenTheResponseStarts(t *testing.T) {
	starts := map[string]func(w http.ResponseWriter){
		"WriteHeader": func(w http.ResponseWriter) { w.WriteHeader(http.StatusOK) },
		"Write":       func(w http.ResponseWriter) { _, _ = io.WriteString(w, "body") },
		"Flush":       func(w http.ResponseWriter) { w.(http.Flusher).Flush() },
		"ResponseController.Flush": func(w http.ResponseWriter) {
			if err := http.NewResponseController(w).Flush(); err != nil {
				panic(err)
			}
		},
	}
	for name, start := range starts {
		t.Run(name, func(t *testing.T) {
			h := WithWarningRecorder(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				warning.AddWarning(r.Context(), "early")
				start(w)
				warning.AddWarning(r.Context(), "late")
			}))
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
			if diff := cmp.Diff([]string{`299 - "early"`}, rec.Result().Header.Values("Warning")); diff != "" {
				t.Errorf("Warning headers (-want +got):\n%s", diff)
			}
		})
	}
}

// Warnings may come from goroutines of the handler while it writes its
// response; run with -race.
func TestConcurrentWarningsAndWrites(t *testing.T) {
	srv := httptest.NewServer(WithWarningRecorder(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var wg sync.WaitGroup
		for i := 0; i < 4; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for j := 0; j < 20; j++ {
					warning.AddWarning(r.Context(), fmt.Sprintf("warning %d/%d", i, j))
				}
			}()
		}
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, "done")
		wg.Wait()
	})))
	defer srv.Close()

	for i := 0; i < 20; i++ {
		resp, err := http.Get(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("status %d", resp.StatusCode)
		}
	}
}
