// Package mutatingwebhookconfiguration is the REST storage of
// admissionregistration.k8s.io/v1 mutatingwebhookconfigurations.
package mutatingwebhookconfiguration

import (
	"context"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/apis/admissionregistration"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

type strategy struct {
	generic.SpecStrategy[*admissionregistrationv1.MutatingWebhookConfiguration]
}

// Strategy is the behaviour of mutating webhook configurations:
// cluster-wide, metadata.generation counts changes of the webhooks, an
// update names the resourceVersion it replaces, and names ending in
// .static.k8s.io are kept for the configurations kube-apiserver loads
// from manifests.
var Strategy = strategy{generic.SpecStrategy[*admissionregistrationv1.MutatingWebhookConfiguration]{
	DefaultStrategy: generic.DefaultStrategy{RequireResourceVersionOnUpdate: true},
	Spec: generic.FieldPart(func(c *admissionregistrationv1.MutatingWebhookConfiguration) *[]admissionregistrationv1.MutatingWebhook {
		return &c.Webhooks
	}),
	CountGenerations:   true,
	ValidateFunc:       admissionregistration.ValidateMutatingWebhookConfiguration,
	ValidateUpdateFunc: admissionregistration.ValidateMutatingWebhookConfigurationUpdate,
}}

func (s strategy) Validate(ctx context.Context, obj runtime.Object) field.ErrorList {
	c := obj.(*admissionregistrationv1.MutatingWebhookConfiguration)
	return append(s.SpecStrategy.Validate(ctx, obj), admissionregistration.ValidateStaticSuffix(c.Name)...)
}

// WarningsOnCreate warns of rules that name resources webhooks are
// never called for.
func (strategy) WarningsOnCreate(_ context.Context, obj runtime.Object) []string {
	return admissionregistration.WarningsForMutatingWebhookRules(obj.(*admissionregistrationv1.MutatingWebhookConfiguration))
}

// WarningsOnUpdate also warns of a reserved name.
func (strategy) WarningsOnUpdate(_ context.Context, obj, _ runtime.Object) []string {
	c := obj.(*admissionregistrationv1.MutatingWebhookConfiguration)
	return append(admissionregistration.WarningsForStaticSuffix(c.Name), admissionregistration.WarningsForMutatingWebhookRules(c)...)
}

// Storage is the REST storage of mutating webhook configurations.
type Storage struct {
	MutatingWebhookConfiguration *generic.Store
}

// NewStorage returns the storage of mutating webhook configurations.
func NewStorage(opts generic.RESTOptions) (*Storage, error) {
	s := &generic.Store{
		NewFunc:                   func() runtime.Object { return &admissionregistrationv1.MutatingWebhookConfiguration{} },
		NewListFunc:               func() runtime.Object { return &admissionregistrationv1.MutatingWebhookConfigurationList{} },
		DefaultQualifiedResource:  admissionregistrationv1.Resource("mutatingwebhookconfigurations"),
		SingularQualifiedResource: admissionregistrationv1.Resource("mutatingwebhookconfiguration"),
		KeyPrefix:                 "/mutatingwebhookconfigurations",
		CreateStrategy:            Strategy,
		UpdateStrategy:            Strategy,
		DeleteStrategy:            Strategy,
		CategoriesList:            []string{"api-extensions"},
	}
	if err := opts.Complete(s, admissionregistrationv1.SchemeGroupVersion); err != nil {
		return nil, err
	}
	return &Storage{MutatingWebhookConfiguration: s}, nil
}

// Map returns the storage by path: "mutatingwebhookconfigurations".
func (s *Storage) Map() map[string]rest.Storage {
	return map[string]rest.Storage{s.MutatingWebhookConfiguration.DefaultQualifiedResource.Resource: s.MutatingWebhookConfiguration}
}
