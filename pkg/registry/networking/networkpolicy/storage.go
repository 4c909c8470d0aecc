// Package networkpolicy is the REST storage of networking.k8s.io/v1
// networkpolicies.
package networkpolicy

import (
	"context"

	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/pkg/apis/networking"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

// Strategy is the behaviour of network policies: metadata.generation
// counts changes of the spec. (Their status was removed from the API.)
var Strategy = strategy{generic.SpecStrategy[*networkingv1.NetworkPolicy]{
	DefaultStrategy:    generic.DefaultStrategy{Namespaced: true},
	Spec:               generic.FieldPart(func(np *networkingv1.NetworkPolicy) *networkingv1.NetworkPolicySpec { return &np.Spec }),
	CountGenerations:   true,
	ValidateFunc:       networking.ValidateNetworkPolicy,
	ValidateUpdateFunc: networking.ValidateNetworkPolicyUpdate,
}}

type strategy struct {
	generic.SpecStrategy[*networkingv1.NetworkPolicy]
}

// WarningsOnCreate warns of ipBlock CIDRs not written the standard way.
func (strategy) WarningsOnCreate(_ context.Context, obj runtime.Object) []string {
	return networking.NetworkPolicyWarnings(obj.(*networkingv1.NetworkPolicy))
}

// WarningsOnUpdate warns of ipBlock CIDRs not written the standard way.
func (strategy) WarningsOnUpdate(_ context.Context, obj, _ runtime.Object) []string {
	return networking.NetworkPolicyWarnings(obj.(*networkingv1.NetworkPolicy))
}

// Storage is the REST storage of network policies.
type Storage struct {
	NetworkPolicy *generic.Store
}

// NewStorage returns the storage of network policies.
func NewStorage(opts generic.RESTOptions) (*Storage, error) {
	s := &generic.Store{
		NewFunc:                   func() runtime.Object { return &networkingv1.NetworkPolicy{} },
		NewListFunc:               func() runtime.Object { return &networkingv1.NetworkPolicyList{} },
		DefaultQualifiedResource:  networkingv1.Resource("networkpolicies"),
		SingularQualifiedResource: networkingv1.Resource("networkpolicy"),
		KeyPrefix:                 "/networkpolicies",
		CreateStrategy:            Strategy,
		UpdateStrategy:            Strategy,
		DeleteStrategy:            Strategy,
		ShortNamesList:            []string{"netpol"},
	}
	if err := opts.Complete(s, networkingv1.SchemeGroupVersion); err != nil {
		return nil, err
	}
	return &Storage{NetworkPolicy: s}, nil
}

// Map returns the storage by path: "networkpolicies".
func (s *Storage) Map() map[string]rest.Storage {
	return map[string]rest.Storage{s.NetworkPolicy.DefaultQualifiedResource.Resource: s.NetworkPolicy}
}
