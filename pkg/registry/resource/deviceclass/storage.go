// Package deviceclass is the REST storage of resource.k8s.io/v1
// deviceclasses.
package deviceclass

import (
	"context"

	resourcev1 "k8s.io/api/resource/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/apis/resource"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

type strategy struct{ generic.DefaultStrategy }

// Strategy is the behaviour of device classes: metadata.generation counts
// changes of the spec.
var Strategy = strategy{}

func (strategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	obj.(*resourcev1.DeviceClass).Generation = 1
}

func (strategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	c, oldC := obj.(*resourcev1.DeviceClass), old.(*resourcev1.DeviceClass)
	c.Generation = oldC.Generation
	if !apiequality.Semantic.DeepEqual(c.Spec, oldC.Spec) {
		c.Generation++
	}
}

func (strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return resource.ValidateDeviceClass(obj.(*resourcev1.DeviceClass))
}

func (strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return resource.ValidateDeviceClassUpdate(obj.(*resourcev1.DeviceClass), old.(*resourcev1.DeviceClass))
}

// Storage is the REST storage of deviceclasses.
type Storage struct {
	DeviceClass *generic.Store
}

// NewStorage returns the storage of deviceclasses.
func NewStorage(opts generic.RESTOptions) (*Storage, error) {
	s := &generic.Store{
		NewFunc:                   func() runtime.Object { return &resourcev1.DeviceClass{} },
		NewListFunc:               func() runtime.Object { return &resourcev1.DeviceClassList{} },
		DefaultQualifiedResource:  resourcev1.Resource("deviceclasses"),
		SingularQualifiedResource: resourcev1.Resource("deviceclass"),
		KeyPrefix:                 "/deviceclasses",
		CreateStrategy:            Strategy,
		UpdateStrategy:            Strategy,
		DeleteStrategy:            Strategy,
		ReturnDeletedObject:       true,
	}
	if err := opts.Complete(s, resourcev1.SchemeGroupVersion); err != nil {
		return nil, err
	}
	return &Storage{DeviceClass: s}, nil
}

// Map returns the storage by path: "deviceclasses".
func (s *Storage) Map() map[string]rest.Storage {
	return map[string]rest.Storage{s.DeviceClass.DefaultQualifiedResource.Resource: s.DeviceClass}
}
