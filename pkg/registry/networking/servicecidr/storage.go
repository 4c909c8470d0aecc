// Package servicecidr is the REST storage of networking.k8s.io/v1
// servicecidrs and of their /status: the ranges Services get their cluster
// IPs from.
package servicecidr

import (
	"context"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/kapi-dev/kapi/pkg/apis/networking"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

const resetFieldsVersion = "networking.k8s.io/v1"

type strategy struct{ generic.DefaultStrategy }

// Strategy is the behaviour of service CIDRs: the status (the Ready
// condition the apiserver's controllers set) is written only through
// /status. As in kube-apiserver, metadata.generation is not kept.
var Strategy = strategy{generic.DefaultStrategy{}}

func (strategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	obj.(*networkingv1.ServiceCIDR).Status = networkingv1.ServiceCIDRStatus{}
}

func (strategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	obj.(*networkingv1.ServiceCIDR).Status = old.(*networkingv1.ServiceCIDR).Status
}

func (strategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return generic.ResetFields(resetFieldsVersion, []string{"status"})
}

func (strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return networking.ValidateServiceCIDR(obj.(*networkingv1.ServiceCIDR))
}

func (strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return networking.ValidateServiceCIDRUpdate(obj.(*networkingv1.ServiceCIDR), old.(*networkingv1.ServiceCIDR))
}

type statusStrategy struct{ strategy }

// GetResetFields is what /status keeps: the spec, and the metadata
// PrepareForUpdate keeps.
func (statusStrategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return generic.ResetFields(resetFieldsVersion, []string{"spec"},
		[]string{"metadata", "labels"}, []string{"metadata", "annotations"},
		[]string{"metadata", "finalizers"}, []string{"metadata", "ownerReferences"})
}

// PrepareForUpdate keeps the spec and the metadata a status write may not
// change (labels, annotations, finalizers, owner references).
func (statusStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	sc, oldSC := obj.(*networkingv1.ServiceCIDR), old.(*networkingv1.ServiceCIDR)
	sc.Spec = oldSC.Spec
	metav1.ResetObjectMetaForStatus(&sc.ObjectMeta, &oldSC.ObjectMeta)
}

func (statusStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return networking.ValidateServiceCIDRStatusUpdate(obj.(*networkingv1.ServiceCIDR), old.(*networkingv1.ServiceCIDR))
}

// Storage is the REST storage of service CIDRs and their /status.
type Storage struct {
	ServiceCIDR *generic.Store
	Status      *generic.SubresourceREST
}

// NewStorage returns the storage of service CIDRs.
func NewStorage(opts generic.RESTOptions) (*Storage, error) {
	s := &generic.Store{
		NewFunc:                   func() runtime.Object { return &networkingv1.ServiceCIDR{} },
		NewListFunc:               func() runtime.Object { return &networkingv1.ServiceCIDRList{} },
		DefaultQualifiedResource:  networkingv1.Resource("servicecidrs"),
		SingularQualifiedResource: networkingv1.Resource("servicecidr"),
		KeyPrefix:                 "/servicecidrs",
		CreateStrategy:            Strategy,
		UpdateStrategy:            Strategy,
		DeleteStrategy:            Strategy,
	}
	if err := opts.Complete(s, networkingv1.SchemeGroupVersion); err != nil {
		return nil, err
	}
	return &Storage{ServiceCIDR: s, Status: generic.NewSubresourceREST(s, statusStrategy{Strategy})}, nil
}

// Map returns the storage by path: "servicecidrs" and
// "servicecidrs/status".
func (s *Storage) Map() map[string]rest.Storage {
	plural := s.ServiceCIDR.DefaultQualifiedResource.Resource
	return map[string]rest.Storage{plural: s.ServiceCIDR, plural + "/status": s.Status}
}
