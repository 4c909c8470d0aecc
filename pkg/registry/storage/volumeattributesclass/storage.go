// Package volumeattributesclass is the REST storage of storage.k8s.io/v1
// volumeattributesclasses.
package volumeattributesclass

import (
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/pkg/apis/storage"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

// Strategy is the behaviour of volume attributes classes: plain data
// whose driver and parameters are fixed once created.
var Strategy = generic.ValidatingStrategy[*storagev1.VolumeAttributesClass]{
	ValidateFunc:       storage.ValidateVolumeAttributesClass,
	ValidateUpdateFunc: storage.ValidateVolumeAttributesClassUpdate,
}

// Storage is the REST storage of volume attributes classes.
type Storage struct {
	VolumeAttributesClass *generic.Store
}

// NewStorage returns the storage of volume attributes classes.
func NewStorage(opts generic.RESTOptions) (*Storage, error) {
	s := &generic.Store{
		NewFunc:                   func() runtime.Object { return &storagev1.VolumeAttributesClass{} },
		NewListFunc:               func() runtime.Object { return &storagev1.VolumeAttributesClassList{} },
		DefaultQualifiedResource:  storagev1.Resource("volumeattributesclasses"),
		SingularQualifiedResource: storagev1.Resource("volumeattributesclass"),
		KeyPrefix:                 "/volumeattributesclasses",
		CreateStrategy:            Strategy,
		UpdateStrategy:            Strategy,
		DeleteStrategy:            Strategy,
		ReturnDeletedObject:       true,
		ShortNamesList:            []string{"vac"},
	}
	if err := opts.Complete(s, storagev1.SchemeGroupVersion); err != nil {
		return nil, err
	}
	return &Storage{VolumeAttributesClass: s}, nil
}

// Map returns the storage by path: "volumeattributesclasses".
func (s *Storage) Map() map[string]rest.Storage {
	return map[string]rest.Storage{s.VolumeAttributesClass.DefaultQualifiedResource.Resource: s.VolumeAttributesClass}
}
