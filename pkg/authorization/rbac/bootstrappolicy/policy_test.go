package bootstrappolicy_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/pkg/authorization/rbac/bootstrappolicy"
	"github.com/kapi-dev/kapi/pkg/controller/clusterroleaggregation"
)

// recorded is kube-apiserver 1.37.1's policy, as testdata/README.md says
// how it was recorded.
type recorded struct {
	clusterRoles        map[string]rbacv1.ClusterRole
	clusterRoleBindings map[string]rbacv1.ClusterRoleBinding
	roles               map[string]rbacv1.Role
	roleBindings        map[string]rbacv1.RoleBinding
}

func loadRecorded(t *testing.T) recorded {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "testdata", "kube-apiserver-policy.json"))
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(data, &list); err != nil {
		t.Fatal(err)
	}
	r := recorded{map[string]rbacv1.ClusterRole{}, map[string]rbacv1.ClusterRoleBinding{}, map[string]rbacv1.Role{}, map[string]rbacv1.RoleBinding{}}
	for _, raw := range list.Items {
		var kind struct{ Kind string }
		if err := json.Unmarshal(raw, &kind); err != nil {
			t.Fatal(err)
		}
		switch kind.Kind {
		case "ClusterRole":
			var o rbacv1.ClusterRole
			mustDecode(t, raw, &o)
			r.clusterRoles[o.Name] = o
		case "ClusterRoleBinding":
			var o rbacv1.ClusterRoleBinding
			mustDecode(t, raw, &o)
			r.clusterRoleBindings[o.Name] = o
		case "Role":
			var o rbacv1.Role
			mustDecode(t, raw, &o)
			r.roles[o.Namespace+"/"+o.Name] = o
		case "RoleBinding":
			var o rbacv1.RoleBinding
			mustDecode(t, raw, &o)
			r.roleBindings[o.Namespace+"/"+o.Name] = o
		default:
			t.Fatalf("unexpected kind %q in the recording", kind.Kind)
		}
	}
	return r
}

func mustDecode(t *testing.T, raw json.RawMessage, into any) {
	t.Helper()
	if err := json.Unmarshal(raw, into); err != nil {
		t.Fatal(err)
	}
}

// aggregated runs the aggregation over the policy's roles until nothing
// changes: admin aggregates edit, which aggregates view, so one pass in
// the wrong order would not do.
func aggregated(t *testing.T, roles []rbacv1.ClusterRole) map[string]rbacv1.ClusterRole {
	t.Helper()
	byName := map[string]*rbacv1.ClusterRole{}
	var all []*rbacv1.ClusterRole
	for i := range roles {
		r := roles[i].DeepCopy()
		byName[r.Name] = r
		all = append(all, r)
	}
	for changed, passes := true, 0; changed; passes++ {
		if passes > len(all) {
			t.Fatal("aggregation does not settle")
		}
		changed = false
		for _, r := range all {
			if r.AggregationRule == nil {
				continue
			}
			rules, err := clusterroleaggregation.Aggregate(r, all)
			if err != nil {
				t.Fatal(err)
			}
			if !equality.Semantic.DeepEqual(rules, r.Rules) {
				r.Rules, changed = rules, true
			}
		}
	}
	out := map[string]rbacv1.ClusterRole{}
	for n, r := range byName {
		out[n] = *r
	}
	return out
}

// TestPolicyIsKubeAPIServers compares every object of the policy, field
// by field, with the one kube-apiserver 1.37.1 created, and finds no
// object on either side that the other lacks.
func TestPolicyIsKubeAPIServers(t *testing.T) {
	want := loadRecorded(t)
	p := bootstrappolicy.Default()
	if got, n := len(p.ClusterRoles)+len(p.ClusterRoleBindings)+len(p.Roles)+len(p.RoleBindings), 141; got != n {
		t.Errorf("the policy has %d objects, kube-apiserver creates %d", got, n)
	}

	roles := aggregated(t, p.ClusterRoles)
	compare(t, "clusterrole", keysOf(roles), keysOf(want.clusterRoles), func(name string) {
		got, w := roles[name], want.clusterRoles[name]
		if got.AggregationRule != nil && len(w.Rules) == 0 {
			t.Errorf("clusterrole %s: the recording has no aggregated rules to compare", name)
		}
		same(t, "clusterrole "+name, metaOf(got.ObjectMeta), metaOf(w.ObjectMeta))
		same(t, "clusterrole "+name+" rules", got.Rules, w.Rules)
		same(t, "clusterrole "+name+" aggregationRule", got.AggregationRule, w.AggregationRule)
	})
	bindings := map[string]rbacv1.ClusterRoleBinding{}
	for _, b := range p.ClusterRoleBindings {
		bindings[b.Name] = b
	}
	compare(t, "clusterrolebinding", keysOf(bindings), keysOf(want.clusterRoleBindings), func(name string) {
		got, w := bindings[name], want.clusterRoleBindings[name]
		same(t, "clusterrolebinding "+name, metaOf(got.ObjectMeta), metaOf(w.ObjectMeta))
		same(t, "clusterrolebinding "+name+" roleRef", got.RoleRef, w.RoleRef)
		same(t, "clusterrolebinding "+name+" subjects", got.Subjects, w.Subjects)
	})
	nsRoles := map[string]rbacv1.Role{}
	for _, r := range p.Roles {
		nsRoles[r.Namespace+"/"+r.Name] = r
	}
	compare(t, "role", keysOf(nsRoles), keysOf(want.roles), func(key string) {
		got, w := nsRoles[key], want.roles[key]
		same(t, "role "+key, metaOf(got.ObjectMeta), metaOf(w.ObjectMeta))
		same(t, "role "+key+" rules", got.Rules, w.Rules)
	})
	nsBindings := map[string]rbacv1.RoleBinding{}
	for _, b := range p.RoleBindings {
		nsBindings[b.Namespace+"/"+b.Name] = b
	}
	compare(t, "rolebinding", keysOf(nsBindings), keysOf(want.roleBindings), func(key string) {
		got, w := nsBindings[key], want.roleBindings[key]
		same(t, "rolebinding "+key, metaOf(got.ObjectMeta), metaOf(w.ObjectMeta))
		same(t, "rolebinding "+key+" roleRef", got.RoleRef, w.RoleRef)
		same(t, "rolebinding "+key+" subjects", got.Subjects, w.Subjects)
	})
}

// TestDefaultReturnsFreshObjects: callers (the reconciler, tests) may
// change what Default returns without changing the next call's answer.
func TestDefaultReturnsFreshObjects(t *testing.T) {
	a := bootstrappolicy.Default()
	a.ClusterRoles[1].Rules[0].Verbs[0] = "changed"
	a.ClusterRoles[1].Labels["changed"] = "true"
	a.ClusterRoleBindings[0].Subjects[0].Name = "changed"
	if b := bootstrappolicy.Default(); b.ClusterRoles[1].Rules[0].Verbs[0] == "changed" || b.ClusterRoles[1].Labels["changed"] != "" || b.ClusterRoleBindings[0].Subjects[0].Name == "changed" {
		t.Error("a change to one Default() shows in the next")
	}
}

type meta struct {
	Namespace, Name     string
	Labels, Annotations map[string]string
}

func metaOf(m metav1.ObjectMeta) meta {
	return meta{m.Namespace, m.Name, m.Labels, m.Annotations}
}

func same(t *testing.T, what string, got, want any) {
	t.Helper()
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("%s differs from kube-apiserver's (-kube-apiserver +kapi):\n%s", what, d)
	}
}

func keysOf[V any](m map[string]V) map[string]bool {
	out := map[string]bool{}
	for k := range m {
		out[k] = true
	}
	return out
}

// compare reports the names only one side has and checks each name both
// have.
func compare(t *testing.T, kind string, got, want map[string]bool, check func(string)) {
	t.Helper()
	for n := range want {
		if !got[n] {
			t.Errorf("%s %s: kube-apiserver creates it, the policy lacks it", kind, n)
		}
	}
	for n := range got {
		if !want[n] {
			t.Errorf("%s %s: the policy has it, kube-apiserver does not", kind, n)
			continue
		}
		check(n)
	}
}
