package rbac

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/kapi-dev/kapi/pkg/apis/rbac"
	"github.com/kapi-dev/kapi/pkg/authentication/user"
	"github.com/kapi-dev/kapi/pkg/authorization"
	"github.com/kapi-dev/kapi/pkg/authorization/authorizer"
)

// decisionCase is one SubjectAccessReview and the oracle's answer, as
// hack/rbac-decisions records them.
type decisionCase struct {
	User    string                                 `json:"user"`
	Groups  []string                               `json:"groups"`
	Res     *authorizationv1.ResourceAttributes    `json:"resource"`
	NonRes  *authorizationv1.NonResourceAttributes `json:"nonResource"`
	Allowed bool                                   `json:"allowed"`
	Denied  bool                                   `json:"denied"`
	Reason  string                                 `json:"reason"`
}

func (c decisionCase) attributes() authorizer.AttributesRecord {
	a := authorizer.AttributesRecord{User: &user.DefaultInfo{Name: c.User, Groups: c.Groups}}
	if c.Res != nil {
		a.ResourceRequest, a.Verb, a.APIGroup, a.Resource, a.Subresource, a.Namespace, a.Name =
			true, c.Res.Verb, c.Res.Group, c.Res.Resource, c.Res.Subresource, c.Res.Namespace, c.Res.Name
	} else {
		a.Verb, a.Path = c.NonRes.Verb, c.NonRes.Path
	}
	return a
}

// TestDecisionsMatchKubeAPIServer replays every SubjectAccessReview of
// testdata/decisions.json (recorded from kube-apiserver 1.37.1 with
// kube-apiserver's bootstrap policy plus testdata/h-rbac-policy.json)
// against kapi's authorizer chain with RBAC, over the same two policies.
//
// The decision must match for every case. So must the reason, where
// kube-apiserver's is determined: it names the first binding that allows,
// and kube-apiserver visits bindings in its cache's (random) order, so
// when several bindings allow a request its reason must only be one of
// those kapi finds. Denial reasons list the roles that could not be found,
// prefixed by the chain with the authorizer's name ("rbac: ").
func TestDecisionsMatchKubeAPIServer(t *testing.T) {
	var recorded struct{ Cases []decisionCase }
	readJSON(t, "testdata/decisions.json", &recorded)
	if len(recorded.Cases) < 300 {
		t.Fatalf("only %d recorded cases", len(recorded.Cases))
	}
	rbacAuthz := loadPolicy(t, "testdata/kube-apiserver-policy.json", "testdata/h-rbac-policy.json")
	chain, err := authorization.New([]string{authorization.ModeRBAC}, authorization.Built{RBAC: rbacAuthz})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, c := range recorded.Cases {
		attrs := c.attributes()
		d, reason, err := chain.Authorize(ctx, attrs)
		if err != nil {
			t.Errorf("%s: %v", describeCase(c), err)
			continue
		}
		if (d == authorizer.DecisionAllow) != c.Allowed || (d == authorizer.DecisionDeny) != c.Denied {
			t.Errorf("%s: decision %v, kube-apiserver allowed=%v denied=%v (%q)", describeCase(c), d, c.Allowed, c.Denied, c.Reason)
			continue
		}
		switch {
		case c.Allowed && strings.HasPrefix(reason, "RBAC: "):
			sources := rbacAuthz.allowingSources(attrs)
			if !contains(sources, c.Reason) {
				t.Errorf("%s: kube-apiserver's reason %q is not among kapi's %q", describeCase(c), c.Reason, sources)
			}
			if len(sources) == 1 && reason != c.Reason {
				t.Errorf("%s: reason %q, kube-apiserver's %q", describeCase(c), reason, c.Reason)
			}
		case !c.Allowed:
			if reason != c.Reason {
				t.Errorf("%s: reason %q, kube-apiserver's %q", describeCase(c), reason, c.Reason)
			}
		}
	}
}

// allowingSources returns the reason of every binding that allows attrs.
func (a *Authorizer) allowingSources(attrs authorizer.Attributes) []string {
	var out []string
	a.visit(attrs.GetUser(), attrs.GetNamespace(), func(source fmt.Stringer, rules []rbacv1.PolicyRule, err error) bool {
		req := requestOf(attrs)
		for i := range rules {
			if rbac.Allows(&rules[i], req) {
				out = append(out, "RBAC: allowed by "+source.String())
				break
			}
		}
		return true
	})
	return out
}

func describeCase(c decisionCase) string {
	b, _ := json.Marshal(struct {
		User   string
		Groups []string
		Res    *authorizationv1.ResourceAttributes    `json:",omitempty"`
		NonRes *authorizationv1.NonResourceAttributes `json:",omitempty"`
	}{c.User, c.Groups, c.Res, c.NonRes})
	return string(b)
}

// loadPolicy fills caches with the RBAC objects of the List files, as the
// informers would, and returns an authorizer over them.
func loadPolicy(t testing.TB, files ...string) *Authorizer {
	t.Helper()
	roles := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	clusterRoles := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	roleBindings := cache.NewIndexer(cache.MetaNamespaceKeyFunc, Indexers())
	clusterRoleBindings := cache.NewIndexer(cache.MetaNamespaceKeyFunc, Indexers())
	for _, f := range files {
		var list struct{ Items []json.RawMessage }
		readJSON(t, f, &list)
		for _, raw := range list.Items {
			var kind struct{ Kind string }
			if err := json.Unmarshal(raw, &kind); err != nil {
				t.Fatal(err)
			}
			var obj any
			var idx cache.Indexer
			switch kind.Kind {
			case "Role":
				obj, idx = &rbacv1.Role{}, roles
			case "ClusterRole":
				obj, idx = &rbacv1.ClusterRole{}, clusterRoles
			case "RoleBinding":
				obj, idx = &rbacv1.RoleBinding{}, roleBindings
			case "ClusterRoleBinding":
				obj, idx = &rbacv1.ClusterRoleBinding{}, clusterRoleBindings
			default:
				t.Fatalf("%s: unexpected kind %q", f, kind.Kind)
			}
			if err := json.Unmarshal(raw, obj); err != nil {
				t.Fatal(err)
			}
			if err := idx.Add(obj); err != nil {
				t.Fatal(err)
			}
		}
	}
	return New(roles, roleBindings, clusterRoles, clusterRoleBindings)
}

func readJSON(t testing.TB, path string, into any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, into); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func contains(set []string, s string) bool {
	for _, x := range set {
		if x == s {
			return true
		}
	}
	return false
}
