package rbac

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/pkg/apis/rbac"
	"github.com/kapi-dev/kapi/pkg/authentication/user"
	"github.com/kapi-dev/kapi/pkg/authorization/authorizer"
)

// benchPolicy is kube-apiserver's bootstrap policy plus, in namespace
// "bench" and cluster-wide, n roles and n bindings each for users the
// benchmark's requests are not made by, and one RoleBinding granting
// "bench-user" the ClusterRole edit in "bench".
func benchPolicy(b *testing.B, n int) *Authorizer {
	a := loadPolicy(b, "testdata/kube-apiserver-policy.json")
	rule := []rbacv1.PolicyRule{{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"configmaps"}}}
	for i := range n {
		name := fmt.Sprintf("other-%d", i)
		ref := rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: name}
		subjects := []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: name}, {Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: name}}
		must(b, a.roles.Add(&rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: "bench", Name: name}, Rules: rule}))
		must(b, a.roleBindings.Add(&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "bench", Name: name}, RoleRef: ref, Subjects: subjects}))
		must(b, a.clusterRoles.Add(&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: rule}))
		ref.Kind = "ClusterRole"
		must(b, a.clusterRoleBindings.Add(&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name}, RoleRef: ref, Subjects: subjects}))
	}
	must(b, a.roleBindings.Add(&rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: "bench", Name: "bench-user-edit"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "edit"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: "bench-user"}},
	}))
	return a
}

var benchRequests = map[string]authorizer.AttributesRecord{
	// Allowed by the RoleBinding, after the user's cluster bindings
	// (system:basic-user and the like, through system:authenticated).
	"allowed": {
		User: &user.DefaultInfo{Name: "bench-user", Groups: []string{"system:authenticated"}},
		Verb: "create", Resource: "configmaps", Namespace: "bench", ResourceRequest: true,
	},
	// Denied: every binding of the user is visited and none allows.
	"denied": {
		User: &user.DefaultInfo{Name: "bench-user", Groups: []string{"system:authenticated"}},
		Verb: "create", Resource: "nodes", ResourceRequest: true, Namespace: "bench",
	},
}

// BenchmarkAuthorize measures a decision with 1,000 unrelated roles,
// RoleBindings (in the request's namespace), ClusterRoles and
// ClusterRoleBindings present, by the subject index (indexed) and by
// walking every binding as kube-apiserver does (walk, the same rule
// matching, for comparison).
func BenchmarkAuthorize(b *testing.B) {
	a := benchPolicy(b, 1000)
	ctx := context.Background()
	for _, name := range []string{"allowed", "denied"} {
		attrs := benchRequests[name]
		want, _, _ := a.Authorize(ctx, attrs)
		if got := a.walkAuthorize(attrs); got != want {
			b.Fatalf("%s: walk says %v, index %v", name, got, want)
		}
		b.Run(name+"/indexed", func(b *testing.B) {
			// Each decision is timed, so that the tail is reported
			// beside the mean: p99-ns includes a clock read (tens of ns).
			var took []time.Duration
			for b.Loop() {
				t0 := time.Now()
				_, _, _ = a.Authorize(ctx, attrs)
				took = append(took, time.Since(t0))
			}
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)*99/100].Nanoseconds()), "p99-ns")
		})
		b.Run(name+"/walk", func(b *testing.B) {
			for b.Loop() {
				a.walkAuthorize(attrs)
			}
		})
	}
}

// walkAuthorize decides as kube-apiserver's RBAC does: every
// ClusterRoleBinding, then every RoleBinding of the namespace, checked
// subject by subject.
func (a *Authorizer) walkAuthorize(attrs authorizer.Attributes) authorizer.Decision {
	u, req := attrs.GetUser(), requestOf(attrs)
	applies := func(namespace string, subjects []rbacv1.Subject) bool {
		for _, s := range subjects {
			switch s.Kind {
			case rbacv1.UserKind:
				if s.Name == u.GetName() {
					return true
				}
			case rbacv1.GroupKind:
				if slices.Contains(u.GetGroups(), s.Name) {
					return true
				}
			case rbacv1.ServiceAccountKind:
				ns := s.Namespace
				if ns == "" {
					ns = namespace
				}
				if ns != "" && serviceAccountUser(ns, s.Name) == u.GetName() {
					return true
				}
			}
		}
		return false
	}
	allows := func(ref rbacv1.RoleRef, namespace string) bool {
		rules, _ := a.RoleRefRules(ref, namespace)
		return slices.ContainsFunc(rules, func(r rbacv1.PolicyRule) bool { return rbac.Allows(&r, req) })
	}
	for _, o := range a.clusterRoleBindings.List() {
		b := o.(*rbacv1.ClusterRoleBinding)
		if applies("", b.Subjects) && allows(b.RoleRef, "") {
			return authorizer.DecisionAllow
		}
	}
	objs, _ := a.roleBindings.ByIndex("namespace", attrs.GetNamespace())
	if objs == nil {
		for _, o := range a.roleBindings.List() {
			if rb := o.(*rbacv1.RoleBinding); rb.Namespace == attrs.GetNamespace() {
				objs = append(objs, rb)
			}
		}
	}
	for _, o := range objs {
		b := o.(*rbacv1.RoleBinding)
		if applies(b.Namespace, b.Subjects) && allows(b.RoleRef, b.Namespace) {
			return authorizer.DecisionAllow
		}
	}
	return authorizer.DecisionNoOpinion
}

func must(b *testing.B, err error) {
	b.Helper()
	if err != nil {
		b.Fatal(err)
	}
}
