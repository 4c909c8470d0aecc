// Package csidriver is the REST storage of storage.k8s.io/v1 csidrivers.
package csidriver

import (
	"context"

	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/pkg/apis/storage"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

type strategy struct {
	generic.SpecStrategy[*storagev1.CSIDriver]
}

// Strategy is the behaviour of CSI drivers: an update names the
// resourceVersion it was computed from, and a change of the spec counts
// in metadata.generation (which starts unset, as kube-apiserver's).
var Strategy = strategy{generic.SpecStrategy[*storagev1.CSIDriver]{
	DefaultStrategy:    generic.DefaultStrategy{RequireResourceVersionOnUpdate: true},
	Spec:               generic.FieldPart(func(d *storagev1.CSIDriver) *storagev1.CSIDriverSpec { return &d.Spec }),
	CountGenerations:   true,
	ValidateFunc:       storage.ValidateCSIDriver,
	ValidateUpdateFunc: storage.ValidateCSIDriverUpdate,
}}

// PrepareForCreate leaves metadata.generation unset.
func (strategy) PrepareForCreate(context.Context, runtime.Object) {}

// Storage is the REST storage of CSI drivers.
type Storage struct {
	CSIDriver *generic.Store
}

// NewStorage returns the storage of CSI drivers.
func NewStorage(opts generic.RESTOptions) (*Storage, error) {
	s := &generic.Store{
		NewFunc:                   func() runtime.Object { return &storagev1.CSIDriver{} },
		NewListFunc:               func() runtime.Object { return &storagev1.CSIDriverList{} },
		DefaultQualifiedResource:  storagev1.Resource("csidrivers"),
		SingularQualifiedResource: storagev1.Resource("csidriver"),
		KeyPrefix:                 "/csidrivers",
		CreateStrategy:            Strategy,
		UpdateStrategy:            Strategy,
		DeleteStrategy:            Strategy,
		ReturnDeletedObject:       true,
	}
	if err := opts.Complete(s, storagev1.SchemeGroupVersion); err != nil {
		return nil, err
	}
	return &Storage{CSIDriver: s}, nil
}

// Map returns the storage by path: "csidrivers".
func (s *Storage) Map() map[string]rest.Storage {
	return map[string]rest.Storage{s.CSIDriver.DefaultQualifiedResource.Resource: s.CSIDriver}
}
