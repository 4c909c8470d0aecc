package rbac

import (
	"context"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/kapi-dev/kapi/pkg/authentication/user"
	"github.com/kapi-dev/kapi/pkg/authorization/authorizer"
)

// The index follows the caches: a binding whose subjects change, or that
// is deleted, stops granting its old subjects at once.
func TestIndexFollowsBindingChanges(t *testing.T) {
	roles := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	clusterRoles := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	roleBindings := cache.NewIndexer(cache.MetaNamespaceKeyFunc, Indexers())
	clusterRoleBindings := cache.NewIndexer(cache.MetaNamespaceKeyFunc, Indexers())
	a := New(roles, roleBindings, clusterRoles, clusterRoleBindings)

	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(roles.Add(&rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "reader"},
		Rules: []rbacv1.PolicyRule{{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods"}}}}))
	binding := func(subjects ...rbacv1.Subject) *rbacv1.RoleBinding {
		return &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "b"},
			RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "reader"}, Subjects: subjects}
	}
	allowed := func(name, namespace string) bool {
		attrs := authorizer.AttributesRecord{User: &user.DefaultInfo{Name: name}, Verb: "get", Resource: "pods", Namespace: namespace, ResourceRequest: true}
		d, _, _ := a.Authorize(context.Background(), attrs)
		return d == authorizer.DecisionAllow
	}

	must(roleBindings.Add(binding(rbacv1.Subject{Kind: rbacv1.UserKind, Name: "ann"}, rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Name: "sa"})))
	if !allowed("ann", "ns") || !allowed("system:serviceaccount:ns:sa", "ns") {
		t.Error("the subjects of a RoleBinding are not allowed")
	}
	if allowed("ann", "other") || allowed("system:serviceaccount:other:sa", "ns") {
		t.Error("a RoleBinding grants outside its namespace, or to a service account of another namespace")
	}
	must(roleBindings.Update(binding(rbacv1.Subject{Kind: rbacv1.UserKind, Name: "bob"})))
	if allowed("ann", "ns") || !allowed("bob", "ns") {
		t.Error("after the subjects changed, the index still has the old ones")
	}
	must(roleBindings.Delete(binding(rbacv1.Subject{Kind: rbacv1.UserKind, Name: "bob"})))
	if allowed("bob", "ns") {
		t.Error("a deleted binding still grants")
	}
}
