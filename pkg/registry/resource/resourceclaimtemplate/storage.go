// Package resourceclaimtemplate is the REST storage of resource.k8s.io/v1
// resourceclaimtemplates.
package resourceclaimtemplate

import (
	"context"

	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/apis/resource"
	"github.com/kapi-dev/kapi/pkg/features"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/resource/adminaccess"
	"github.com/kapi-dev/kapi/pkg/registry/resource/gatedfields"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

// Strategy is the behaviour of claim templates: plain data whose spec
// never changes. Nothing counts generations.
var Strategy = generic.ValidatingStrategy[*resourcev1.ResourceClaimTemplate]{
	DefaultStrategy:    generic.DefaultStrategy{Namespaced: true},
	ValidateFunc:       resource.ValidateResourceClaimTemplate,
	ValidateUpdateFunc: resource.ValidateResourceClaimTemplateUpdate,
}

// strategy also refuses a template whose claims would ask for admin
// access outside a namespace that allows it (an update needs no such
// check: the spec is immutable), and drops the fields of disabled
// feature gates.
type strategy struct {
	generic.ValidatingStrategy[*resourcev1.ResourceClaimTemplate]
	namespaces adminaccess.Namespaces
	gates      features.Gates
}

func (s strategy) PrepareForCreate(ctx context.Context, obj runtime.Object) {
	s.ValidatingStrategy.PrepareForCreate(ctx, obj)
	gatedfields.ClaimSpec(s.gates, &obj.(*resourcev1.ResourceClaimTemplate).Spec.Spec, nil)
}

// PrepareForUpdate drops the gated fields an update adds, so that they
// do not count as a change of the immutable spec.
func (s strategy) PrepareForUpdate(ctx context.Context, obj, old runtime.Object) {
	s.ValidatingStrategy.PrepareForUpdate(ctx, obj, old)
	gatedfields.ClaimSpec(s.gates, &obj.(*resourcev1.ResourceClaimTemplate).Spec.Spec, &old.(*resourcev1.ResourceClaimTemplate).Spec.Spec)
}

func (s strategy) Validate(ctx context.Context, obj runtime.Object) field.ErrorList {
	t := obj.(*resourcev1.ResourceClaimTemplate)
	errs := adminaccess.Requests(ctx, s.namespaces, t.Namespace, t.Spec.Spec.Devices.Requests)
	return append(errs, s.ValidatingStrategy.Validate(ctx, obj)...)
}

// Storage is the REST storage of resourceclaimtemplates.
type Storage struct {
	ResourceClaimTemplate *generic.Store
}

// NewStorage returns the storage of resourceclaimtemplates; gates decide
// which gated fields are kept.
func NewStorage(opts generic.RESTOptions, namespaces adminaccess.Namespaces, gates features.Gates) (*Storage, error) {
	strategy := strategy{Strategy, namespaces, gates}
	s := &generic.Store{
		NewFunc:                   func() runtime.Object { return &resourcev1.ResourceClaimTemplate{} },
		NewListFunc:               func() runtime.Object { return &resourcev1.ResourceClaimTemplateList{} },
		DefaultQualifiedResource:  resourcev1.Resource("resourceclaimtemplates"),
		SingularQualifiedResource: resourcev1.Resource("resourceclaimtemplate"),
		KeyPrefix:                 "/resourceclaimtemplates",
		CreateStrategy:            strategy,
		UpdateStrategy:            strategy,
		DeleteStrategy:            strategy,
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
