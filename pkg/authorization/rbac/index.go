package rbac

import (
	"fmt"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/client-go/tools/cache"
)

// SubjectIndex is the name of the index this package adds to the caches of
// RoleBindings and ClusterRoleBindings. A binding is filed under one key
// per subject, so the bindings of a request's user are found with one
// lookup per name and group, however many bindings exist: kube-apiserver
// instead lists every binding of the namespace and of the cluster on every
// request.
const SubjectIndex = "rbac.kapi.dev/subject"

// Indexers returns the index of bindings by subject; add it to the binding
// informers before they start.
func Indexers() cache.Indexers {
	return cache.Indexers{SubjectIndex: indexBySubject}
}

// The keys of the index. A ServiceAccount subject is filed under the user
// name its tokens authenticate as, so requests need not know about service
// accounts. RoleBinding keys carry the binding's namespace: a RoleBinding
// grants only there.
func userKey(namespace, name string) string  { return namespace + "/user:" + name }
func groupKey(namespace, name string) string { return namespace + "/group:" + name }

// serviceAccountUser is the user name of a service account's tokens.
func serviceAccountUser(namespace, name string) string {
	return "system:serviceaccount:" + namespace + ":" + name
}

func indexBySubject(obj any) ([]string, error) {
	var namespace string
	var subjects []rbacv1.Subject
	switch b := obj.(type) {
	case *rbacv1.RoleBinding:
		namespace, subjects = b.Namespace, b.Subjects
	case *rbacv1.ClusterRoleBinding:
		subjects = b.Subjects
	default:
		return nil, fmt.Errorf("rbac: cannot index %T by subject", obj)
	}
	keys := make([]string, 0, len(subjects))
	for _, s := range subjects {
		if k, ok := subjectKey(namespace, s); ok {
			keys = append(keys, k)
		}
	}
	return keys, nil
}

// subjectKey is the index key of s in a binding of namespace ("" for
// cluster bindings). A service account without a namespace belongs to the
// binding's namespace; in a cluster binding it matches nobody.
func subjectKey(namespace string, s rbacv1.Subject) (string, bool) {
	switch s.Kind {
	case rbacv1.UserKind:
		return userKey(namespace, s.Name), true
	case rbacv1.GroupKind:
		return groupKey(namespace, s.Name), true
	case rbacv1.ServiceAccountKind:
		saNamespace := s.Namespace
		if saNamespace == "" {
			saNamespace = namespace
		}
		if saNamespace == "" {
			return "", false
		}
		return userKey(namespace, serviceAccountUser(saNamespace, s.Name)), true
	}
	return "", false
}
