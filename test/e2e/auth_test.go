package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/kapi-dev/kapi/pkg/testserver"
)

// TestTokenAuthFileAndAnonymousOff: --token-auth-file users authenticate,
// bad tokens are 401, and with --anonymous-auth=false so is no credential.
func TestTokenAuthFileAndAnonymousOff(t *testing.T) {
	tokens := filepath.Join(t.TempDir(), "tokens.csv")
	if err := os.WriteFile(tokens, []byte("s3cret,alice,1001,\"devs,ops\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := testserver.Start(t, testserver.Options{TokenAuthFile: tokens, DisableAnonymousAuth: true, AuthorizationMode: []string{"AlwaysAllow"}})
	anon := rest.AnonymousClientConfig(s.ClientConfig)
	status := func(token, path string) int {
		cfg := rest.CopyConfig(anon)
		cfg.BearerToken = token
		client, err := rest.HTTPClientFor(cfg)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := client.Get(s.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := status("s3cret", "/api/v1/namespaces"); got != http.StatusOK {
		t.Errorf("token user: %d, want 200 (AlwaysAllow)", got)
	}
	if got := status("wrong", "/api/v1/namespaces"); got != http.StatusUnauthorized {
		t.Errorf("bad token: %d, want 401", got)
	}
	if got := status("", "/api/v1/namespaces"); got != http.StatusUnauthorized {
		t.Errorf("no credential with anonymous auth off: %d, want 401", got)
	}
}

// TestLegacyWatchPathAndDeleteCollection: the /watch/ prefix streams
// events, and a collection delete by label removes what it selects.
func TestLegacyWatchPathAndDeleteCollection(t *testing.T) {
	s := startKapi(t)
	c := clientset(t, s.ClientConfig)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client, err := rest.HTTPClientFor(s.ClientConfig)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequestWithContext(ctx, "GET", s.URL+"/api/v1/watch/namespaces/default/configmaps", nil)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("legacy watch: %d", resp.StatusCode)
	}
	for _, name := range []string{"a", "b", "keep"} {
		labels := map[string]string{"batch": "1"}
		if name == "keep" {
			labels = nil
		}
		if _, err := c.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	scanner := bufio.NewScanner(resp.Body)
	added := 0
	for added < 3 && scanner.Scan() {
		var ev struct {
			Type   string
			Object json.RawMessage
		}
		if err := json.Unmarshal(scanner.Bytes(), &ev); err != nil {
			t.Fatalf("event %q: %v", scanner.Text(), err)
		}
		if ev.Type == "ADDED" && strings.Contains(string(ev.Object), `"kind":"ConfigMap"`) {
			added++
		}
	}
	if added != 3 {
		t.Fatalf("legacy watch saw %d ADDED events", added)
	}

	if err := c.CoreV1().ConfigMaps("default").DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: "batch=1"}); err != nil {
		t.Fatal(err)
	}
	list, err := c.CoreV1().ConfigMaps("default").List(ctx, metav1.ListOptions{})
	if err != nil || len(list.Items) != 1 || list.Items[0].Name != "keep" {
		t.Fatalf("after deletecollection: %v %v", list, err)
	}
}

// TestProfilingFlag: /debug/pprof is served with --profiling (the
// default) and not without it.
func TestProfilingFlag(t *testing.T) {
	for _, tc := range []struct {
		disable bool
		want    int
	}{{false, http.StatusOK}, {true, http.StatusNotFound}} {
		s := testserver.Start(t, testserver.Options{DisableProfiling: tc.disable})
		client, err := rest.HTTPClientFor(s.ClientConfig)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := client.Get(s.URL + "/debug/pprof/")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("profiling disabled %v: /debug/pprof/ = %d, want %d", tc.disable, resp.StatusCode, tc.want)
		}
	}
}
