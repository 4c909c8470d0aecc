// Package deviceclass is the REST storage of resource.k8s.io/v1
// deviceclasses.
package deviceclass

import (
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/pkg/apis/resource"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

// Strategy is the behaviour of device classes: metadata.generation counts
// changes of the spec.
var Strategy = generic.SpecStrategy[*resourcev1.DeviceClass]{
	Spec:               generic.FieldPart(func(c *resourcev1.DeviceClass) *resourcev1.DeviceClassSpec { return &c.Spec }),
	CountGenerations:   true,
	ValidateFunc:       resource.ValidateDeviceClass,
	ValidateUpdateFunc: resource.ValidateDeviceClassUpdate,
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
