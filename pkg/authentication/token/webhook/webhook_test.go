package webhook

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/kapi-dev/kapi/pkg/authentication/user"
)

// reviewer answers as the webhook the oracle was recorded with.
type reviewer struct {
	calls atomic.Int64
	last  atomic.Pointer[map[string]any]
}

func (rv *reviewer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rv.calls.Add(1)
	var raw map[string]any
	json.NewDecoder(r.Body).Decode(&raw)
	rv.last.Store(&raw)
	spec := raw["spec"].(map[string]any)
	st := map[string]any{"authenticated": false}
	switch spec["token"] {
	case "wh-good":
		st = map[string]any{"authenticated": true, "user": map[string]any{"username": "wh-user", "uid": "wh-uid", "groups": []string{"wh-group"}, "extra": map[string]any{"k": []string{"v"}}}}
	case "wh-aud":
		st = map[string]any{"authenticated": true, "audiences": []string{"other-aud"}, "user": map[string]any{"username": "wh-aud-user"}}
	case "wh-error":
		st = map[string]any{"authenticated": false, "error": "token is revoked"}
	case "wh-500":
		http.Error(w, "boom", 500)
		return
	}
	json.NewEncoder(w).Encode(map[string]any{"apiVersion": raw["apiVersion"], "kind": "TokenReview", "status": st})
}

func kubeconfig(t *testing.T, srv *httptest.Server) string {
	t.Helper()
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	path := filepath.Join(t.TempDir(), "webhook.kubeconfig")
	content := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: wh
  cluster:
    server: %s/webhook
    certificate-authority-data: %s
users:
- name: apiserver
  user: {}
contexts:
- name: wh
  context: {cluster: wh, user: apiserver}
current-context: wh
`, srv.URL, base64.StdEncoding.EncodeToString(ca))
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

var fast = wait.Backoff{Steps: 5, Duration: time.Millisecond, Factor: 1}

func TestTokenReviews(t *testing.T) {
	rv := &reviewer{}
	srv := httptest.NewTLSServer(rv)
	defer srv.Close()
	a, err := NewFromKubeconfig(kubeconfig(t, srv), "v1beta1", []string{"https://kubernetes.default.svc"}, fast, nil, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}

	resp, ok, err := a.AuthenticateToken(context.Background(), "wh-good")
	if !ok || err != nil {
		t.Fatalf("wh-good: ok=%v err=%v", ok, err)
	}
	want := &user.DefaultInfo{Name: "wh-user", UID: "wh-uid", Groups: []string{"wh-group"}, Extra: map[string][]string{"k": {"v"}}}
	if !reflect.DeepEqual(resp.User, want) {
		t.Errorf("user = %#v, want %#v", resp.User, want)
	}
	// What kube-apiserver 1.37.1 sent with its default version.
	sent := *rv.last.Load()
	if sent["apiVersion"] != "authentication.k8s.io/v1beta1" || sent["kind"] != "TokenReview" {
		t.Errorf("sent %v %v", sent["apiVersion"], sent["kind"])
	}
	if auds := sent["spec"].(map[string]any)["audiences"]; !reflect.DeepEqual(auds, []any{"https://kubernetes.default.svc"}) {
		t.Errorf("sent audiences %v", auds)
	}

	for _, tc := range []struct {
		token   string
		wantErr string
	}{
		{"unknown-xyz", ""},
		{"wh-aud", ""}, // authenticated for another audience only
		{"wh-error", "token is revoked"},
		{"wh-500", `an error on the server ("boom") has prevented the request from succeeding`},
	} {
		before := rv.calls.Load()
		_, ok, err := a.AuthenticateToken(context.Background(), tc.token)
		if ok {
			t.Errorf("%s: authenticated", tc.token)
		}
		if got := fmt.Sprint(err); (tc.wantErr == "" && err != nil) || (tc.wantErr != "" && got != tc.wantErr) {
			t.Errorf("%s: err = %v, want %q", tc.token, err, tc.wantErr)
		}
		if tc.token == "wh-500" && rv.calls.Load()-before != 5 {
			t.Errorf("a failing webhook was called %d times, want 5 as kube-apiserver", rv.calls.Load()-before)
		}
	}
}

func TestV1ReviewsAndUnsupportedVersions(t *testing.T) {
	rv := &reviewer{}
	srv := httptest.NewTLSServer(rv)
	defer srv.Close()
	a, err := NewFromKubeconfig(kubeconfig(t, srv), "v1", nil, fast, nil, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := a.AuthenticateToken(context.Background(), "wh-aud"); !ok {
		t.Error("without API audiences, any audience is accepted")
	}
	var sent authenticationv1.TokenReview
	b, _ := json.Marshal(*rv.last.Load())
	json.Unmarshal(b, &sent)
	if sent.APIVersion != "authentication.k8s.io/v1" {
		t.Errorf("apiVersion %q", sent.APIVersion)
	}
	if _, err := NewFromKubeconfig(kubeconfig(t, srv), "v2", nil, fast, nil, slog.New(slog.DiscardHandler)); err == nil {
		t.Error("version v2 accepted")
	}
}
