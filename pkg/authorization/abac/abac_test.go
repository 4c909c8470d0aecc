package abac

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kapi-dev/kapi/pkg/authentication/user"
	"github.com/kapi-dev/kapi/pkg/authorization/authorizer"
)

// policyFile mixes the two forms kube-apiserver reads, comments and blank
// lines, as an administrator's file would.
const policyFile = `# versioned
{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"user": "alice", "namespace": "*", "resource": "*", "apiGroup": "*"}}
{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"group": "viewers", "readonly": true, "namespace": "projectCaribou", "resource": "pods", "apiGroup": ""}}
{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"user": "*", "readonly": true, "nonResourcePath": "/version*"}}

# legacy: blank fields widen
{"user": "bob", "readonly": true}
{"user": "carol", "resource": "deployments"}
`

func load(t *testing.T, content string) (*Authorizer, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "policy.jsonl")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return NewFromFile(path)
}

func TestPoliciesAllowWhatTheyDescribe(t *testing.T) {
	a, err := load(t, policyFile)
	if err != nil {
		t.Fatal(err)
	}
	alice := &user.DefaultInfo{Name: "alice", Groups: []string{user.AllAuthenticated}}
	viewer := &user.DefaultInfo{Name: "vera", Groups: []string{"viewers", user.AllAuthenticated}}
	bob := &user.DefaultInfo{Name: "bob", Groups: []string{user.AllAuthenticated}}
	carol := &user.DefaultInfo{Name: "carol", Groups: []string{user.AllAuthenticated}}
	anonymous := &user.DefaultInfo{Name: user.Anonymous, Groups: []string{user.AllUnauthenticated}}
	res := func(u user.Info, verb, group, resource, ns string) authorizer.AttributesRecord {
		return authorizer.AttributesRecord{User: u, Verb: verb, APIGroup: group, Resource: resource, Namespace: ns, ResourceRequest: true}
	}
	path := func(u user.Info, verb, p string) authorizer.AttributesRecord {
		return authorizer.AttributesRecord{User: u, Verb: verb, Path: p}
	}
	for _, tc := range []struct {
		name  string
		attrs authorizer.AttributesRecord
		allow bool
	}{
		{"a user's policy with wildcards covers any resource", res(alice, "delete", "apps", "deployments", "ns"), true},
		{"... and cluster-scoped ones", res(alice, "create", "", "namespaces", ""), true},
		{"... but not non-resource paths", path(alice, "get", "/metrics"), false},
		{"a group's read-only policy allows reads", res(viewer, "list", "", "pods", "projectCaribou"), true},
		{"... not writes", res(viewer, "create", "", "pods", "projectCaribou"), false},
		{"... only in its namespace", res(viewer, "get", "", "pods", "other"), false},
		{"... only of its group", res(viewer, "get", "apps", "pods", "projectCaribou"), false},
		{"user * is every authenticated user, on a path prefix", path(bob, "get", "/version/extra"), true},
		{"... not the anonymous one", path(anonymous, "get", "/version"), false},
		{"a read-only legacy policy reads everything", res(bob, "get", "apps", "deployments", "ns"), true},
		{"... and non-resource paths", path(bob, "get", "/metrics"), true},
		{"... but writes nothing", res(bob, "update", "", "pods", "ns"), false},
		{"a legacy policy's resource matches in any group and namespace", res(carol, "delete", "apps", "deployments", "x"), true},
		{"... and nothing else", res(carol, "get", "", "pods", "x"), false},
		{"... and no path, as it names a resource", path(carol, "get", "/healthz"), false},
		{"no user, no match", res(nil, "get", "", "pods", "x"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, reason, err := a.Authorize(context.Background(), tc.attrs)
			if err != nil {
				t.Fatal(err)
			}
			if got := d == authorizer.DecisionAllow; got != tc.allow {
				t.Errorf("allowed %v, want %v", got, tc.allow)
			}
			if d == authorizer.DecisionDeny {
				t.Error("ABAC never denies")
			}
			if d == authorizer.DecisionNoOpinion && reason != "No policy matched." {
				t.Errorf("reason %q", reason)
			}
		})
	}
}

func TestABadLineIsNamed(t *testing.T) {
	_, err := load(t, "{\"user\":\"a\"}\n\n{not json\n")
	if err == nil || !strings.Contains(err.Error(), "line 3: {not json:") || !strings.HasPrefix(err.Error(), "error reading policy file ") {
		t.Fatalf("error %v", err)
	}
}

func TestRulesForListsTheMatchingPolicies(t *testing.T) {
	a, err := load(t, policyFile)
	if err != nil {
		t.Fatal(err)
	}
	rr, nr, incomplete, err := a.RulesFor(context.Background(), &user.DefaultInfo{Name: "bob", Groups: []string{user.AllAuthenticated}}, "ns")
	if err != nil || incomplete {
		t.Fatal(incomplete, err)
	}
	// bob: his own legacy policy. The "*" path policy has no namespace,
	// so, as in kube-apiserver, it is not listed for a namespace.
	if len(rr) != 1 || strings.Join(rr[0].Verbs, ",") != "get,list,watch" || rr[0].Resources[0] != "*" || rr[0].APIGroups[0] != "*" {
		t.Errorf("resource rules %+v", rr)
	}
	if len(nr) != 1 || nr[0].NonResourceURLs[0] != "*" {
		t.Errorf("non-resource rules %+v", nr)
	}
}
