// Package resourceclaimtemplate is the REST storage of resource.k8s.io/v1
// resourceclaimtemplates.
package resourceclaimtemplate

import (
	"context"

	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/apis/resource"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

type strategy struct{ generic.DefaultStrategy }

// Strategy is the behaviour of claim templates: plain data whose spec
// never changes. Nothing counts generations.
var Strategy = strategy{generic.DefaultStrategy{Namespaced: true}}

func (strategy) PrepareForCreate(context.Context, runtime.Object) {}

func (strategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	obj.(*resourcev1.ResourceClaimTemplate).Generation = old.(*resourcev1.ResourceClaimTemplate).Generation
}

func (strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return resource.ValidateResourceClaimTemplate(obj.(*resourcev1.ResourceClaimTemplate))
}

func (strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return resource.ValidateResourceClaimTemplateUpdate(obj.(*resourcev1.ResourceClaimTemplate), old.(*resourcev1.ResourceClaimTemplate))
}

// Storage is the REST storage of resourceclaimtemplates.
type Storage struct {
	ResourceClaimTemplate *generic.Store
}

// NewStorage returns the storage of resourceclaimtemplates.
func NewStorage(opts generic.RESTOptions) (*Storage, error) {
	s := &generic.Store{
		NewFunc:                   func() runtime.Object { return &resourcev1.ResourceClaimTemplate{} },
		NewListFunc:               func() runtime.Object { return &resourcev1.ResourceClaimTemplateList{} },
		DefaultQualifiedResource:  resourcev1.Resource("resourceclaimtemplates"),
		SingularQualifiedResource: resourcev1.Resource("resourceclaimtemplate"),
		KeyPrefix:                 "/resourceclaimtemplates",
		CreateStrategy:            Strategy,
		UpdateStrategy:            Strategy,
		DeleteStrategy:            Strategy,
		ReturnDeletedObject:       true,
	}
	if err := opts.Complete(s, resourcev1.SchemeGroupVersion); err != nil {
		return nil, err
	}
	return &Storage{ResourceClaimTemplate: s}, nil
}

// Map returns the storage by path: "resourceclaimtemplates".
func (s *Storage) Map() map[string]rest.Storage {
	return map[string]rest.Storage{s.ResourceClaimTemplate.DefaultQualifiedResource.Resource: s.ResourceClaimTemplate}
}
