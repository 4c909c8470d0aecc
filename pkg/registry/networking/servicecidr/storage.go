// Package servicecidr is the REST storage of networking.k8s.io/v1
// servicecidrs and of their /status: the ranges Services get their cluster
// IPs from.
package servicecidr

import (
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/pkg/apis/networking"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

// Strategy is the behaviour of service CIDRs: the status (the Ready
// condition the apiserver's controllers set) is written only through
// /status. As in kube-apiserver, metadata.generation is not kept.
var Strategy = generic.SpecStrategy[*networkingv1.ServiceCIDR]{
	APIVersions:        []string{"networking.k8s.io/v1"},
	Spec:               generic.FieldPart(func(sc *networkingv1.ServiceCIDR) *networkingv1.ServiceCIDRSpec { return &sc.Spec }),
	Status:             generic.FieldPart(func(sc *networkingv1.ServiceCIDR) *networkingv1.ServiceCIDRStatus { return &sc.Status }),
	ValidateFunc:       networking.ValidateServiceCIDR,
	ValidateUpdateFunc: networking.ValidateServiceCIDRUpdate,
}

// statusStrategy keeps the spec and the metadata a client owns.
var statusStrategy = generic.StatusStrategy[*networkingv1.ServiceCIDR]{
	SpecStrategy: Strategy,
	KeepMetadata: metav1.ResetObjectMetaForStatus,
	ResetPaths: [][]string{
		{"metadata", "labels"}, {"metadata", "annotations"},
		{"metadata", "finalizers"}, {"metadata", "ownerReferences"},
	},
	ValidateStatusUpdateFunc: networking.ValidateServiceCIDRStatusUpdate,
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
	return &Storage{ServiceCIDR: s, Status: generic.NewSubresourceREST(s, statusStrategy)}, nil
}

// Map returns the storage by path: "servicecidrs" and
// "servicecidrs/status".
func (s *Storage) Map() map[string]rest.Storage {
	plural := s.ServiceCIDR.DefaultQualifiedResource.Resource
	return map[string]rest.Storage{plural: s.ServiceCIDR, plural + "/status": s.Status}
}
