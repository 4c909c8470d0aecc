// Package role is the REST storage of rbac.authorization.k8s.io/v1 roles.
package role

import (
	"context"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/pkg/apis/rbac"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rbac/escalation"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

// Strategy is the behaviour of roles: plain data, which a PUT may create
// (as kube-apiserver allows, so `kubectl apply` and reconcilers can write
// policy by name).
var Strategy = generic.ValidatingStrategy[*rbacv1.Role]{
	DefaultStrategy:    generic.DefaultStrategy{Namespaced: true, CreateOnUpdate: true},
	ValidateFunc:       rbac.ValidateRole,
	ValidateUpdateFunc: rbac.ValidateRoleUpdate,
}

// Storage is the REST storage of roles.
type Storage struct {
	Role *escalation.Store
}

// NewStorage returns the storage of roles; guard refuses roles that
// would grant what their writer does not hold.
func NewStorage(opts generic.RESTOptions, guard *escalation.Guard) (*Storage, error) {
	s := &generic.Store{
		NewFunc:                   func() runtime.Object { return &rbacv1.Role{} },
		NewListFunc:               func() runtime.Object { return &rbacv1.RoleList{} },
		DefaultQualifiedResource:  rbacv1.Resource("roles"),
		SingularQualifiedResource: rbacv1.Resource("role"),
		KeyPrefix:                 "/roles",
		CreateStrategy:            Strategy,
		UpdateStrategy:            Strategy,
		DeleteStrategy:            Strategy,
	}
	if err := opts.Complete(s, rbacv1.SchemeGroupVersion); err != nil {
		return nil, err
	}
	check := func(ctx context.Context, obj, _ runtime.Object) error {
		r := obj.(*rbacv1.Role)
		return guard.CheckRole(ctx, s.DefaultQualifiedResource, r.Name, r.Rules, false)
	}
	return &Storage{Role: &escalation.Store{Store: s, Check: check}}, nil
}

// Map returns the storage by path: "roles".
func (s *Storage) Map() map[string]rest.Storage {
	return map[string]rest.Storage{s.Role.DefaultQualifiedResource.Resource: s.Role}
}
