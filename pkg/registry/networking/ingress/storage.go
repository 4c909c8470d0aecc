// Package ingress is the REST storage of networking.k8s.io/v1 ingresses and
// of their /status.
package ingress

import (
	"context"

	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/pkg/apis/networking"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

// Strategy is the behaviour of ingresses: metadata.generation counts
// changes of the spec, and the status (the load balancer's addresses) is
// written only through /status.
var Strategy = generic.SpecStrategy[*networkingv1.Ingress]{
	DefaultStrategy:    generic.DefaultStrategy{Namespaced: true},
	APIVersions:        []string{"networking.k8s.io/v1"},
	Spec:               generic.FieldPart(func(i *networkingv1.Ingress) *networkingv1.IngressSpec { return &i.Spec }),
	Status:             generic.FieldPart(func(i *networkingv1.Ingress) *networkingv1.IngressStatus { return &i.Status }),
	CountGenerations:   true,
	ValidateFunc:       networking.ValidateIngress,
	ValidateUpdateFunc: networking.ValidateIngressUpdate,
}

// createStrategy warns, as kube-apiserver does, of an Ingress created
// with the deprecated kubernetes.io/ingress.class annotation instead of
// spec.ingressClassName.
type createStrategy struct {
	generic.SpecStrategy[*networkingv1.Ingress]
}

func (createStrategy) WarningsOnCreate(_ context.Context, obj runtime.Object) []string {
	ing := obj.(*networkingv1.Ingress)
	if _, ok := ing.Annotations["kubernetes.io/ingress.class"]; ok && ing.Spec.IngressClassName == nil {
		return []string{`annotation "kubernetes.io/ingress.class" is deprecated, please use 'spec.ingressClassName' instead`}
	}
	return nil
}

// statusStrategy keeps the spec; unlike most kinds, kube-apiserver lets
// /status of an Ingress change its labels and annotations.
var statusStrategy = ingressStatusStrategy{generic.StatusStrategy[*networkingv1.Ingress]{
	SpecStrategy:             Strategy,
	ValidateStatusUpdateFunc: networking.ValidateIngressStatusUpdate,
}}

type ingressStatusStrategy struct {
	generic.StatusStrategy[*networkingv1.Ingress]
}

// WarningsOnUpdate warns of load-balancer IPs not written the standard
// way.
func (ingressStatusStrategy) WarningsOnUpdate(_ context.Context, obj, _ runtime.Object) []string {
	return networking.IngressStatusWarnings(obj.(*networkingv1.Ingress))
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
		CreateStrategy:            createStrategy{Strategy},
		UpdateStrategy:            Strategy,
		DeleteStrategy:            Strategy,
		ShortNamesList:            []string{"ing"},
	}
	if err := opts.Complete(s, networkingv1.SchemeGroupVersion); err != nil {
		return nil, err
	}
	return &Storage{Ingress: s, Status: generic.NewSubresourceREST(s, statusStrategy)}, nil
}

// Map returns the storage by path: "ingresses" and "ingresses/status".
func (s *Storage) Map() map[string]rest.Storage {
	plural := s.Ingress.DefaultQualifiedResource.Resource
	return map[string]rest.Storage{plural: s.Ingress, plural + "/status": s.Status}
}
