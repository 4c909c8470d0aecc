package reconciliation

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kapi-dev/kapi/pkg/client"
)

// The stores adapt the typed clients to what the reconciler
// needs.

type clusterRoles struct {
	c client.Interface[*rbacv1.ClusterRole, *rbacv1.ClusterRoleList]
}

func (s clusterRoles) get(ctx context.Context, _, name string) (*rbacv1.ClusterRole, error) {
	return s.c.Get(ctx, name, metav1.GetOptions{})
}

func (s clusterRoles) create(ctx context.Context, o *rbacv1.ClusterRole) error {
	_, err := s.c.Create(ctx, o, metav1.CreateOptions{})
	return err
}

func (s clusterRoles) update(ctx context.Context, o *rbacv1.ClusterRole) error {
	_, err := s.c.Update(ctx, o, metav1.UpdateOptions{})
	return err
}

type roles struct {
	c          client.Interface[*rbacv1.Role, *rbacv1.RoleList]
	namespaces client.Interface[*corev1.Namespace, *corev1.NamespaceList]
}

func (s roles) get(ctx context.Context, _, name string) (*rbacv1.Role, error) {
	return s.c.Get(ctx, name, metav1.GetOptions{})
}

func (s roles) create(ctx context.Context, o *rbacv1.Role) error {
	if err := ensureNamespace(ctx, s.namespaces, o.Namespace); err != nil {
		return err
	}
	_, err := s.c.Create(ctx, o, metav1.CreateOptions{})
	return err
}

func (s roles) update(ctx context.Context, o *rbacv1.Role) error {
	_, err := s.c.Update(ctx, o, metav1.UpdateOptions{})
	return err
}

type clusterRoleBindings struct {
	c client.Interface[*rbacv1.ClusterRoleBinding, *rbacv1.ClusterRoleBindingList]
}

func (s clusterRoleBindings) get(ctx context.Context, _, name string) (*rbacv1.ClusterRoleBinding, error) {
	return s.c.Get(ctx, name, metav1.GetOptions{})
}

func (s clusterRoleBindings) create(ctx context.Context, o *rbacv1.ClusterRoleBinding) error {
	_, err := s.c.Create(ctx, o, metav1.CreateOptions{})
	return err
}

func (s clusterRoleBindings) update(ctx context.Context, o *rbacv1.ClusterRoleBinding) error {
	_, err := s.c.Update(ctx, o, metav1.UpdateOptions{})
	return err
}

func (s clusterRoleBindings) delete(ctx context.Context, _, name string, uid types.UID) error {
	return s.c.Delete(ctx, name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
}

type roleBindings struct {
	c          client.Interface[*rbacv1.RoleBinding, *rbacv1.RoleBindingList]
	namespaces client.Interface[*corev1.Namespace, *corev1.NamespaceList]
}

func (s roleBindings) get(ctx context.Context, _, name string) (*rbacv1.RoleBinding, error) {
	return s.c.Get(ctx, name, metav1.GetOptions{})
}

func (s roleBindings) create(ctx context.Context, o *rbacv1.RoleBinding) error {
	if err := ensureNamespace(ctx, s.namespaces, o.Namespace); err != nil {
		return err
	}
	_, err := s.c.Create(ctx, o, metav1.CreateOptions{})
	return err
}

func (s roleBindings) update(ctx context.Context, o *rbacv1.RoleBinding) error {
	_, err := s.c.Update(ctx, o, metav1.UpdateOptions{})
	return err
}

func (s roleBindings) delete(ctx context.Context, _, name string, uid types.UID) error {
	return s.c.Delete(ctx, name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
}
