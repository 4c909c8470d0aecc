// Package csistoragecapacity is the REST storage of storage.k8s.io/v1
// csistoragecapacities.
package csistoragecapacity

import (
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/pkg/apis/storage"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

// Strategy is the behaviour of storage capacities: data published by a
// CSI driver's external provisioner, which updates them only with the
// resourceVersion it read; the topology and class are fixed.
var Strategy = generic.ValidatingStrategy[*storagev1.CSIStorageCapacity]{
	DefaultStrategy:    generic.DefaultStrategy{Namespaced: true, RequireResourceVersionOnUpdate: true},
	ValidateFunc:       storage.ValidateCSIStorageCapacity,
	ValidateUpdateFunc: storage.ValidateCSIStorageCapacityUpdate,
}

// Storage is the REST storage of storage capacities.
type Storage struct {
	CSIStorageCapacity *generic.Store
}

// NewStorage returns the storage of storage capacities.
func NewStorage(opts generic.RESTOptions) (*Storage, error) {
	s := &generic.Store{
		NewFunc:                   func() runtime.Object { return &storagev1.CSIStorageCapacity{} },
		NewListFunc:               func() runtime.Object { return &storagev1.CSIStorageCapacityList{} },
		DefaultQualifiedResource:  storagev1.Resource("csistoragecapacities"),
		SingularQualifiedResource: storagev1.Resource("csistoragecapacity"),
		KeyPrefix:                 "/csistoragecapacities",
		CreateStrategy:            Strategy,
		UpdateStrategy:            Strategy,
		DeleteStrategy:            Strategy,
	}
	if err := opts.Complete(s, storagev1.SchemeGroupVersion); err != nil {
		return nil, err
	}
	return &Storage{CSIStorageCapacity: s}, nil
}

// Map returns the storage by path: "csistoragecapacities".
func (s *Storage) Map() map[string]rest.Storage {
	return map[string]rest.Storage{s.CSIStorageCapacity.DefaultQualifiedResource.Resource: s.CSIStorageCapacity}
}
