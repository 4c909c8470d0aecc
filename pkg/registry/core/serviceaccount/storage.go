// Package serviceaccount is the REST storage of core/v1 serviceaccounts.
package serviceaccount

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/apis/core"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

// Strategy is the behaviour of serviceaccounts.
var Strategy = strategy{generic.ValidatingStrategy[*corev1.ServiceAccount]{
	DefaultStrategy:    generic.DefaultStrategy{Namespaced: true},
	ValidateFunc:       core.ValidateServiceAccount,
	ValidateUpdateFunc: core.ValidateServiceAccountUpdate,
}}

type strategy struct {
	generic.ValidatingStrategy[*corev1.ServiceAccount]
}

// enforceMountableSecretsAnnotation limits an account's pods to the
// secrets it lists (see the ServiceAccount admission plugin); it is
// deprecated since 1.32.
const enforceMountableSecretsAnnotation = "kubernetes.io/enforce-mountable-secrets"

// WarningsOnCreate warns of the deprecated annotation, as kube-apiserver
// does.
func (strategy) WarningsOnCreate(_ context.Context, obj runtime.Object) []string {
	return warnings(obj.(*corev1.ServiceAccount))
}

// WarningsOnUpdate warns of the deprecated annotation.
func (strategy) WarningsOnUpdate(_ context.Context, obj, _ runtime.Object) []string {
	return warnings(obj.(*corev1.ServiceAccount))
}

func warnings(sa *corev1.ServiceAccount) []string {
	if _, ok := sa.Annotations[enforceMountableSecretsAnnotation]; !ok {
		return nil
	}
	return []string{fmt.Sprintf("%s: deprecated in v1.32+; prefer separate namespaces to isolate access to mounted secrets",
		field.NewPath("metadata", "annotations").Key(enforceMountableSecretsAnnotation))}
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
