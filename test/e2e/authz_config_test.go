package e2e

import (
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"

	"github.com/kapi-dev/kapi/pkg/authorization"
	"github.com/kapi-dev/kapi/pkg/testserver"
)

// authzConfig is testdata/kube-apiserver/authorization-config.yaml, the
// file the oracle ran with, pointed at this test's webhook and without
// its Node and RBAC entries, which this kapi does not build (they have no
// opinion on alice and give no reason, so the recorded answers do not
// depend on them).
func authzConfig(t *testing.T, w *authzWebhook, edit func(string) string) string {
	t.Helper()
	data, err := os.ReadFile("testdata/kube-apiserver/authorization-config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	s = strings.ReplaceAll(s, "/ABSOLUTE/PATH/fail.kubeconfig", w.kubeconfig(t, "/fail"))
	s = strings.ReplaceAll(s, "/ABSOLUTE/PATH/webhook.kubeconfig", w.kubeconfig(t, "/authorize"))
	for _, drop := range []string{"- type: Node\n  name: node\n", "- type: RBAC\n  name: rbac\n"} {
		if !strings.Contains(s, drop) {
			t.Fatalf("the recorded configuration has no %q", drop)
		}
		s = strings.Replace(s, drop, "", 1)
	}
	if edit != nil {
		s = edit(s)
	}
	return s
}

// TestAuthorizationConfigAsKubeAPIServer runs kapi with the oracle's
// --authorization-config: three webhooks chosen by CEL match conditions,
// one failing with failurePolicy Deny (a 500, after kube-apiserver's five
// attempts), one failing with NoOpinion (the chain goes on), then
// AlwaysDeny and AlwaysAllow. Codes, 403 and 500 bodies, and what each
// webhook received are compared with the recording.
func TestAuthorizationConfigAsKubeAPIServer(t *testing.T) {
	recorded := readRecording[recordedExchange](t, "authorization-config.json")
	w := newAuthzWebhook(t)
	cfg := authorization.DefaultConfig()
	cfg.ConfigFile = writeFile(t, "authz.yaml", authzConfig(t, w, nil))
	cfg.WebhookRetryBackoff = &wait.Backoff{Duration: 10 * time.Millisecond, Factor: 1.5, Steps: 5}
	s := testserver.Start(t, testserver.Options{Authorization: &cfg})
	users := map[string]*rest.Config{
		"admin": s.ClientConfig,
		"alice": userConfig(t, s, "alice"),
		"anon":  rest.AnonymousClientConfig(s.ClientConfig),
	}
	// Where kapi departs from kube-apiserver on purpose (see
	// pkg/authorization.Build): anonymous requests never reach
	// AlwaysAllow, and /version is public before any authorizer is asked.
	departures := map[string]string{
		"anonymous-falls-to-alwaysallow": "the anonymous guard before AlwaysAllow",
		"ssrr-anonymous":                 "the anonymous guard before AlwaysAllow",
	}
	publicPath := map[string]bool{"alice-nonresource": true}
	for name, rec := range recorded {
		t.Run(name, func(t *testing.T) {
			if why, ok := departures[name]; ok {
				code, _ := do(t, users[rec.Request.User], rec.Request.Method, s.URL+rec.Request.Path, []byte("{}"))
				if code != http.StatusForbidden {
					t.Errorf("code %d: %s must forbid this", code, why)
				}
				return
			}
			w.take()
			var body []byte
			if rec.Request.Method == "POST" {
				body = []byte(jsonString(recordedBody(t, "authorization-config.json", name)))
			}
			code, resp := do(t, users[rec.Request.User], rec.Request.Method, s.URL+rec.Request.Path, body)
			if code != rec.Code {
				t.Errorf("code %d, kube-apiserver %d\n%s", code, rec.Code, jsonString(resp))
			}
			switch {
			case rec.Code == http.StatusForbidden || rec.Code == http.StatusInternalServerError:
				if !reflect.DeepEqual(resp, rec.Response) {
					t.Errorf("answer\n got: %s\nwant: %s", jsonString(resp), jsonString(rec.Response))
				}
			case strings.HasPrefix(name, "ssrr-"):
				compareRulesWithoutRBAC(t, resp, rec.Response)
			case strings.HasPrefix(name, "sar-"):
				if got, want := normalized(resp), normalized(rec.Response); !reflect.DeepEqual(got, want) {
					t.Errorf("answer\n got: %s\nwant: %s", jsonString(got), jsonString(want))
				}
			}
			got := w.take()
			if publicPath[name] {
				if len(got) != 0 {
					t.Errorf("a public path was sent to the webhooks: %s", jsonString(got))
				}
				return
			}
			if len(got) != len(rec.WebhookRequests) {
				t.Fatalf("the webhooks were asked %d times, kube-apiserver's %d times", len(got), len(rec.WebhookRequests))
			}
			for i := range got {
				if got[i].Path != rec.WebhookRequests[i].Path {
					t.Errorf("webhook path %s, kube-apiserver's %s", got[i].Path, rec.WebhookRequests[i].Path)
				}
				if g, want := withoutCredentialID(got[i].Body), withoutCredentialID(rec.WebhookRequests[i].Body); !reflect.DeepEqual(g, want) {
					t.Errorf("the webhook received\n%s\nkube-apiserver's received\n%s", jsonString(g), jsonString(want))
				}
			}
		})
	}
}

// recordedBody is the request body of a recorded case.
func recordedBody(t *testing.T, file, name string) any {
	t.Helper()
	raw := readRecording[struct {
		Request struct {
			Body any `json:"body"`
		} `json:"request"`
	}](t, file)
	return raw[name].Request.Body
}

// compareRulesWithoutRBAC compares a SelfSubjectRulesReview's status with
// the oracle's, which also lists RBAC's bootstrap rules: those come
// first (RBAC precedes the other authorizers in the recorded chain), so
// kapi's rules must be the oracle's last ones, and whether the list is
// complete and why not must be the same.
func compareRulesWithoutRBAC(t *testing.T, got, want any) {
	t.Helper()
	g, _ := got.(map[string]any)["status"].(map[string]any)
	w, _ := want.(map[string]any)["status"].(map[string]any)
	if g == nil || w == nil {
		t.Fatalf("no status:\n%s\n%s", jsonString(got), jsonString(want))
	}
	for _, k := range []string{"resourceRules", "nonResourceRules"} {
		gl, _ := g[k].([]any)
		wl, _ := w[k].([]any)
		if len(gl) > len(wl) || !reflect.DeepEqual(gl, wl[len(wl)-len(gl):]) || len(gl) == 0 {
			t.Errorf("%s\n got: %s\nkube-apiserver's (RBAC's first): %s", k, jsonString(gl), jsonString(wl))
		}
	}
	if g["incomplete"] != w["incomplete"] || g["evaluationError"] != w["evaluationError"] {
		t.Errorf("incomplete %v %q, kube-apiserver %v %q", g["incomplete"], g["evaluationError"], w["incomplete"], w["evaluationError"])
	}
}

// TestAuthorizationConfigIsReloaded: a changed file takes effect without a
// restart; a file that does not validate, or that drops a non-webhook
// authorizer the server started with, is ignored and the chain in use
// stays, as in kube-apiserver.
func TestAuthorizationConfigIsReloaded(t *testing.T) {
	w := newAuthzWebhook(t)
	cfg := authorization.DefaultConfig()
	cfg.ConfigFile = writeFile(t, "authz.yaml", authzConfig(t, w, nil))
	cfg.ConfigReloadInterval = 50 * time.Millisecond
	s := testserver.Start(t, testserver.Options{Authorization: &cfg})
	alice := userConfig(t, s, "alice")
	denied := s.URL + "/api/v1/namespaces/denied/configmaps"
	if code, resp := do(t, alice, "GET", denied, nil); code != http.StatusForbidden {
		t.Fatalf("before the reload, the recorder webhook denies: %d %s", code, jsonString(resp))
	}

	// The recorder no longer matches alice: AlwaysAllow has the last word.
	write := func(content string) {
		t.Helper()
		if err := os.WriteFile(cfg.ConfigFile, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(authzConfig(t, w, func(s string) string {
		return strings.Replace(s, `- expression: "request.user == 'alice'"`, `- expression: "request.user == 'nobody'"`, 1)
	}))
	waitFor(t, "the new configuration", func() bool {
		code, _ := do(t, alice, "GET", denied, nil)
		return code == http.StatusOK
	})

	for name, content := range map[string]string{
		"no authorizers":  "apiVersion: apiserver.config.k8s.io/v1\nkind: AuthorizationConfiguration\nauthorizers: []\n",
		"no AlwaysAllow":  authzConfig(t, w, func(s string) string { return strings.Replace(s, "- type: AlwaysAllow\n  name: alwaysallow\n", "", 1) }),
		"not even a file": "{",
	} {
		write(content)
		time.Sleep(10 * cfg.ConfigReloadInterval) // several checks of the file
		if code, _ := do(t, alice, "GET", denied, nil); code != http.StatusOK {
			t.Errorf("after a file with %s: %d, want the chain in use's 200", name, code)
		}
	}
}

// TestWebhookAnswersAreCached counts the calls: an answer is reused for
// its TTL, allowed and not allowed answers each for their own.
func TestWebhookAnswersAreCached(t *testing.T) {
	w := newAuthzWebhook(t)
	cfg := authorization.DefaultConfig()
	cfg.WebhookConfigFile = w.kubeconfig(t, "/authorize")
	cfg.WebhookCacheUnauthorizedTTL = 300 * time.Millisecond
	s := testserver.Start(t, testserver.Options{AuthorizationMode: []string{"Webhook"}, Authorization: &cfg})
	alice := userConfig(t, s, "alice")
	for i := 0; i < 3; i++ {
		do(t, alice, "GET", s.URL+"/api/v1/namespaces/default/configmaps", nil)
		do(t, alice, "GET", s.URL+"/api/v1/namespaces/denied/configmaps", nil)
	}
	got := w.take()
	if len(got) != 2 {
		t.Fatalf("the webhook was asked %d times for two questions asked three times each, want 2 (cached)", len(got))
	}
	// v1beta1 is kube-apiserver's default version.
	if got[0].Body["apiVersion"] != "authorization.k8s.io/v1beta1" {
		t.Errorf("apiVersion %v, want authorization.k8s.io/v1beta1", got[0].Body["apiVersion"])
	}
	// The denial expires after its TTL; the allowed answer (5m) does not.
	waitFor(t, "the denial to expire", func() bool {
		do(t, alice, "GET", s.URL+"/api/v1/namespaces/denied/configmaps", nil)
		return len(w.take()) > 0
	})
	do(t, alice, "GET", s.URL+"/api/v1/namespaces/default/configmaps", nil)
	if n := len(w.take()); n != 0 {
		t.Errorf("the allowed answer was asked again (%d calls) within its 5m TTL", n)
	}
}

// TestKubectlAuthCanI asks the real kubectl, as alice, under each mode.
func TestKubectlAuthCanI(t *testing.T) {
	kubectl := filepath.Join(binaries(t), "kubectl")
	w := newAuthzWebhook(t)
	policy := writeFile(t, "policy.jsonl", `{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"user": "alice", "nonResourcePath": "*", "readonly": true}}
{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"user": "alice", "namespace": "team", "resource": "pods", "apiGroup": "", "readonly": true}}
{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"user": "alice", "namespace": "team", "resource": "selfsubjectaccessreviews", "apiGroup": "authorization.k8s.io"}}
{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"user": "alice", "namespace": "*", "resource": "selfsubjectrulesreviews", "apiGroup": "authorization.k8s.io"}}
{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"user": "alice", "namespace": "", "resource": "selfsubjectaccessreviews", "apiGroup": "authorization.k8s.io"}}
`)
	type ask struct {
		args []string
		want string // "yes" or "no", or a line --list must print
	}
	for _, tc := range []struct {
		mode string
		asks []ask
	}{
		{"AlwaysAllow", []ask{
			{[]string{"create", "pods"}, "yes"},
			{[]string{"delete", "nodes"}, "yes"},
			{[]string{"--list"}, "*.*    []    []    [*]"},
		}},
		{"AlwaysDeny", []ask{
			// The review itself is forbidden: kubectl cannot even ask.
			{[]string{"get", "pods"}, "error"},
		}},
		{"ABAC", []ask{
			{[]string{"get", "pods", "-n", "team"}, "yes"},
			{[]string{"create", "pods", "-n", "team"}, "no - abac: No policy matched."},
			{[]string{"get", "pods", "-n", "other"}, "no"},
			{[]string{"--list", "-n", "team"}, "pods    []    []    [get list watch]"},
		}},
		{"Webhook", []ask{
			{[]string{"create", "pods"}, "yes"},
			{[]string{"create", "pods", "-n", "denied"}, "no - webhook says no"},
		}},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			cfg := authorization.DefaultConfig()
			switch tc.mode {
			case "ABAC":
				cfg.PolicyFile = policy
			case "Webhook":
				cfg.WebhookConfigFile = w.kubeconfig(t, "/authorize")
			}
			s := testserver.Start(t, testserver.Options{AuthorizationMode: []string{tc.mode}, Authorization: &cfg})
			kc := writeKubeconfig(t, userConfig(t, s, "alice"))
			for _, a := range tc.asks {
				// kubectl answers on stdout ("no - <reason>" when the
				// authorizer gave one) and warns on stderr.
				cmd := exec.Command(kubectl, append([]string{"--kubeconfig", kc, "auth", "can-i"}, a.args...)...)
				var stderr strings.Builder
				cmd.Stderr = &stderr
				out, err := cmd.Output()
				got := strings.TrimSpace(string(out))
				if a.want == "error" {
					got += stderr.String()
				}
				switch a.want {
				case "yes":
					if err != nil || got != "yes" {
						t.Errorf("can-i %v: %q (%v), want yes", a.args, got, err)
					}
				case "no", "no - webhook says no", "no - abac: No policy matched.":
					if err == nil || (got != a.want && !(a.want == "no" && strings.HasPrefix(got, "no - "))) {
						t.Errorf("can-i %v: %q (%v), want %q", a.args, got, err, a.want)
					}
				case "error":
					if err == nil || !strings.Contains(got, "forbidden") {
						t.Errorf("can-i %v: %q (%v), want a forbidden error", a.args, got, err)
					}
				default:
					if err != nil || !containsLine(got, a.want) {
						t.Errorf("can-i %v: %v\n%s\nwant a line %q", a.args, err, got, a.want)
					}
				}
			}
		})
	}
}

// containsLine reports whether out has a line equal to want, spaces
// collapsed.
func containsLine(out, want string) bool {
	norm := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	for _, line := range strings.Split(out, "\n") {
		if norm(line) == norm(want) {
			return true
		}
	}
	return false
}
