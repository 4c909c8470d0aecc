package filters

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	authenticationv1 "k8s.io/api/authentication/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/kapi-dev/kapi/pkg/authentication/user"
	"github.com/kapi-dev/kapi/pkg/authorization/authorizer"
	"github.com/kapi-dev/kapi/pkg/endpoints/request"
)

// oracleImpersonation is testdata/impersonation-oracle.json: requests sent
// to kube-apiserver 1.37.1, in order, with what it answered.
type oracleImpersonation struct {
	Source string `json:"source"`
	Cases  []struct {
		Name      string                     `json:"name"`
		Requestor string                     `json:"requestor"`
		Method    string                     `json:"method"`
		Path      string                     `json:"path"`
		Headers   [][2]string                `json:"headers"`
		Code      int                        `json:"code"`
		UserInfo  *authenticationv1.UserInfo `json:"userInfo"`
		Status    *metav1.Status             `json:"status"`
	} `json:"cases"`
}

// oracleRequestors are the users the recording authenticated as (client
// certificates); the admin certificate is in system:masters.
var oracleRequestors = map[string]*user.DefaultInfo{
	"alice": {Name: "alice", Groups: []string{user.AllAuthenticated}},
	"cora":  {Name: "cora", Groups: []string{user.AllAuthenticated}},
	"nemo":  {Name: "nemo", Groups: []string{user.AllAuthenticated}},
	"admin": {Name: "kubernetes-admin", Groups: []string{user.SystemPrivilegedGrp, user.AllAuthenticated}},
}

// TestImpersonationMatchesKubeAPIServer replays, in the recorded order and
// through one chain (the mode a requestor last succeeded with is
// remembered, as in kube-apiserver), every request of the recording, with
// an authorizer holding the policy the oracle had: the ClusterRoles and
// bindings of testdata/impersonation-rbac.yaml, system:basic-user's
// self-reviews for system:authenticated, and system:masters.
func TestImpersonationMatchesKubeAPIServer(t *testing.T) {
	var rec oracleImpersonation
	readJSON(t, "testdata/impersonation-oracle.json", &rec)
	if len(rec.Cases) < 50 {
		t.Fatalf("recording has %d cases, expected the whole recording", len(rec.Cases))
	}
	authz := oraclePolicy(t, "testdata/impersonation-rbac.yaml")

	// The handler answers a SelfSubjectReview with the user it is
	// served as, as kube-apiserver does.
	whoami := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, _ := request.UserFrom(r.Context())
		for name := range r.Header {
			if strings.HasPrefix(name, "Impersonate-") {
				t.Errorf("header %s reached the handler", name)
			}
		}
		w.WriteHeader(http.StatusCreated)
		_ = json.NewEncoder(w).Encode(authenticationv1.UserInfo{Username: u.GetName(), UID: u.GetUID(), Groups: u.GetGroups(), Extra: toExtraValues(u.GetExtra())})
	})
	chain := WithImpersonation(WithAuthorization(whoami, authz, nil, nil), authz, nil)

	for _, tc := range rec.Cases {
		t.Run(tc.Name, func(t *testing.T) {
			var body io.Reader
			if tc.Method == http.MethodPost {
				body = strings.NewReader(`{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}`)
			}
			r := newRequest(t, tc.Method, tc.Path, body)
			r = r.WithContext(request.WithUser(r.Context(), oracleRequestors[tc.Requestor]))
			for _, h := range tc.Headers {
				r.Header.Add(h[0], h[1])
			}
			w := httptest.NewRecorder()
			chain.ServeHTTP(w, r)

			if w.Code != tc.Code {
				t.Fatalf("status %d, kube-apiserver answered %d\n%s", w.Code, tc.Code, w.Body)
			}
			switch {
			case tc.UserInfo != nil:
				var got authenticationv1.UserInfo
				if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(*tc.UserInfo, got); diff != "" {
					t.Errorf("impersonated user differs from kube-apiserver's (-want +got):\n%s", diff)
				}
			case tc.Status != nil:
				if diff := cmp.Diff(*tc.Status, decodeStatus(t, w.Body.Bytes())); diff != "" {
					t.Errorf("Status differs from kube-apiserver's (-want +got):\n%s", diff)
				}
			default:
				t.Fatalf("recorded case has neither a user nor a Status")
			}
		})
	}
}

func toExtraValues(extra map[string][]string) map[string]authenticationv1.ExtraValue {
	if len(extra) == 0 {
		return nil
	}
	out := make(map[string]authenticationv1.ExtraValue, len(extra))
	for k, v := range extra {
		out[k] = v
	}
	return out
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// oraclePolicy is a small RBAC evaluator of the ClusterRoles and
// ClusterRoleBindings in path (only user subjects, only cluster-wide
// bindings: what the recording used), with system:masters allowed and
// system:basic-user's self-reviews granted to system:authenticated, as the
// oracle's bootstrap policy does.
func oraclePolicy(t *testing.T, path string) authorizer.Authorizer {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	roles := map[string][]rbacv1.PolicyRule{}
	bound := map[string][]string{} // user -> role names
	for _, doc := range bytes.Split(data, []byte("\n---\n")) {
		var meta metav1.TypeMeta
		if err := yaml.Unmarshal(doc, &meta); err != nil {
			t.Fatal(err)
		}
		switch meta.Kind {
		case "ClusterRole":
			var r rbacv1.ClusterRole
			if err := yaml.UnmarshalStrict(doc, &r); err != nil {
				t.Fatal(err)
			}
			roles[r.Name] = r.Rules
		case "ClusterRoleBinding":
			var b rbacv1.ClusterRoleBinding
			if err := yaml.UnmarshalStrict(doc, &b); err != nil {
				t.Fatal(err)
			}
			for _, s := range b.Subjects {
				bound[s.Name] = append(bound[s.Name], b.RoleRef.Name)
			}
		}
	}
	if len(roles) == 0 || len(bound) == 0 {
		t.Fatalf("%s holds no roles or bindings", path)
	}
	basicUser := []rbacv1.PolicyRule{{APIGroups: []string{"authentication.k8s.io"}, Resources: []string{"selfsubjectreviews"}, Verbs: []string{"create"}}}
	return authorizer.AuthorizerFunc(func(_ context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
		u := a.GetUser()
		if slices.Contains(u.GetGroups(), user.SystemPrivilegedGrp) {
			return authorizer.DecisionAllow, "", nil
		}
		var rules []rbacv1.PolicyRule
		for _, name := range bound[u.GetName()] {
			rules = append(rules, roles[name]...)
		}
		if slices.Contains(u.GetGroups(), user.AllAuthenticated) {
			rules = append(rules, basicUser...)
		}
		for _, r := range rules {
			if ruleAllows(r, a) {
				return authorizer.DecisionAllow, "", nil
			}
		}
		return authorizer.DecisionNoOpinion, "", nil
	})
}

func ruleAllows(r rbacv1.PolicyRule, a authorizer.Attributes) bool {
	if !a.IsResourceRequest() {
		return false
	}
	resource := a.GetResource()
	if a.GetSubresource() != "" {
		resource += "/" + a.GetSubresource()
	}
	return slices.Contains(r.Verbs, a.GetVerb()) &&
		slices.Contains(r.APIGroups, a.GetAPIGroup()) &&
		slices.Contains(r.Resources, resource) &&
		(len(r.ResourceNames) == 0 || slices.Contains(r.ResourceNames, a.GetName()))
}
