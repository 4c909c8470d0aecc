// Package horizontalpodautoscaler is the REST storage of
// HorizontalPodAutoscalers and of their /status, stored as autoscaling/v2
// and served in autoscaling/v2 and autoscaling/v1 (pkg/apis/autoscaling
// converts between the two).
package horizontalpodautoscaler

import (
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/pkg/apis/autoscaling"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

// Strategy is the behaviour of HPAs: metadata.generation counts changes
// of the spec (HPAGeneration is on by default), and the status is written
// only through /status. The reset fields are given for both served
// versions.
var Strategy = generic.SpecStrategy[*autoscalingv2.HorizontalPodAutoscaler]{
	DefaultStrategy: generic.DefaultStrategy{Namespaced: true},
	APIVersions:     []string{"autoscaling/v1", "autoscaling/v2"},
	Spec: generic.FieldPart(func(hpa *autoscalingv2.HorizontalPodAutoscaler) *autoscalingv2.HorizontalPodAutoscalerSpec {
		return &hpa.Spec
	}),
	Status: generic.FieldPart(func(hpa *autoscalingv2.HorizontalPodAutoscaler) *autoscalingv2.HorizontalPodAutoscalerStatus {
		return &hpa.Status
	}),
	CountGenerations:   true,
	ValidateFunc:       autoscaling.ValidateHorizontalPodAutoscaler,
	ValidateUpdateFunc: autoscaling.ValidateHorizontalPodAutoscalerUpdate,
}

var statusStrategy = generic.StatusStrategy[*autoscalingv2.HorizontalPodAutoscaler]{
	SpecStrategy:             Strategy,
	ValidateStatusUpdateFunc: autoscaling.ValidateHorizontalPodAutoscalerStatusUpdate,
}

// Storage is the REST storage of HPAs and their /status.
type Storage struct {
	HorizontalPodAutoscaler *generic.Store
	Status                  *generic.SubresourceREST
}

// NewStorage returns the storage of HPAs as servedAs (autoscaling/v1 or
// autoscaling/v2) serves them: the same objects under the same keys.
func NewStorage(opts generic.RESTOptions, servedAs schema.GroupVersion) (*Storage, error) {
	s := &generic.Store{
		NewFunc:                   func() runtime.Object { return &autoscalingv2.HorizontalPodAutoscaler{} },
		NewListFunc:               func() runtime.Object { return &autoscalingv2.HorizontalPodAutoscalerList{} },
		DefaultQualifiedResource:  servedAs.WithResource("horizontalpodautoscalers").GroupResource(),
		SingularQualifiedResource: servedAs.WithResource("horizontalpodautoscaler").GroupResource(),
		KeyPrefix:                 "/horizontalpodautoscalers",
		CreateStrategy:            Strategy,
		UpdateStrategy:            Strategy,
		DeleteStrategy:            Strategy,
		ShortNamesList:            []string{"hpa"},
		CategoriesList:            []string{"all"},
	}
	if err := opts.Complete(s, autoscalingv2.SchemeGroupVersion); err != nil {
		return nil, err
	}
	return &Storage{HorizontalPodAutoscaler: s, Status: generic.NewSubresourceREST(s, statusStrategy)}, nil
}

// Map returns the storage by path: "horizontalpodautoscalers" and
// "horizontalpodautoscalers/status".
func (s *Storage) Map() map[string]rest.Storage {
	plural := s.HorizontalPodAutoscaler.DefaultQualifiedResource.Resource
	return map[string]rest.Storage{plural: s.HorizontalPodAutoscaler, plural + "/status": s.Status}
}
