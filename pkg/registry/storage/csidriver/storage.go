// Package csidriver is the REST storage of storage.k8s.io/v1 csidrivers.
package csidriver

import (
	"context"

	storagev1 "k8s.io/api/storage/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/apis/storage"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

type strategy struct{ generic.DefaultStrategy }

// Strategy is the behaviour of CSI drivers: an update names the
// resourceVersion it was computed from, and a change of the spec counts
// in metadata.generation (which starts unset, as kube-apiserver's).
var Strategy = strategy{generic.DefaultStrategy{RequireResourceVersionOnUpdate: true}}

func (strategy) PrepareForCreate(context.Context, runtime.Object) {}

func (strategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	d, oldD := obj.(*storagev1.CSIDriver), old.(*storagev1.CSIDriver)
	d.Generation = oldD.Generation
	if !apiequality.Semantic.DeepEqual(d.Spec, oldD.Spec) {
		d.Generation++
	}
}

func (strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return storage.ValidateCSIDriver(obj.(*storagev1.CSIDriver))
}

func (strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return storage.ValidateCSIDriverUpdate(obj.(*storagev1.CSIDriver), old.(*storagev1.CSIDriver))
}

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
