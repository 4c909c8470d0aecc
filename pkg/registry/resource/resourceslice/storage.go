// Package resourceslice is the REST storage of resource.k8s.io/v1
// resourceslices.
package resourceslice

import (
	"context"
	"fmt"
	"strings"

	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/pkg/apis/resource"
	"github.com/kapi-dev/kapi/pkg/features"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/resource/gatedfields"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

type strategy struct {
	generic.SpecStrategy[*resourcev1.ResourceSlice]
	// gates decide which gated fields are kept.
	gates features.Gates
}

// Strategy is the behaviour of resource slices with kube-apiserver's
// default feature gates: metadata.generation counts changes of the spec,
// a driver name with capitals gets a warning, and the fields of disabled
// gates are dropped.
var Strategy = newStrategy(features.Gates{})

func newStrategy(gates features.Gates) strategy {
	return strategy{generic.SpecStrategy[*resourcev1.ResourceSlice]{
		Spec:               generic.FieldPart(func(s *resourcev1.ResourceSlice) *resourcev1.ResourceSliceSpec { return &s.Spec }),
		CountGenerations:   true,
		ValidateFunc:       resource.ValidateResourceSlice,
		ValidateUpdateFunc: resource.ValidateResourceSliceUpdate,
	}, gates}
}

func (s strategy) PrepareForCreate(ctx context.Context, obj runtime.Object) {
	s.SpecStrategy.PrepareForCreate(ctx, obj)
	gatedfields.Slice(s.gates, obj.(*resourcev1.ResourceSlice), nil)
}

// PrepareForUpdate drops gated fields after the generation is counted:
// as in kube-apiserver, a change of only dropped fields still counts.
func (s strategy) PrepareForUpdate(ctx context.Context, obj, old runtime.Object) {
	s.SpecStrategy.PrepareForUpdate(ctx, obj, old)
	gatedfields.Slice(s.gates, obj.(*resourcev1.ResourceSlice), old.(*resourcev1.ResourceSlice))
}

func (strategy) WarningsOnCreate(_ context.Context, obj runtime.Object) []string {
	return driverWarnings(obj.(*resourcev1.ResourceSlice))
}

func (strategy) WarningsOnUpdate(_ context.Context, obj, _ runtime.Object) []string {
	return driverWarnings(obj.(*resourcev1.ResourceSlice))
}

func driverWarnings(s *resourcev1.ResourceSlice) []string {
	if s.Spec.Driver != strings.ToLower(s.Spec.Driver) {
		return []string{fmt.Sprintf("spec.driver: driver names should be lowercase; %q contains uppercase characters", s.Spec.Driver)}
	}
	return nil
}

// selectableFields are the fields a list of slices may select on besides
// the name: the node, the driver and the pool.
func selectableFields(obj runtime.Object) fields.Set {
	s := obj.(*resourcev1.ResourceSlice)
	var node string
	if s.Spec.NodeName != nil {
		node = *s.Spec.NodeName
	}
	return fields.Set{
		"spec.nodeName":  node,
		"spec.driver":    s.Spec.Driver,
		"spec.pool.name": s.Spec.Pool.Name,
	}
}

// Storage is the REST storage of resourceslices.
type Storage struct {
	ResourceSlice *generic.Store
}

// NewStorage returns the storage of resourceslices; gates decide which
// gated fields are kept.
func NewStorage(opts generic.RESTOptions, gates features.Gates) (*Storage, error) {
	strategy := newStrategy(gates)
	s := &generic.Store{
		NewFunc:                   func() runtime.Object { return &resourcev1.ResourceSlice{} },
		NewListFunc:               func() runtime.Object { return &resourcev1.ResourceSliceList{} },
		DefaultQualifiedResource:  resourcev1.Resource("resourceslices"),
		SingularQualifiedResource: resourcev1.Resource("resourceslice"),
		KeyPrefix:                 "/resourceslices",
		CreateStrategy:            strategy,
		UpdateStrategy:            strategy,
		DeleteStrategy:            strategy,
		ReturnDeletedObject:       true,
		FieldsFunc:                selectableFields,
		UnknownFieldSelector: func(field string) error {
			return fmt.Errorf("field label not supported for %s: %s", resourcev1.SchemeGroupVersion.WithKind("ResourceSlice"), field)
		},
	}
	if err := opts.Complete(s, resourcev1.SchemeGroupVersion); err != nil {
		return nil, err
	}
	return &Storage{ResourceSlice: s}, nil
}

// Map returns the storage by path: "resourceslices".
func (s *Storage) Map() map[string]rest.Storage {
	return map[string]rest.Storage{s.ResourceSlice.DefaultQualifiedResource.Resource: s.ResourceSlice}
}
