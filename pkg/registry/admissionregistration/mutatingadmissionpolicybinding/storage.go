// Package mutatingadmissionpolicybinding is the REST storage of
// admissionregistration.k8s.io/v1 mutatingadmissionpolicybindings.
package mutatingadmissionpolicybinding

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
	generic.SpecStrategy[*admissionregistrationv1.MutatingAdmissionPolicyBinding]
	// params checks the user may read the parameters the object
	// refers to; nil checks nothing.
	params *paramauthz.Checker
	// policies reads the paramKind of the bound policy.
	policies paramauthz.PolicyGetter
}

// Strategy is the behaviour of mutating admission policy bindings: cluster-wide,
// metadata.generation counts changes of the spec, an update names the
// resourceVersion it replaces, and names ending in .static.k8s.io are
// kept for manifest-based bindings.
var Strategy = strategy{SpecStrategy: generic.SpecStrategy[*admissionregistrationv1.MutatingAdmissionPolicyBinding]{
	DefaultStrategy: generic.DefaultStrategy{RequireResourceVersionOnUpdate: true},
	Spec: generic.FieldPart(func(p *admissionregistrationv1.MutatingAdmissionPolicyBinding) *admissionregistrationv1.MutatingAdmissionPolicyBindingSpec {
		return &p.Spec
	}),
	CountGenerations:   true,
	ValidateFunc:       admissionregistration.ValidateMutatingAdmissionPolicyBinding,
	ValidateUpdateFunc: admissionregistration.ValidateMutatingAdmissionPolicyBindingUpdate,
}}

func (s strategy) Validate(ctx context.Context, obj runtime.Object) field.ErrorList {
	b := obj.(*admissionregistrationv1.MutatingAdmissionPolicyBinding)
	errs := append(s.SpecStrategy.Validate(ctx, obj), admissionregistration.ValidateStaticSuffix(b.Name)...)
	if len(errs) == 0 {
		// A well-formed binding is also checked against its writer.
		errs = s.params.ParamRefOnCreate(ctx, paramauthz.MutatingBinding, b.Spec.PolicyName, b.Spec.ParamRef, s.policies)
	}
	return errs
}

func (s strategy) ValidateUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList {
	b, o := obj.(*admissionregistrationv1.MutatingAdmissionPolicyBinding), old.(*admissionregistrationv1.MutatingAdmissionPolicyBinding)
	errs := s.SpecStrategy.ValidateUpdate(ctx, obj, old)
	if len(errs) == 0 {
		errs = s.params.ParamRefOnUpdate(ctx, paramauthz.MutatingBinding, b.Spec.PolicyName, b.Spec.ParamRef, o.Spec.PolicyName, o.Spec.ParamRef, s.policies)
	}
	return errs
}

// WarningsOnUpdate warns of a reserved name.
func (strategy) WarningsOnUpdate(_ context.Context, obj, _ runtime.Object) []string {
	return admissionregistration.WarningsForStaticSuffix(obj.(*admissionregistrationv1.MutatingAdmissionPolicyBinding).Name)
}

// Storage is the REST storage of mutating admission policy bindings.
type Storage struct {
	MutatingAdmissionPolicyBinding *generic.Store
}

// NewStorage returns the storage of mutating admission policy bindings.
func NewStorage(opts generic.RESTOptions, params *paramauthz.Checker, policies paramauthz.PolicyGetter) (*Storage, error) {
	st := Strategy
	st.params, st.policies = params, policies
	s := &generic.Store{
		NewFunc:                   func() runtime.Object { return &admissionregistrationv1.MutatingAdmissionPolicyBinding{} },
		NewListFunc:               func() runtime.Object { return &admissionregistrationv1.MutatingAdmissionPolicyBindingList{} },
		DefaultQualifiedResource:  admissionregistrationv1.Resource("mutatingadmissionpolicybindings"),
		SingularQualifiedResource: admissionregistrationv1.Resource("mutatingadmissionpolicybinding"),
		KeyPrefix:                 "/mutatingadmissionpolicybindings",
		CreateStrategy:            st,
		UpdateStrategy:            st,
		DeleteStrategy:            st,
		CategoriesList:            []string{"api-extensions"},
	}
	if err := opts.Complete(s, admissionregistrationv1.SchemeGroupVersion); err != nil {
		return nil, err
	}
	return &Storage{MutatingAdmissionPolicyBinding: s}, nil
}

// Map returns the storage by path: "mutatingadmissionpolicybindings".
func (s *Storage) Map() map[string]rest.Storage {
	return map[string]rest.Storage{s.MutatingAdmissionPolicyBinding.DefaultQualifiedResource.Resource: s.MutatingAdmissionPolicyBinding}
}
