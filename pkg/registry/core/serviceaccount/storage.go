// Package serviceaccount is the REST storage of core/v1 serviceaccounts.
package serviceaccount

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/apis/core"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
)

type strategy struct{ generic.DefaultStrategy }

// Strategy is the behaviour of serviceaccounts.
var Strategy = strategy{generic.DefaultStrategy{Namespaced: true}}

func (strategy) PrepareForCreate(context.Context, runtime.Object) {}

func (strategy) PrepareForUpdate(context.Context, runtime.Object, runtime.Object) {}

func (strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return core.ValidateServiceAccount(obj.(*corev1.ServiceAccount))
}

func (strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return core.ValidateServiceAccountUpdate(obj.(*corev1.ServiceAccount), old.(*corev1.ServiceAccount))
}

// NewREST returns the storage of serviceaccounts.
func NewREST(opts generic.RESTOptions) (*generic.Store, error) {
	s := &generic.Store{
		NewFunc:                   func() runtime.Object { return &corev1.ServiceAccount{} },
		NewListFunc:               func() runtime.Object { return &corev1.ServiceAccountList{} },
		DefaultQualifiedResource:  corev1.Resource("serviceaccounts"),
		SingularQualifiedResource: corev1.Resource("serviceaccount"),
		KeyPrefix:                 "/serviceaccounts",
		CreateStrategy:            Strategy,
		UpdateStrategy:            Strategy,
		DeleteStrategy:            Strategy,
		ShortNamesList:            []string{"sa"},
	}
	return s, opts.Complete(s, corev1.SchemeGroupVersion)
}
