// Package serviceaccount is the REST storage of core/v1 serviceaccounts.
package serviceaccount

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/pkg/apis/core"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
)

// Strategy is the behaviour of serviceaccounts.
var Strategy = generic.ValidatingStrategy[*corev1.ServiceAccount]{
	DefaultStrategy:    generic.DefaultStrategy{Namespaced: true},
	ValidateFunc:       core.ValidateServiceAccount,
	ValidateUpdateFunc: core.ValidateServiceAccountUpdate,
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
