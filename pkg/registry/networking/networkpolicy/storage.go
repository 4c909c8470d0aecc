// Package networkpolicy is the REST storage of networking.k8s.io/v1
// networkpolicies.
package networkpolicy

import (
	"context"

	networkingv1 "k8s.io/api/networking/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/apis/networking"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

type strategy struct{ generic.DefaultStrategy }

// Strategy is the behaviour of network policies: metadata.generation
// counts changes of the spec. (Their status was removed from the API.)
var Strategy = strategy{generic.DefaultStrategy{Namespaced: true}}

func (strategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	obj.(*networkingv1.NetworkPolicy).Generation = 1
}

func (strategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	np, oldNP := obj.(*networkingv1.NetworkPolicy), old.(*networkingv1.NetworkPolicy)
	if !apiequality.Semantic.DeepEqual(np.Spec, oldNP.Spec) {
		np.Generation = oldNP.Generation + 1
	}
}

func (strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return networking.ValidateNetworkPolicy(obj.(*networkingv1.NetworkPolicy))
}

func (strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return networking.ValidateNetworkPolicyUpdate(obj.(*networkingv1.NetworkPolicy), old.(*networkingv1.NetworkPolicy))
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
