// Package horizontalpodautoscaler is the REST storage of
// HorizontalPodAutoscalers and of their /status, stored as autoscaling/v2
// and served in autoscaling/v2 and autoscaling/v1 (pkg/apis/autoscaling
// converts between the two).
package horizontalpodautoscaler

import (
	"context"
	"maps"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/kapi-dev/kapi/pkg/apis/autoscaling"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

type strategy struct{ generic.DefaultStrategy }

// Strategy is the behaviour of HPAs: metadata.generation counts changes
// of the spec (HPAGeneration is on by default), and the status is written
// only through /status.
var Strategy = strategy{generic.DefaultStrategy{Namespaced: true}}

func (strategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	hpa := obj.(*autoscalingv2.HorizontalPodAutoscaler)
	hpa.Status = autoscalingv2.HorizontalPodAutoscalerStatus{}
	hpa.Generation = 1
}

// servedVersions are the versions whose field managers see the reset
// fields.
var servedVersions = []string{"autoscaling/v1", "autoscaling/v2"}

func resetFields(path string) map[fieldpath.APIVersion]*fieldpath.Set {
	out := map[fieldpath.APIVersion]*fieldpath.Set{}
	for _, v := range servedVersions {
		maps.Copy(out, generic.ResetFields(v, []string{path}))
	}
	return out
}

// GetResetFields is the status, written through /status only.
func (strategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return resetFields("status")
}

func (strategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	hpa, oldHPA := obj.(*autoscalingv2.HorizontalPodAutoscaler), old.(*autoscalingv2.HorizontalPodAutoscaler)
	hpa.Status = oldHPA.Status
	if !apiequality.Semantic.DeepEqual(hpa.Spec, oldHPA.Spec) {
		hpa.Generation++
	}
}

func (strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return autoscaling.ValidateHorizontalPodAutoscaler(obj.(*autoscalingv2.HorizontalPodAutoscaler))
}

func (strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return autoscaling.ValidateHorizontalPodAutoscalerUpdate(obj.(*autoscalingv2.HorizontalPodAutoscaler), old.(*autoscalingv2.HorizontalPodAutoscaler))
}

type statusStrategy struct{ strategy }

// GetResetFields is what /status keeps: the spec.
func (statusStrategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return resetFields("spec")
}

func (statusStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	obj.(*autoscalingv2.HorizontalPodAutoscaler).Spec = old.(*autoscalingv2.HorizontalPodAutoscaler).Spec
}

func (statusStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return autoscaling.ValidateHorizontalPodAutoscalerStatusUpdate(obj.(*autoscalingv2.HorizontalPodAutoscaler), old.(*autoscalingv2.HorizontalPodAutoscaler))
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
	return &Storage{HorizontalPodAutoscaler: s, Status: generic.NewSubresourceREST(s, statusStrategy{Strategy})}, nil
}

// Map returns the storage by path: "horizontalpodautoscalers" and
// "horizontalpodautoscalers/status".
func (s *Storage) Map() map[string]rest.Storage {
	plural := s.HorizontalPodAutoscaler.DefaultQualifiedResource.Resource
	return map[string]rest.Storage{plural: s.HorizontalPodAutoscaler, plural + "/status": s.Status}
}
