// Package ingressclass is the REST storage of networking.k8s.io/v1
// ingressclasses.
package ingressclass

import (
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/pkg/apis/networking"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

// Strategy is the behaviour of ingress classes: cluster-wide, with
// metadata.generation counting changes of the spec.
var Strategy = generic.SpecStrategy[*networkingv1.IngressClass]{
	Spec:               generic.FieldPart(func(ic *networkingv1.IngressClass) *networkingv1.IngressClassSpec { return &ic.Spec }),
	CountGenerations:   true,
	ValidateFunc:       networking.ValidateIngressClass,
	ValidateUpdateFunc: networking.ValidateIngressClassUpdate,
}

// Storage is the REST storage of ingress classes.
type Storage struct {
	IngressClass *generic.Store
}

// NewStorage returns the storage of ingress classes.
func NewStorage(opts generic.RESTOptions) (*Storage, error) {
	s := &generic.Store{
		NewFunc:                   func() runtime.Object { return &networkingv1.IngressClass{} },
		NewListFunc:               func() runtime.Object { return &networkingv1.IngressClassList{} },
		DefaultQualifiedResource:  networkingv1.Resource("ingressclasses"),
		SingularQualifiedResource: networkingv1.Resource("ingressclass"),
		KeyPrefix:                 "/ingressclasses",
		CreateStrategy:            Strategy,
		UpdateStrategy:            Strategy,
		DeleteStrategy:            Strategy,
	}
	if err := opts.Complete(s, networkingv1.SchemeGroupVersion); err != nil {
		return nil, err
	}
	return &Storage{IngressClass: s}, nil
}

// Map returns the storage by path: "ingressclasses".
func (s *Storage) Map() map[string]rest.Storage {
	return map[string]rest.Storage{s.IngressClass.DefaultQualifiedResource.Resource: s.IngressClass}
}
