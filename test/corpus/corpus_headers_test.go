package corpus

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A step's headers reach the server with every value, NAMESPACE replaced
// in them, beside the runner's own headers.
func TestStepHeadersAreSent(t *testing.T) {
	var seen http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/probe" {
			seen = r.Header.Clone()
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		_ = json.NewEncoder(w).Encode(map[string]any{"kind": "Status"})
	}))
	defer srv.Close()

	c := writeCase(t, `steps:
  - method: GET
    path: /probe
    headers:
      Impersonate-User: [alice-NAMESPACE]
      Impersonate-Group: [devs, ops]
`)
	if _, err := (Server{Client: srv.Client(), URL: srv.URL}).Run(context.Background(), c, "ns1"); err != nil {
		t.Fatal(err)
	}
	if seen == nil {
		t.Fatal("the step was not sent")
	}
	got := map[string][]string{
		"Impersonate-User":  seen.Values("Impersonate-User"),
		"Impersonate-Group": seen.Values("Impersonate-Group"),
		"User-Agent":        seen.Values("User-Agent"),
	}
	want := map[string][]string{
		"Impersonate-User":  {"alice-ns1"},
		"Impersonate-Group": {"devs", "ops"},
		"User-Agent":        {"corpus"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("headers sent (-want +got):\n%s", diff)
	}
}

// A step may not replace the headers the runner sets: the user agent
// names the field manager every recording shows.
func TestStepMayNotSetRunnerHeaders(t *testing.T) {
	for _, h := range []string{"User-Agent", "accept", "Content-Type"} {
		path := filepath.Join(t.TempDir(), "case.yaml")
		data := "steps:\n  - method: GET\n    path: /x\n    headers:\n      " + h + ": [v]\n"
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(path); err == nil || !strings.Contains(err.Error(), "which the runner sets") {
			t.Errorf("header %s: Load gave %v, want the runner's header refused", h, err)
		}
	}
}

func writeCase(t *testing.T, data string) *Case {
	t.Helper()
	path := filepath.Join(t.TempDir(), "case.yaml")
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// A probe is sent until its answer has a value at its path, and its last
// answer is the one kept; a probe that would write is refused.
func TestProbeRepeatsUntilItsPathHasAValue(t *testing.T) {
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := map[string]any{"kind": "Probe"}
		if r.URL.Path == "/probe" {
			calls++
			body["status"] = map[string]any{"allowed": calls >= 3}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(body)
	}))
	defer srv.Close()

	c := writeCase(t, "steps:\n  - method: GET\n    path: /probe\n    until: status.allowed\n")
	got, err := (Server{Client: srv.Client(), URL: srv.URL}).Run(context.Background(), c, "ns1")
	if err != nil {
		t.Fatal(err)
	}
	if calls != 3 {
		t.Errorf("the probe was sent %d times, want 3", calls)
	}
	if allowed := lookup(got[0].Body, "status.allowed"); allowed != true {
		t.Errorf("the answer kept has status.allowed %v, want the last answer's true", allowed)
	}

	path := filepath.Join(t.TempDir(), "case.yaml")
	if err := os.WriteFile(path, []byte("steps:\n  - method: POST\n    path: /api/v1/namespaces/x/configmaps\n    until: metadata.name\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path); err == nil || !strings.Contains(err.Error(), "make it a dry run") {
		t.Errorf("Load of a probe that writes gave %v, want it refused", err)
	}
}
