// Package ingressclass is the REST storage of networking.k8s.io/v1
// ingressclasses.
package ingressclass

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

// Strategy is the behaviour of ingress classes: cluster-wide, with
// metadata.generation counting changes of the spec.
var Strategy = strategy{generic.DefaultStrategy{}}

func (strategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	obj.(*networkingv1.IngressClass).Generation = 1
}

func (strategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	ic, oldIC := obj.(*networkingv1.IngressClass), old.(*networkingv1.IngressClass)
	if !apiequality.Semantic.DeepEqual(ic.Spec, oldIC.Spec) {
		ic.Generation = oldIC.Generation + 1
	}
}

func (strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return networking.ValidateIngressClass(obj.(*networkingv1.IngressClass))
}

func (strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return networking.ValidateIngressClassUpdate(obj.(*networkingv1.IngressClass), old.(*networkingv1.IngressClass))
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
