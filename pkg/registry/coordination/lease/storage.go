// Package lease is the REST storage of coordination.k8s.io/v1 leases.
package lease

import (
	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/pkg/apis/coordination"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
)

// Strategy is the behaviour of leases.
var Strategy = generic.ValidatingStrategy[*coordinationv1.Lease]{
	DefaultStrategy:    generic.DefaultStrategy{Namespaced: true},
	ValidateFunc:       coordination.ValidateLease,
	ValidateUpdateFunc: coordination.ValidateLeaseUpdate,
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
