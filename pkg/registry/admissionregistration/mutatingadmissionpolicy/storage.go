// Package mutatingadmissionpolicy is the REST storage of
// admissionregistration.k8s.io/v1 mutatingadmissionpolicies.
package mutatingadmissionpolicy

import (
	"context"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/apis/admissionregistration"
	"github.com/kapi-dev/kapi/pkg/registry/admissionregistration/paramauthz"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

type strategy struct {
	generic.SpecStrategy[*admissionregistrationv1.MutatingAdmissionPolicy]
	// params checks the user may read the parameters the object
	// refers to; nil checks nothing.
	params *paramauthz.Checker
}

// Strategy is the behaviour of mutating admission policies: cluster-wide,
// metadata.generation counts changes of the spec, an update names the
// resourceVersion it replaces, and names ending in .static.k8s.io are
// kept for manifest-based policies. They have no status.
var Strategy = strategy{SpecStrategy: generic.SpecStrategy[*admissionregistrationv1.MutatingAdmissionPolicy]{
	DefaultStrategy: generic.DefaultStrategy{RequireResourceVersionOnUpdate: true},
	Spec: generic.FieldPart(func(p *admissionregistrationv1.MutatingAdmissionPolicy) *admissionregistrationv1.MutatingAdmissionPolicySpec {
		return &p.Spec
	}),
	CountGenerations:   true,
	ValidateFunc:       admissionregistration.ValidateMutatingAdmissionPolicy,
	ValidateUpdateFunc: admissionregistration.ValidateMutatingAdmissionPolicyUpdate,
}}

func (s strategy) Validate(ctx context.Context, obj runtime.Object) field.ErrorList {
	p := obj.(*admissionregistrationv1.MutatingAdmissionPolicy)
	errs := append(s.SpecStrategy.Validate(ctx, obj), admissionregistration.ValidateStaticSuffix(p.Name)...)
	if len(errs) == 0 {
		// A well-formed policy is also checked against its writer.
		errs = s.params.ParamKindOnCreate(ctx, p.Spec.ParamKind)
	}
	return errs
}

func (s strategy) ValidateUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList {
	p, o := obj.(*admissionregistrationv1.MutatingAdmissionPolicy), old.(*admissionregistrationv1.MutatingAdmissionPolicy)
	errs := s.SpecStrategy.ValidateUpdate(ctx, obj, old)
	if len(errs) == 0 {
		errs = s.params.ParamKindOnUpdate(ctx, p.Spec.ParamKind, o.Spec.ParamKind)
	}
	return errs
}

// WarningsOnUpdate warns of a reserved name.
func (strategy) WarningsOnUpdate(_ context.Context, obj, _ runtime.Object) []string {
	return admissionregistration.WarningsForStaticSuffix(obj.(*admissionregistrationv1.MutatingAdmissionPolicy).Name)
}

// Storage is the REST storage of mutating admission policies.
type Storage struct {
	MutatingAdmissionPolicy *generic.Store
}

// NewStorage returns the storage of mutating admission policies.
func NewStorage(opts generic.RESTOptions, params *paramauthz.Checker) (*Storage, error) {
	st := Strategy
	st.params = params
	s := &generic.Store{
		NewFunc:                   func() runtime.Object { return &admissionregistrationv1.MutatingAdmissionPolicy{} },
		NewListFunc:               func() runtime.Object { return &admissionregistrationv1.MutatingAdmissionPolicyList{} },
		DefaultQualifiedResource:  admissionregistrationv1.Resource("mutatingadmissionpolicies"),
		SingularQualifiedResource: admissionregistrationv1.Resource("mutatingadmissionpolicy"),
		KeyPrefix:                 "/mutatingadmissionpolicies",
		CreateStrategy:            st,
		UpdateStrategy:            st,
		DeleteStrategy:            st,
		CategoriesList:            []string{"api-extensions"},
	}
	if err := opts.Complete(s, admissionregistrationv1.SchemeGroupVersion); err != nil {
		return nil, err
	}
	return &Storage{MutatingAdmissionPolicy: s}, nil
}

// Map returns the storage by path: "mutatingadmissionpolicies".
func (s *Storage) Map() map[string]rest.Storage {
	return map[string]rest.Storage{s.MutatingAdmissionPolicy.DefaultQualifiedResource.Resource: s.MutatingAdmissionPolicy}
}
