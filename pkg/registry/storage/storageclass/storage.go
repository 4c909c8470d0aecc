// Package storageclass is the REST storage of storage.k8s.io/v1
// storageclasses.
package storageclass

import (
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/pkg/apis/storage"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

// Strategy is the behaviour of storage classes: plain data, whose
// provisioner, parameters, reclaim policy and binding mode are fixed
// once created (volumes were provisioned with them).
var Strategy = generic.ValidatingStrategy[*storagev1.StorageClass]{
	ValidateFunc:       storage.ValidateStorageClass,
	ValidateUpdateFunc: storage.ValidateStorageClassUpdate,
}

// Storage is the REST storage of storage classes.
type Storage struct {
	StorageClass *generic.Store
}

// NewStorage returns the storage of storage classes.
func NewStorage(opts generic.RESTOptions) (*Storage, error) {
	s := &generic.Store{
		NewFunc:                   func() runtime.Object { return &storagev1.StorageClass{} },
		NewListFunc:               func() runtime.Object { return &storagev1.StorageClassList{} },
		DefaultQualifiedResource:  storagev1.Resource("storageclasses"),
		SingularQualifiedResource: storagev1.Resource("storageclass"),
		KeyPrefix:                 "/storageclasses",
		CreateStrategy:            Strategy,
		UpdateStrategy:            Strategy,
		DeleteStrategy:            Strategy,
		ReturnDeletedObject:       true,
		ShortNamesList:            []string{"sc"},
	}
	if err := opts.Complete(s, storagev1.SchemeGroupVersion); err != nil {
		return nil, err
	}
	return &Storage{StorageClass: s}, nil
}

// Map returns the storage by path: "storageclasses".
func (s *Storage) Map() map[string]rest.Storage {
	return map[string]rest.Storage{s.StorageClass.DefaultQualifiedResource.Resource: s.StorageClass}
}
