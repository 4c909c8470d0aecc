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
	// Token is serviceaccounts/token; nil when no signing key is
	// configured.
	Token *TokenREST
}

// BoundObjects are the storage of the objects a token may be bound to.
type BoundObjects struct {
	Pods, Secrets, Nodes rest.Getter
}

// NewStorage returns the storage of serviceaccounts and, when token has a
// signer, of their token subresource.
func NewStorage(opts generic.RESTOptions, token TokenConfig, bound BoundObjects) (*Storage, error) {
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
	out := &Storage{ServiceAccount: s}
	if token.Signer != nil {
		out.Token = &TokenREST{accounts: s, bound: boundObjects{pods: bound.Pods, secrets: bound.Secrets, nodes: bound.Nodes}, cfg: token}
	}
	return out, nil
}

// Map returns the storage by path: "serviceaccounts" and, when tokens are
// issued, "serviceaccounts/token".
func (s *Storage) Map() map[string]rest.Storage {
	plural := s.ServiceAccount.DefaultQualifiedResource.Resource
	m := map[string]rest.Storage{plural: s.ServiceAccount}
	if s.Token != nil {
		m[plural+"/token"] = s.Token
	}
	return m
}
