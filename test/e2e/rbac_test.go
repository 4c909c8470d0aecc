package e2e

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kapi-dev/kapi/pkg/testserver"
)

// TestRBACEscalationMatchesKubeAPIServer replays, against kapi with
// --authorization-mode=RBAC, the steps hack/oracle/rbac_escalation.py sent
// to kube-apiserver: alice, with no bindings, is refused with
// kube-apiserver's 403; RoleBindings the admin creates grant her what
// they name; she cannot create, update or patch roles or bindings beyond
// what she holds (kube-apiserver's escalation message), unless she may
// "bind" the role (by name) or "escalate" on roles. Each step must get
// kube-apiserver's status code, and its Status body when it fails.
func TestRBACEscalationMatchesKubeAPIServer(t *testing.T) {
	var recorded struct {
		Steps []struct {
			Step, As, Method, Path string
			Body                   json.RawMessage
			Code                   int
			Response               map[string]any
		}
	}
	data, err := os.ReadFile("testdata/kube-apiserver/rbac-escalation.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &recorded); err != nil {
		t.Fatal(err)
	}

	tokens := filepath.Join(t.TempDir(), "tokens.csv")
	if err := os.WriteFile(tokens, []byte("alice-token,alice,1001\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := testserver.Start(t, testserver.Options{TokenAuthFile: tokens, AuthorizationMode: []string{"RBAC"}})
	admin := kubernetes.NewForConfigOrDie(s.ClientConfig)
	if _, err := admin.CoreV1().Namespaces().Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "h-rbac"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	aliceConfig := rest.AnonymousClientConfig(s.ClientConfig)
	aliceConfig.BearerToken = "alice-token"
	clients := map[string]*http.Client{}
	for who, cfg := range map[string]*rest.Config{"admin": s.ClientConfig, "alice": aliceConfig} {
		c, err := rest.HTTPClientFor(cfg)
		if err != nil {
			t.Fatal(err)
		}
		clients[who] = c
	}
	send := func(who, method, path string, body []byte) (int, map[string]any) {
		var r io.Reader
		if len(body) > 0 && string(body) != "null" {
			r = bytes.NewReader(body)
		}
		req, err := http.NewRequestWithContext(t.Context(), method, s.URL+path, r)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		if method == http.MethodPatch {
			req.Header.Set("Content-Type", "application/merge-patch+json")
		}
		resp, err := clients[who].Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&out)
		return resp.StatusCode, out
	}

	for _, step := range recorded.Steps {
		if step.As == "alice" {
			// RBAC decides from informer caches, in kapi as in
			// kube-apiserver: a binding the admin just wrote is seen a
			// moment later. Wait for alice's request to get the recorded
			// answer without effect (a dry run; GETs have none), then
			// send it.
			probe := step.Path
			if step.Method != http.MethodGet {
				probe += "?dryRun=All"
			}
			deadline := time.Now().Add(10 * time.Second)
			for {
				code, _ := send(step.As, step.Method, probe, step.Body)
				if code == step.Code || time.Now().After(deadline) {
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
		}
		code, got := send(step.As, step.Method, step.Path, step.Body)
		if code != step.Code {
			t.Errorf("%s: %d %v, kube-apiserver answered %d %v", step.Step, code, got["message"], step.Code, step.Response["message"])
			continue
		}
		if step.Code >= 400 {
			delete(got, "metadata")
			if !reflect.DeepEqual(got, step.Response) {
				t.Errorf("%s:\n got %v\nwant %v", step.Step, got, step.Response)
			}
		}
	}
	if t.Failed() {
		return
	}
	// The steps above end with alice's escalating update and patch
	// refused, and a patch within her rules: the role has what she was
	// allowed to write.
	r, err := admin.RbacV1().Roles("h-rbac").Get(t.Context(), "mine", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(r.Rules[0].Verbs, ","); got != "get,list" {
		t.Errorf("role mine has verbs %s, want get,list", got)
	}
}
