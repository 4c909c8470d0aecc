package e2e

import (
	"strings"
	"testing"
	"time"
)

// TestKubectlRBAC: the kapi binary with its default flags (Node,RBAC)
// and the real kubectl's RBAC commands: create role and rolebinding,
// auth can-i as the bound user, and auth reconcile, which adds the rules
// a role lacks and keeps the ones it has.
func TestKubectlRBAC(t *testing.T) {
	p := startKapiBinary(t, t.TempDir())
	p.mustKubectl(t, "", "create", "namespace", "team")

	canI := func(args ...string) string {
		t.Helper()
		out, _ := p.kubectl(t, "", append([]string{"auth", "can-i", "--as", "alice", "-n", "team"}, args...)...)
		return strings.TrimSpace(out)
	}
	if got := canI("list", "pods"); got != "no" {
		t.Fatalf("alice may list pods before any binding: %q", got)
	}

	if out := p.mustKubectl(t, "", "create", "role", "pod-reader", "-n", "team", "--verb=get,list,watch", "--resource=pods"); !strings.Contains(out, "role.rbac.authorization.k8s.io/pod-reader created") {
		t.Fatalf("kubectl create role: %s", out)
	}
	if out := p.mustKubectl(t, "", "create", "rolebinding", "alice-reads", "-n", "team", "--role=pod-reader", "--user=alice"); !strings.Contains(out, "rolebinding.rbac.authorization.k8s.io/alice-reads created") {
		t.Fatalf("kubectl create rolebinding: %s", out)
	}
	// The authorizer learns of the binding through its informers.
	deadline := time.Now().Add(30 * time.Second)
	for canI("list", "pods") != "yes" {
		if time.Now().After(deadline) {
			t.Fatal("alice still may not list pods after the RoleBinding")
		}
		time.Sleep(100 * time.Millisecond)
	}
	for _, c := range []struct{ verb, resource, want string }{
		{"get", "pods", "yes"},
		{"delete", "pods", "no"},
		{"list", "secrets", "no"},
	} {
		if got := canI(c.verb, c.resource); got != c.want {
			t.Errorf("alice can-i %s %s: %q, want %q", c.verb, c.resource, got, c.want)
		}
	}
	if out := p.mustKubectl(t, "", "get", "rolebinding", "alice-reads", "-n", "team", "-o", "wide"); !strings.Contains(out, "Role/pod-reader") || !strings.Contains(out, "alice") {
		t.Errorf("kubectl get rolebinding -o wide:\n%s", out)
	}

	// auth reconcile adds what the role lacks; the rules it has stay.
	const reconciled = `apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: pod-reader
  namespace: team
rules:
- apiGroups: [""]
  resources: ["configmaps"]
  verbs: ["get"]
`
	if out := p.mustKubectl(t, reconciled, "auth", "reconcile", "-f", "-"); !strings.Contains(out, "role.rbac.authorization.k8s.io/pod-reader reconciled") || !strings.Contains(out, "missing rules added") {
		t.Fatalf("kubectl auth reconcile: %s", out)
	}
	deadline = time.Now().Add(30 * time.Second)
	for canI("get", "configmaps") != "yes" {
		if time.Now().After(deadline) {
			t.Fatal("the reconciled rule does not reach the authorizer")
		}
		time.Sleep(100 * time.Millisecond)
	}
	if got := canI("list", "pods"); got != "yes" {
		t.Errorf("auth reconcile removed a rule: can-i list pods %q", got)
	}
}
