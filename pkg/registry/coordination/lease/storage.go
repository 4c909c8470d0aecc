// Package lease is the REST storage of coordination.k8s.io/v1 leases.
package lease

import (
	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/pkg/apis/coordination"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

// Strategy is the behaviour of leases. As in kube-apiserver, a PUT may
// create a missing lease, and an update must name the resourceVersion it
// was computed from: leases are how leaders are elected, and a blind
// overwrite would let two holders both think they won.
var Strategy = generic.ValidatingStrategy[*coordinationv1.Lease]{
	DefaultStrategy:    generic.DefaultStrategy{Namespaced: true, CreateOnUpdate: true, RequireResourceVersionOnUpdate: true},
	ValidateFunc:       coordination.ValidateLease,
	ValidateUpdateFunc: coordination.ValidateLeaseUpdate,
}

// Storage is the REST storage of leases.
type Storage struct {
	Lease *generic.Store
}

// NewStorage returns the storage of leases.
func NewStorage(opts generic.RESTOptions) (*Storage, error) {
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
	if err := opts.Complete(s, coordinationv1.SchemeGroupVersion); err != nil {
		return nil, err
	}
	return &Storage{Lease: s}, nil
}

// Map returns the storage by path: "leases".
func (s *Storage) Map() map[string]rest.Storage {
	return map[string]rest.Storage{s.Lease.DefaultQualifiedResource.Resource: s.Lease}
}
