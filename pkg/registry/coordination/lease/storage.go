// Package lease is the REST storage of coordination.k8s.io/v1 leases.
package lease

import (
	"context"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/apis/coordination"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
)

type strategy struct{ generic.DefaultStrategy }

// Strategy is the behaviour of leases.
var Strategy = strategy{generic.DefaultStrategy{Namespaced: true}}

func (strategy) PrepareForCreate(context.Context, runtime.Object) {}

func (strategy) PrepareForUpdate(context.Context, runtime.Object, runtime.Object) {}

func (strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return coordination.ValidateLease(obj.(*coordinationv1.Lease))
}

func (strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return coordination.ValidateLeaseUpdate(obj.(*coordinationv1.Lease), old.(*coordinationv1.Lease))
}

// NewREST returns the storage of leases.
func NewREST(opts generic.RESTOptions) (*generic.Store, error) {
	s := &generic.Store{
		NewFunc:                   func() runtime.Object { return &coordinationv1.Lease{} },
		NewListFunc:               func() runtime.Object { return &coordinationv1.LeaseList{} },
		DefaultQualifiedResource:  coordinationv1.Resource("leases"),
		SingularQualifiedResource: coordinationv1.Resource("lease"),
		KeyPrefix:                 "/leases",
		CreateStrategy:            Strategy,
		UpdateStrategy:            Strategy,
		DeleteStrategy:            Strategy,
	}
	return s, opts.Complete(s, coordinationv1.SchemeGroupVersion)
}
