// Package ingress is the REST storage of networking.k8s.io/v1 ingresses and
// of their /status.
package ingress

import (
	"context"

	networkingv1 "k8s.io/api/networking/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/kapi-dev/kapi/pkg/apis/networking"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

type strategy struct{ generic.DefaultStrategy }

// Strategy is the behaviour of ingresses: metadata.generation counts
// changes of the spec, and the status (the load balancer's addresses) is
// written only through /status.
var Strategy = strategy{generic.DefaultStrategy{Namespaced: true}}

func (strategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	ing := obj.(*networkingv1.Ingress)
	ing.Status = networkingv1.IngressStatus{}
	ing.Generation = 1
}

// GetResetFields is the status, written through /status only.
func (strategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return generic.ResetFields("networking.k8s.io/v1", []string{"status"})
}

func (strategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	ing, oldIng := obj.(*networkingv1.Ingress), old.(*networkingv1.Ingress)
	ing.Status = oldIng.Status
	if !apiequality.Semantic.DeepEqual(ing.Spec, oldIng.Spec) {
		ing.Generation = oldIng.Generation + 1
	}
}

func (strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return networking.ValidateIngress(obj.(*networkingv1.Ingress))
}

func (strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return networking.ValidateIngressUpdate(obj.(*networkingv1.Ingress), old.(*networkingv1.Ingress))
}

type statusStrategy struct{ strategy }

// GetResetFields is what /status keeps: the spec.
func (statusStrategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return generic.ResetFields("networking.k8s.io/v1", []string{"spec"})
}

// PrepareForUpdate keeps the spec; unlike most kinds, kube-apiserver lets
// /status of an Ingress change its labels and annotations.
func (statusStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	obj.(*networkingv1.Ingress).Spec = old.(*networkingv1.Ingress).Spec
}

func (statusStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return networking.ValidateIngressStatusUpdate(obj.(*networkingv1.Ingress), old.(*networkingv1.Ingress))
}

// Storage is the REST storage of ingresses and their /status.
type Storage struct {
	Ingress *generic.Store
	Status  *generic.SubresourceREST
}

// NewStorage returns the storage of ingresses. kube-apiserver keeps them
// under the singular "ingress" prefix, from the days of extensions/v1beta1.
func NewStorage(opts generic.RESTOptions) (*Storage, error) {
	s := &generic.Store{
		NewFunc:                   func() runtime.Object { return &networkingv1.Ingress{} },
		NewListFunc:               func() runtime.Object { return &networkingv1.IngressList{} },
		DefaultQualifiedResource:  networkingv1.Resource("ingresses"),
		SingularQualifiedResource: networkingv1.Resource("ingress"),
		KeyPrefix:                 "/ingress",
		CreateStrategy:            Strategy,
		UpdateStrategy:            Strategy,
		DeleteStrategy:            Strategy,
		ShortNamesList:            []string{"ing"},
	}
	if err := opts.Complete(s, networkingv1.SchemeGroupVersion); err != nil {
		return nil, err
	}
	return &Storage{Ingress: s, Status: generic.NewSubresourceREST(s, statusStrategy{Strategy})}, nil
}

// Map returns the storage by path: "ingresses" and "ingresses/status".
func (s *Storage) Map() map[string]rest.Storage {
	plural := s.Ingress.DefaultQualifiedResource.Resource
	return map[string]rest.Storage{plural: s.Ingress, plural + "/status": s.Status}
}
