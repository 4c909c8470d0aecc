// Package clusterrolebinding is the REST storage of rbac.authorization.k8s.io/v1
// clusterrolebindings.
package clusterrolebinding

import (
	"context"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/pkg/apis/rbac"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rbac/escalation"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

// Strategy is the behaviour of clusterrolebindings: plain data, which a PUT may
// create; the roleRef is immutable (see rbac.ValidateClusterRoleBindingUpdate).
var Strategy = generic.ValidatingStrategy[*rbacv1.ClusterRoleBinding]{
	DefaultStrategy:    generic.DefaultStrategy{CreateOnUpdate: true},
	ValidateFunc:       rbac.ValidateClusterRoleBinding,
	ValidateUpdateFunc: rbac.ValidateClusterRoleBindingUpdate,
}

// Storage is the REST storage of clusterrolebindings.
type Storage struct {
	ClusterRoleBinding *escalation.Store
}

// NewStorage returns the storage of clusterrolebindings; guard refuses bindings
// to roles their writer may neither bind cluster-wide nor fully holds.
func NewStorage(opts generic.RESTOptions, guard *escalation.Guard) (*Storage, error) {
	s := &generic.Store{
		NewFunc:                   func() runtime.Object { return &rbacv1.ClusterRoleBinding{} },
		NewListFunc:               func() runtime.Object { return &rbacv1.ClusterRoleBindingList{} },
		DefaultQualifiedResource:  rbacv1.Resource("clusterrolebindings"),
		SingularQualifiedResource: rbacv1.Resource("clusterrolebinding"),
		KeyPrefix:                 "/clusterrolebindings",
		CreateStrategy:            Strategy,
		UpdateStrategy:            Strategy,
		DeleteStrategy:            Strategy,
	}
	if err := opts.Complete(s, rbacv1.SchemeGroupVersion); err != nil {
		return nil, err
	}
	check := func(ctx context.Context, obj, _ runtime.Object) error {
		b := obj.(*rbacv1.ClusterRoleBinding)
		return guard.CheckBinding(ctx, s.DefaultQualifiedResource, b.Name, b.RoleRef)
	}
	return &Storage{ClusterRoleBinding: &escalation.Store{Store: s, Check: check}}, nil
}

// Map returns the storage by path: "clusterrolebindings".
func (s *Storage) Map() map[string]rest.Storage {
	return map[string]rest.Storage{s.ClusterRoleBinding.DefaultQualifiedResource.Resource: s.ClusterRoleBinding}
}
