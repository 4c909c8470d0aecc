// Package validatingadmissionpolicy is the REST storage of
// admissionregistration.k8s.io/v1 validatingadmissionpolicies and their
// /status.
package validatingadmissionpolicy

import (
	"context"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/apis/admissionregistration"
	"github.com/kapi-dev/kapi/pkg/registry/admissionregistration/paramauthz"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

type strategy struct {
	generic.SpecStrategy[*admissionregistrationv1.ValidatingAdmissionPolicy]
	// params checks the user may read the parameters the object
	// refers to; nil checks nothing.
	params *paramauthz.Checker
}

// Strategy is the behaviour of validating admission policies:
// cluster-wide, metadata.generation counts changes of the spec, the
// status (the type checking's warnings, written by kube-controller-
// manager's type checker) is written through /status only, an update
// names the resourceVersion it replaces, and names ending in
// .static.k8s.io are kept for manifest-based policies.
var Strategy = strategy{SpecStrategy: generic.SpecStrategy[*admissionregistrationv1.ValidatingAdmissionPolicy]{
	DefaultStrategy: generic.DefaultStrategy{RequireResourceVersionOnUpdate: true},
	APIVersions:     []string{"admissionregistration.k8s.io/v1"},
	Spec: generic.FieldPart(func(p *admissionregistrationv1.ValidatingAdmissionPolicy) *admissionregistrationv1.ValidatingAdmissionPolicySpec {
		return &p.Spec
	}),
	Status: generic.FieldPart(func(p *admissionregistrationv1.ValidatingAdmissionPolicy) *admissionregistrationv1.ValidatingAdmissionPolicyStatus {
		return &p.Status
	}),
	CountGenerations:   true,
	ValidateFunc:       admissionregistration.ValidateValidatingAdmissionPolicy,
	ValidateUpdateFunc: admissionregistration.ValidateValidatingAdmissionPolicyUpdate,
}}

func (s strategy) Validate(ctx context.Context, obj runtime.Object) field.ErrorList {
	p := obj.(*admissionregistrationv1.ValidatingAdmissionPolicy)
	errs := append(s.SpecStrategy.Validate(ctx, obj), admissionregistration.ValidateStaticSuffix(p.Name)...)
	if len(errs) == 0 {
		// A well-formed policy is also checked against its writer.
		errs = s.params.ParamKindOnCreate(ctx, p.Spec.ParamKind)
	}
	return errs
}

func (s strategy) ValidateUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList {
	p, o := obj.(*admissionregistrationv1.ValidatingAdmissionPolicy), old.(*admissionregistrationv1.ValidatingAdmissionPolicy)
	errs := s.SpecStrategy.ValidateUpdate(ctx, obj, old)
	if len(errs) == 0 {
		errs = s.params.ParamKindOnUpdate(ctx, p.Spec.ParamKind, o.Spec.ParamKind)
	}
	return errs
}

// WarningsOnUpdate warns of a reserved name.
func (strategy) WarningsOnUpdate(_ context.Context, obj, _ runtime.Object) []string {
	return admissionregistration.WarningsForStaticSuffix(obj.(*admissionregistrationv1.ValidatingAdmissionPolicy).Name)
}

var statusStrategy = generic.StatusStrategy[*admissionregistrationv1.ValidatingAdmissionPolicy]{
	SpecStrategy:             Strategy.SpecStrategy,
	KeepMetadata:             metav1.ResetObjectMetaForStatus,
	ResetPaths:               [][]string{{"metadata"}},
	ValidateStatusUpdateFunc: admissionregistration.ValidateValidatingAdmissionPolicyStatusUpdate,
}

// Storage is the REST storage of validating admission policies and
// their /status.
type Storage struct {
	ValidatingAdmissionPolicy *generic.Store
	Status                    *generic.SubresourceREST
}

// NewStorage returns the storage of validating admission policies.
func NewStorage(opts generic.RESTOptions, params *paramauthz.Checker) (*Storage, error) {
	st := Strategy
	st.params = params
	s := &generic.Store{
		NewFunc:                   func() runtime.Object { return &admissionregistrationv1.ValidatingAdmissionPolicy{} },
		NewListFunc:               func() runtime.Object { return &admissionregistrationv1.ValidatingAdmissionPolicyList{} },
		DefaultQualifiedResource:  admissionregistrationv1.Resource("validatingadmissionpolicies"),
		SingularQualifiedResource: admissionregistrationv1.Resource("validatingadmissionpolicy"),
		KeyPrefix:                 "/validatingadmissionpolicies",
		CreateStrategy:            st,
		UpdateStrategy:            st,
		DeleteStrategy:            st,
		CategoriesList:            []string{"api-extensions"},
	}
	if err := opts.Complete(s, admissionregistrationv1.SchemeGroupVersion); err != nil {
		return nil, err
	}
	return &Storage{ValidatingAdmissionPolicy: s, Status: generic.NewSubresourceREST(s, statusStrategy)}, nil
}

// Map returns the storage by path: "validatingadmissionpolicies" and
// "validatingadmissionpolicies/status".
func (s *Storage) Map() map[string]rest.Storage {
	plural := s.ValidatingAdmissionPolicy.DefaultQualifiedResource.Resource
	return map[string]rest.Storage{plural: s.ValidatingAdmissionPolicy, plural + "/status": s.Status}
}
