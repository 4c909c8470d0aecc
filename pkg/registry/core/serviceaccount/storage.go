// Package serviceaccount is the REST storage of core/v1 serviceaccounts.
package serviceaccount

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/pkg/apis/core"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

// Strategy is the behaviour of serviceaccounts.
var Strategy = generic.ValidatingStrategy[*corev1.ServiceAccount]{
	DefaultStrategy:    generic.DefaultStrategy{Namespaced: true},
	ValidateFunc:       core.ValidateServiceAccount,
	ValidateUpdateFunc: core.ValidateServiceAccountUpdate,
}

// Storage is the REST storage of serviceaccounts.
type Storage struct {
	ServiceAccount *generic.Store
}

// NewStorage returns the storage of serviceaccounts.
func NewStorage(opts generic.RESTOptions) (*Storage, error) {
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
		// kube-apiserver answers a delete with the deleted account.
		ReturnDeletedObject: true,
	}
	if err := opts.Complete(s, corev1.SchemeGroupVersion); err != nil {
		return nil, err
	}
	return &Storage{ServiceAccount: s}, nil
}

// Map returns the storage by path: "serviceaccounts".
func (s *Storage) Map() map[string]rest.Storage {
	return map[string]rest.Storage{s.ServiceAccount.DefaultQualifiedResource.Resource: s.ServiceAccount}
}
