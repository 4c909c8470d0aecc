package webhook

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/pkg/audit"
)

func TestPostsEventListsAndRetriesServerErrors(t *testing.T) {
	var mu sync.Mutex
	var bodies []string
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		calls++
		if calls == 1 {
			http.Error(w, "try again", http.StatusServiceUnavailable)
			return
		}
		b, _ := io.ReadAll(r.Body)
		if r.URL.Path != "/hook" || r.Header.Get("Content-Type") != "application/json" {
			t.Errorf("%s %s", r.URL.Path, r.Header.Get("Content-Type"))
		}
		bodies = append(bodies, string(b))
	}))
	defer srv.Close()
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(kubeconfig, []byte("apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: \""+srv.URL+"/hook\"}\ncontexts:\n- name: c\n  context: {cluster: c}\ncurrent-context: c\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	m := audit.NewMetrics()
	b, err := New(kubeconfig, time.Millisecond, nil, m, nil)
	if err != nil {
		t.Fatal(err)
	}
	ev := &audit.Event{AuditID: "a", Stage: audit.StageResponseComplete, Level: audit.LevelMetadata}
	ev.Kind, ev.APIVersion = "Event", audit.APIVersion
	if !b.ProcessEvents(ev, ev) {
		t.Fatal("ProcessEvents failed")
	}
	if len(bodies) != 1 || calls != 2 {
		t.Fatalf("%d calls, bodies %q; want a retry after the 503", calls, bodies)
	}
	var list map[string]any
	if err := json.Unmarshal([]byte(bodies[0]), &list); err != nil {
		t.Fatal(err)
	}
	items, _ := list["items"].([]any)
	if list["kind"] != "EventList" || list["apiVersion"] != "audit.k8s.io/v1" || list["metadata"] == nil || len(items) != 2 {
		t.Fatalf("body = %s", bodies[0])
	}
	if item := items[0].(map[string]any); item["kind"] != nil || item["apiVersion"] != nil || item["auditID"] != "a" {
		t.Errorf("item = %v, want an event without kind and apiVersion, as kube-apiserver sends", item)
	}
	if m.Errors(PluginName) != 0 {
		t.Error("a retried success counted as an error")
	}
}

// kube-apiserver's audit webhook retries every failure, a 400 included,
// and counts the events as lost once the attempts run out.
func TestEveryFailureIsRetriedThenTheEventsAreCounted(t *testing.T) {
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls++
		http.Error(w, "no", http.StatusBadRequest)
	}))
	defer srv.Close()
	m := audit.NewMetrics()
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(kubeconfig, []byte("apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: \""+srv.URL+"\"}\ncontexts:\n- name: c\n  context: {cluster: c}\ncurrent-context: c\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	b, err := New(kubeconfig, time.Millisecond, nil, m, nil)
	if err != nil {
		t.Fatal(err)
	}
	if b.ProcessEvents(&audit.Event{}, &audit.Event{}, &audit.Event{}) || calls != 5 || m.Errors(PluginName) != 3 {
		t.Errorf("calls %d, errors %v; want the backoff's 5 attempts and 3 events counted", calls, m.Errors(PluginName))
	}
}
