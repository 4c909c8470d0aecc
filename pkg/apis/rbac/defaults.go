package rbac

import (
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// AddDefaults registers the defaulting functions of the
// rbac.authorization.k8s.io/v1 bindings, and of their lists, in scheme.
// Roles have no defaults.
func AddDefaults(scheme *runtime.Scheme) error {
	scheme.AddTypeDefaultingFunc(&rbacv1.RoleBinding{}, func(obj any) { SetDefaultsRoleBinding(obj.(*rbacv1.RoleBinding)) })
	scheme.AddTypeDefaultingFunc(&rbacv1.RoleBindingList{}, func(obj any) {
		list := obj.(*rbacv1.RoleBindingList)
		for i := range list.Items {
			SetDefaultsRoleBinding(&list.Items[i])
		}
	})
	scheme.AddTypeDefaultingFunc(&rbacv1.ClusterRoleBinding{}, func(obj any) { SetDefaultsClusterRoleBinding(obj.(*rbacv1.ClusterRoleBinding)) })
	scheme.AddTypeDefaultingFunc(&rbacv1.ClusterRoleBindingList{}, func(obj any) {
		list := obj.(*rbacv1.ClusterRoleBindingList)
		for i := range list.Items {
			SetDefaultsClusterRoleBinding(&list.Items[i])
		}
	})
	return nil
}

// SetDefaultsRoleBinding fills in what kube-apiserver fills in: the
// roleRef's API group and the API group of User and Group subjects, so
// that `kubectl create rolebinding` (which sends neither) stores a valid
// binding.
func SetDefaultsRoleBinding(rb *rbacv1.RoleBinding) {
	setDefaultsRoleRef(&rb.RoleRef)
	setDefaultsSubjects(rb.Subjects)
}

// SetDefaultsClusterRoleBinding is SetDefaultsRoleBinding for cluster
// bindings.
func SetDefaultsClusterRoleBinding(crb *rbacv1.ClusterRoleBinding) {
	setDefaultsRoleRef(&crb.RoleRef)
	setDefaultsSubjects(crb.Subjects)
}

func setDefaultsRoleRef(ref *rbacv1.RoleRef) {
	if ref.APIGroup == "" {
		ref.APIGroup = rbacv1.GroupName
	}
}

// setDefaultsSubjects defaults the API group of users and groups only:
// service accounts live in the core group, whose name is "".
func setDefaultsSubjects(subjects []rbacv1.Subject) {
	for i := range subjects {
		s := &subjects[i]
		if s.APIGroup == "" && (s.Kind == rbacv1.UserKind || s.Kind == rbacv1.GroupKind) {
			s.APIGroup = rbacv1.GroupName
		}
	}
}
