// Package rest declares the admissionregistration.k8s.io API group.
package rest

import (
	"context"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/pkg/registry"
	"github.com/kapi-dev/kapi/pkg/registry/admissionregistration/mutatingadmissionpolicy"
	"github.com/kapi-dev/kapi/pkg/registry/admissionregistration/mutatingadmissionpolicybinding"
	"github.com/kapi-dev/kapi/pkg/registry/admissionregistration/mutatingwebhookconfiguration"
	"github.com/kapi-dev/kapi/pkg/registry/admissionregistration/paramauthz"
	"github.com/kapi-dev/kapi/pkg/registry/admissionregistration/validatingadmissionpolicy"
	"github.com/kapi-dev/kapi/pkg/registry/admissionregistration/validatingadmissionpolicybinding"
	"github.com/kapi-dev/kapi/pkg/registry/admissionregistration/validatingwebhookconfiguration"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
)

// StorageProvider declares the admissionregistration.k8s.io group.
// Params is the check that users may read the parameters the policies
// and bindings they write refer to; nil checks nothing.
type StorageProvider struct {
	Params *paramauthz.Checker
}

var _ registry.StorageProvider = StorageProvider{}

func (StorageProvider) GroupName() string { return admissionregistrationv1.GroupName }

func (StorageProvider) GroupPriority() int { return 16700 }

// NewRESTStorage builds the storage of admissionregistration.k8s.io/v1.
// A binding's check reads its policy from the policies' storage.
func (p StorageProvider) NewRESTStorage(opts generic.RESTOptions, served func(version string) bool) (registry.VersionedStorage, error) {
	var g registry.GroupStorage
	if served("v1") {
		v1 := g.Version("v1")
		v1.Add(validatingwebhookconfiguration.NewStorage(opts))
		v1.Add(mutatingwebhookconfiguration.NewStorage(opts))
		vap, err := validatingadmissionpolicy.NewStorage(opts, p.Params)
		v1.Add(vap, err)
		mutating, err := mutatingadmissionpolicy.NewStorage(opts, p.Params)
		v1.Add(mutating, err)
		if err != nil || vap == nil {
			return g.Result()
		}
		v1.Add(validatingadmissionpolicybinding.NewStorage(opts, p.Params, paramKindOf(vap.ValidatingAdmissionPolicy, func(p *admissionregistrationv1.ValidatingAdmissionPolicy) *admissionregistrationv1.ParamKind {
			return p.Spec.ParamKind
		})))
		v1.Add(mutatingadmissionpolicybinding.NewStorage(opts, p.Params, paramKindOf(mutating.MutatingAdmissionPolicy, func(p *admissionregistrationv1.MutatingAdmissionPolicy) *admissionregistrationv1.ParamKind {
			return p.Spec.ParamKind
		})))
	}
	return g.Result()
}

// paramKindOf reads the paramKind of a policy from its storage.
func paramKindOf[T any](policies *generic.Store, kind func(T) *admissionregistrationv1.ParamKind) paramauthz.PolicyGetter {
	return func(ctx context.Context, name string) (*admissionregistrationv1.ParamKind, error) {
		obj, err := policies.Get(ctx, name, &metav1.GetOptions{})
		if err != nil {
			return nil, err
		}
		return kind(obj.(T)), nil
	}
}
