// Package lease is the REST storage of coordination.k8s.io/v1 leases.
package lease

import (
	"context"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/pkg/apis/coordination"
	"github.com/kapi-dev/kapi/pkg/features"
	"github.com/kapi-dev/kapi/pkg/registry/gated"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

// Strategy is the behaviour of leases. As in kube-apiserver, a PUT may
// create a missing lease, and an update must name the resourceVersion it
// was computed from: leases are how leaders are elected, and a blind
// overwrite would let two holders both think they won.
//
// Without the CoordinatedLeaderElection gate (off by default) a lease
// has no strategy nor preferred holder: both are dropped on create, and
// each on update unless the old lease has it.
var Strategy = newStrategy(features.Gates{})

type strategy struct {
	generic.ValidatingStrategy[*coordinationv1.Lease]
	gates features.Gates
}

func newStrategy(gates features.Gates) strategy {
	return strategy{generic.ValidatingStrategy[*coordinationv1.Lease]{
		DefaultStrategy:    generic.DefaultStrategy{Namespaced: true, CreateOnUpdate: true, RequireResourceVersionOnUpdate: true},
		ValidateFunc:       coordination.ValidateLease,
		ValidateUpdateFunc: coordination.ValidateLeaseUpdate,
	}, gates}
}

func (s strategy) PrepareForCreate(ctx context.Context, obj runtime.Object) {
	s.ValidatingStrategy.PrepareForCreate(ctx, obj)
	gated.LeaseSpec(s.gates, &obj.(*coordinationv1.Lease).Spec, nil)
}

func (s strategy) PrepareForUpdate(ctx context.Context, obj, old runtime.Object) {
	s.ValidatingStrategy.PrepareForUpdate(ctx, obj, old)
	gated.LeaseSpec(s.gates, &obj.(*coordinationv1.Lease).Spec, &old.(*coordinationv1.Lease).Spec)
}

// Storage is the REST storage of leases.
type Storage struct {
	Lease *generic.Store
}

// NewStorage returns the storage of leases.
func NewStorage(opts generic.RESTOptions, gates features.Gates) (*Storage, error) {
	st := newStrategy(gates)
	s := &generic.Store{
		NewFunc:                   func() runtime.Object { return &coordinationv1.Lease{} },
		NewListFunc:               func() runtime.Object { return &coordinationv1.LeaseList{} },
		DefaultQualifiedResource:  coordinationv1.Resource("leases"),
		SingularQualifiedResource: coordinationv1.Resource("lease"),
		KeyPrefix:                 "/leases",
		CreateStrategy:            st,
		UpdateStrategy:            st,
		DeleteStrategy:            st,
	}
	if err := opts.Complete(s, coordinationv1.SchemeGroupVersion); err != nil {
		return nil, err
	}
	return &Storage{Lease: s}, nil
}

// Map returns the storage by path: "leases".
func (s *Storage) Map() map[string]rest.Storage {
	return map[string]rest.Storage{s.Lease.DefaultQualifiedResource.Resource: s.Lease}
}
