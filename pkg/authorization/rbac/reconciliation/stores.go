package reconciliation

import (
	"context"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	rbacv1client "k8s.io/client-go/kubernetes/typed/rbac/v1"
)

// The stores adapt client-go's typed clients to what the reconciler
// needs.

type clusterRoles struct {
	c rbacv1client.ClusterRoleInterface
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
	c          rbacv1client.RoleInterface
	namespaces corev1client.NamespacesGetter
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
	c rbacv1client.ClusterRoleBindingInterface
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
	c          rbacv1client.RoleBindingInterface
	namespaces corev1client.NamespacesGetter
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
