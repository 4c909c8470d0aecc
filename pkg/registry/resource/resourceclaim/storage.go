// Package resourceclaim is the REST storage of resource.k8s.io/v1
// resourceclaims and their /status.
package resourceclaim

import (
	"context"

	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/apis/resource"
	"github.com/kapi-dev/kapi/pkg/features"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/resource/adminaccess"
	"github.com/kapi-dev/kapi/pkg/registry/resource/gatedfields"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

// Strategy is the behaviour of claims: the spec never changes, the status
// (the allocation and who uses it) is written only through /status.
// Nothing counts generations. Admin access, which depends on the claim's
// namespace, is checked by the storage's strategies (strategy,
// statusStrategy) on top of it.
var Strategy = generic.SpecStrategy[*resourcev1.ResourceClaim]{
	DefaultStrategy:    generic.DefaultStrategy{Namespaced: true},
	APIVersions:        []string{"resource.k8s.io/v1"},
	Spec:               generic.FieldPart(func(c *resourcev1.ResourceClaim) *resourcev1.ResourceClaimSpec { return &c.Spec }),
	Status:             generic.FieldPart(func(c *resourcev1.ResourceClaim) *resourcev1.ResourceClaimStatus { return &c.Status }),
	ValidateFunc:       resource.ValidateResourceClaim,
	ValidateUpdateFunc: resource.ValidateResourceClaimUpdate,
}

var baseStatusStrategy = generic.StatusStrategy[*resourcev1.ResourceClaim]{
	SpecStrategy:             Strategy,
	KeepMetadata:             metav1.ResetObjectMetaForStatus,
	ResetPaths:               [][]string{{"metadata"}},
	ValidateStatusUpdateFunc: resource.ValidateResourceClaimStatusUpdate,
}

// strategy also refuses a claim asking for admin access outside a
// namespace that allows it (an update needs no such check: the spec is
// immutable), and drops the fields of disabled feature gates.
type strategy struct {
	generic.SpecStrategy[*resourcev1.ResourceClaim]
	namespaces adminaccess.Namespaces
	gates      features.Gates
}

func (s strategy) PrepareForCreate(ctx context.Context, obj runtime.Object) {
	s.SpecStrategy.PrepareForCreate(ctx, obj)
	gatedfields.ClaimSpec(s.gates, &obj.(*resourcev1.ResourceClaim).Spec, nil)
}

// PrepareForUpdate drops the gated fields an update adds, so that they
// do not count as a change of the immutable spec.
func (s strategy) PrepareForUpdate(ctx context.Context, obj, old runtime.Object) {
	s.SpecStrategy.PrepareForUpdate(ctx, obj, old)
	gatedfields.ClaimSpec(s.gates, &obj.(*resourcev1.ResourceClaim).Spec, &old.(*resourcev1.ResourceClaim).Spec)
}

func (s strategy) Validate(ctx context.Context, obj runtime.Object) field.ErrorList {
	c := obj.(*resourcev1.ResourceClaim)
	errs := adminaccess.Requests(ctx, s.namespaces, c.Namespace, c.Spec.Devices.Requests)
	return append(errs, s.SpecStrategy.Validate(ctx, obj)...)
}

// statusStrategy also refuses an allocation granting admin access outside
// a namespace that allows it, and drops the status fields of disabled
// feature gates.
type statusStrategy struct {
	generic.StatusStrategy[*resourcev1.ResourceClaim]
	namespaces adminaccess.Namespaces
	gates      features.Gates
}

func (s statusStrategy) PrepareForUpdate(ctx context.Context, obj, old runtime.Object) {
	s.StatusStrategy.PrepareForUpdate(ctx, obj, old)
	gatedfields.ClaimStatus(s.gates, &obj.(*resourcev1.ResourceClaim).Status, &old.(*resourcev1.ResourceClaim).Status)
}

func (s statusStrategy) ValidateUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList {
	c, oldC := obj.(*resourcev1.ResourceClaim), old.(*resourcev1.ResourceClaim)
	errs := adminaccess.Results(ctx, s.namespaces, c.Namespace, adminaccess.AllocationResults(c), adminaccess.AllocationResults(oldC))
	return append(errs, s.StatusStrategy.ValidateUpdate(ctx, obj, old)...)
}

// Storage is the REST storage of resourceclaims and their /status.
type Storage struct {
	ResourceClaim *generic.Store
	Status        *generic.SubresourceREST
}

// NewStorage returns the storage of resourceclaims; gates decide which
// gated fields are kept.
func NewStorage(opts generic.RESTOptions, namespaces adminaccess.Namespaces, gates features.Gates) (*Storage, error) {
	strategy := strategy{Strategy, namespaces, gates}
	s := &generic.Store{
		NewFunc:                   func() runtime.Object { return &resourcev1.ResourceClaim{} },
		NewListFunc:               func() runtime.Object { return &resourcev1.ResourceClaimList{} },
		DefaultQualifiedResource:  resourcev1.Resource("resourceclaims"),
		SingularQualifiedResource: resourcev1.Resource("resourceclaim"),
		KeyPrefix:                 "/resourceclaims",
		CreateStrategy:            strategy,
		UpdateStrategy:            strategy,
		DeleteStrategy:            strategy,
		ReturnDeletedObject:       true,
	}
	if err := opts.Complete(s, resourcev1.SchemeGroupVersion); err != nil {
		return nil, err
	}
	return &Storage{ResourceClaim: s, Status: generic.NewSubresourceREST(s, statusStrategy{baseStatusStrategy, namespaces, gates})}, nil
}

// Map returns the storage by path: "resourceclaims" and
// "resourceclaims/status".
func (s *Storage) Map() map[string]rest.Storage {
	plural := s.ResourceClaim.DefaultQualifiedResource.Resource
	return map[string]rest.Storage{plural: s.ResourceClaim, plural + "/status": s.Status}
}
