package printers

import (
	"strings"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	rbacv1beta1 "k8s.io/api/rbac/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The printers of rbac.authorization.k8s.io/v1. Roles and ClusterRoles
// have none: they get the default columns.

var roleBindingColumns = []metav1.TableColumnDefinition{
	nameColumn,
	column("Role", "string", rbacv1beta1.RoleBinding{}.SwaggerDoc()["roleRef"]),
	ageColumn,
	wide(column("Users", "string", "Users in the roleBinding")),
	wide(column("Groups", "string", "Groups in the roleBinding")),
	wide(column("ServiceAccounts", "string", "ServiceAccounts in the roleBinding")),
}

func printRoleBinding(rb *rbacv1.RoleBinding, now time.Time) []any {
	return bindingCells(rb.Name, rb.RoleRef, rb.Subjects, rb.CreationTimestamp, now)
}

var clusterRoleBindingColumns = []metav1.TableColumnDefinition{
	nameColumn,
	column("Role", "string", rbacv1beta1.ClusterRoleBinding{}.SwaggerDoc()["roleRef"]),
	ageColumn,
	wide(column("Users", "string", "Users in the clusterRoleBinding")),
	wide(column("Groups", "string", "Groups in the clusterRoleBinding")),
	wide(column("ServiceAccounts", "string", "ServiceAccounts in the clusterRoleBinding")),
}

func printClusterRoleBinding(crb *rbacv1.ClusterRoleBinding, now time.Time) []any {
	return bindingCells(crb.Name, crb.RoleRef, crb.Subjects, crb.CreationTimestamp, now)
}

// bindingCells renders a binding: its role as Kind/name, then its users,
// groups and service accounts (namespace/name), each comma-separated.
// Subjects of other kinds are not shown.
func bindingCells(name string, role rbacv1.RoleRef, subjects []rbacv1.Subject, created metav1.Time, now time.Time) []any {
	var users, groups, serviceAccounts []string
	for _, s := range subjects {
		switch s.Kind {
		case rbacv1.UserKind:
			users = append(users, s.Name)
		case rbacv1.GroupKind:
			groups = append(groups, s.Name)
		case rbacv1.ServiceAccountKind:
			serviceAccounts = append(serviceAccounts, s.Namespace+"/"+s.Name)
		}
	}
	return []any{
		name,
		role.Kind + "/" + role.Name,
		since(created, now),
		strings.Join(users, ", "),
		strings.Join(groups, ", "),
		strings.Join(serviceAccounts, ", "),
	}
}
