// Package rolebinding is the REST storage of rbac.authorization.k8s.io/v1
// rolebindings.
package rolebinding

import (
	"context"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/pkg/apis/rbac"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rbac/escalation"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

// Strategy is the behaviour of rolebindings: plain data, which a PUT may
// create; the roleRef is immutable (see rbac.ValidateRoleBindingUpdate).
var Strategy = generic.ValidatingStrategy[*rbacv1.RoleBinding]{
	DefaultStrategy:    generic.DefaultStrategy{Namespaced: true, CreateOnUpdate: true},
	ValidateFunc:       rbac.ValidateRoleBinding,
	ValidateUpdateFunc: rbac.ValidateRoleBindingUpdate,
}

// Storage is the REST storage of rolebindings.
type Storage struct {
	RoleBinding *escalation.Store
}

// NewStorage returns the storage of rolebindings; guard refuses bindings
// to roles their writer may neither bind nor fully holds.
func NewStorage(opts generic.RESTOptions, guard *escalation.Guard) (*Storage, error) {
	s := &generic.Store{
		NewFunc:                   func() runtime.Object { return &rbacv1.RoleBinding{} },
		NewListFunc:               func() runtime.Object { return &rbacv1.RoleBindingList{} },
		DefaultQualifiedResource:  rbacv1.Resource("rolebindings"),
		SingularQualifiedResource: rbacv1.Resource("rolebinding"),
		KeyPrefix:                 "/rolebindings",
		CreateStrategy:            Strategy,
		UpdateStrategy:            Strategy,
		DeleteStrategy:            Strategy,
	}
	if err := opts.Complete(s, rbacv1.SchemeGroupVersion); err != nil {
		return nil, err
	}
	check := func(ctx context.Context, obj, _ runtime.Object) error {
		b := obj.(*rbacv1.RoleBinding)
		return guard.CheckBinding(ctx, s.DefaultQualifiedResource, b.Name, b.RoleRef)
	}
	return &Storage{RoleBinding: &escalation.Store{Store: s, Check: check}}, nil
}

// Map returns the storage by path: "rolebindings".
func (s *Storage) Map() map[string]rest.Storage {
	return map[string]rest.Storage{s.RoleBinding.DefaultQualifiedResource.Resource: s.RoleBinding}
}
