// Package clusterrole is the REST storage of rbac.authorization.k8s.io/v1
// clusterroles.
package clusterrole

import (
	"context"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/pkg/apis/rbac"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rbac/escalation"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

// Strategy is the behaviour of clusterroles: plain data, which a PUT may
// create.
var Strategy = generic.ValidatingStrategy[*rbacv1.ClusterRole]{
	DefaultStrategy:    generic.DefaultStrategy{CreateOnUpdate: true},
	ValidateFunc:       rbac.ValidateClusterRole,
	ValidateUpdateFunc: rbac.ValidateClusterRoleUpdate,
}

// Storage is the REST storage of clusterroles.
type Storage struct {
	ClusterRole *escalation.Store
}

// NewStorage returns the storage of clusterroles; guard refuses roles
// that would grant what their writer does not hold.
func NewStorage(opts generic.RESTOptions, guard *escalation.Guard) (*Storage, error) {
	s := &generic.Store{
		NewFunc:                   func() runtime.Object { return &rbacv1.ClusterRole{} },
		NewListFunc:               func() runtime.Object { return &rbacv1.ClusterRoleList{} },
		DefaultQualifiedResource:  rbacv1.Resource("clusterroles"),
		SingularQualifiedResource: rbacv1.Resource("clusterrole"),
		KeyPrefix:                 "/clusterroles",
		CreateStrategy:            Strategy,
		UpdateStrategy:            Strategy,
		DeleteStrategy:            Strategy,
	}
	if err := opts.Complete(s, rbacv1.SchemeGroupVersion); err != nil {
		return nil, err
	}
	check := func(ctx context.Context, obj, old runtime.Object) error {
		r := obj.(*rbacv1.ClusterRole)
		// Setting or changing an aggregationRule needs full authority: the
		// role will gather whatever the selected roles hold, now and later.
		aggregation := r.AggregationRule != nil
		if o, ok := old.(*rbacv1.ClusterRole); ok && aggregation {
			aggregation = !equality.Semantic.DeepEqual(o.AggregationRule, r.AggregationRule)
		}
		return guard.CheckRole(ctx, s.DefaultQualifiedResource, r.Name, r.Rules, aggregation)
	}
	return &Storage{ClusterRole: &escalation.Store{Store: s, Check: check}}, nil
}

// Map returns the storage by path: "clusterroles".
func (s *Storage) Map() map[string]rest.Storage {
	return map[string]rest.Storage{s.ClusterRole.DefaultQualifiedResource.Resource: s.ClusterRole}
}
