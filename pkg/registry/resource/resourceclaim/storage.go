// Package resourceclaim is the REST storage of resource.k8s.io/v1
// resourceclaims and their /status.
package resourceclaim

import (
	"context"

	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/kapi-dev/kapi/pkg/apis/resource"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

type strategy struct{ generic.DefaultStrategy }

// Strategy is the behaviour of claims: the spec never changes, the status
// (the allocation and who uses it) is written only through /status.
// Nothing counts generations.
var Strategy = strategy{generic.DefaultStrategy{Namespaced: true}}

func (strategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	obj.(*resourcev1.ResourceClaim).Status = resourcev1.ResourceClaimStatus{}
}

// GetResetFields is the status, written through /status only.
func (strategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return generic.ResetFields("resource.k8s.io/v1", []string{"status"})
}

func (strategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	c, oldC := obj.(*resourcev1.ResourceClaim), old.(*resourcev1.ResourceClaim)
	c.Status = oldC.Status
	c.Generation = oldC.Generation
}

func (strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return resource.ValidateResourceClaim(obj.(*resourcev1.ResourceClaim))
}

func (strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return resource.ValidateResourceClaimUpdate(obj.(*resourcev1.ResourceClaim), old.(*resourcev1.ResourceClaim))
}

type statusStrategy struct{ strategy }

// GetResetFields is what /status keeps: the metadata and the spec.
func (statusStrategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return generic.ResetFields("resource.k8s.io/v1", []string{"metadata"}, []string{"spec"})
}

// PrepareForUpdate keeps the spec and what a status write may not change
// of the metadata.
func (statusStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	c, oldC := obj.(*resourcev1.ResourceClaim), old.(*resourcev1.ResourceClaim)
	c.Spec = oldC.Spec
	metav1.ResetObjectMetaForStatus(&c.ObjectMeta, &oldC.ObjectMeta)
}

func (statusStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return resource.ValidateResourceClaimStatusUpdate(obj.(*resourcev1.ResourceClaim), old.(*resourcev1.ResourceClaim))
}

// Storage is the REST storage of resourceclaims and their /status.
type Storage struct {
	ResourceClaim *generic.Store
	Status        *generic.SubresourceREST
}

// NewStorage returns the storage of resourceclaims.
func NewStorage(opts generic.RESTOptions) (*Storage, error) {
	s := &generic.Store{
		NewFunc:                   func() runtime.Object { return &resourcev1.ResourceClaim{} },
		NewListFunc:               func() runtime.Object { return &resourcev1.ResourceClaimList{} },
		DefaultQualifiedResource:  resourcev1.Resource("resourceclaims"),
		SingularQualifiedResource: resourcev1.Resource("resourceclaim"),
		KeyPrefix:                 "/resourceclaims",
		CreateStrategy:            Strategy,
		UpdateStrategy:            Strategy,
		DeleteStrategy:            Strategy,
		ReturnDeletedObject:       true,
	}
	if err := opts.Complete(s, resourcev1.SchemeGroupVersion); err != nil {
		return nil, err
	}
	return &Storage{ResourceClaim: s, Status: generic.NewSubresourceREST(s, statusStrategy{Strategy})}, nil
}

// Map returns the storage by path: "resourceclaims" and
// "resourceclaims/status".
func (s *Storage) Map() map[string]rest.Storage {
	plural := s.ResourceClaim.DefaultQualifiedResource.Resource
	return map[string]rest.Storage{plural: s.ResourceClaim, plural + "/status": s.Status}
}
