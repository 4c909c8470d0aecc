// Package devicetaintrule is the REST storage of resource.k8s.io/v1
// devicetaintrules and their /status.
package devicetaintrule

import (
	"context"
	"time"

	resourcev1 "k8s.io/api/resource/v1"
	resourcev1beta2 "k8s.io/api/resource/v1beta2"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/kapi-dev/kapi/pkg/apis/resource"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

type strategy struct{ generic.DefaultStrategy }

// Strategy is the behaviour of taint rules: metadata.generation counts
// changes of the spec, a new effect restamps the taint's time unless the
// writer set one, the status is written only through /status, and in v1
// an update must name the resourceVersion it was computed from.
var Strategy = strategy{generic.DefaultStrategy{RequireResourceVersionOnUpdate: true}}

func (strategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	r := obj.(*resourcev1.DeviceTaintRule)
	r.Status = resourcev1.DeviceTaintRuleStatus{}
	r.Generation = 1
}

// GetResetFields is the status, written through /status only.
func (strategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return generic.ResetFields("resource.k8s.io/v1", []string{"status"})
}

func (strategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	r, oldR := obj.(*resourcev1.DeviceTaintRule), old.(*resourcev1.DeviceTaintRule)
	r.Status = oldR.Status
	if r.Spec.Taint.Effect != oldR.Spec.Taint.Effect && r.Spec.Taint.TimeAdded.Equal(oldR.Spec.Taint.TimeAdded) {
		r.Spec.Taint.TimeAdded = &metav1.Time{Time: time.Now().Truncate(time.Second)}
	}
	r.Generation = oldR.Generation
	if !apiequality.Semantic.DeepEqual(r.Spec, oldR.Spec) {
		r.Generation++
	}
}

func (strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return resource.ValidateDeviceTaintRule(obj.(*resourcev1.DeviceTaintRule))
}

func (strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return resource.ValidateDeviceTaintRuleUpdate(obj.(*resourcev1.DeviceTaintRule), old.(*resourcev1.DeviceTaintRule))
}

type statusStrategy struct{ strategy }

// GetResetFields is what /status keeps: the metadata and the spec.
func (statusStrategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return generic.ResetFields("resource.k8s.io/v1", []string{"metadata"}, []string{"spec"})
}

// PrepareForUpdate keeps the spec and what a status write may not change
// of the metadata.
func (statusStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	r, oldR := obj.(*resourcev1.DeviceTaintRule), old.(*resourcev1.DeviceTaintRule)
	r.Spec = oldR.Spec
	metav1.ResetObjectMetaForStatus(&r.ObjectMeta, &oldR.ObjectMeta)
}

func (statusStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return resource.ValidateDeviceTaintRuleStatusUpdate(obj.(*resourcev1.DeviceTaintRule), old.(*resourcev1.DeviceTaintRule))
}

// Storage is the REST storage of devicetaintrules and their /status.
type Storage struct {
	DeviceTaintRule *generic.Store
	Status          *generic.SubresourceREST
}

// NewStorage returns the storage of devicetaintrules.
func NewStorage(opts generic.RESTOptions) (*Storage, error) {
	s := &generic.Store{
		NewFunc:                   func() runtime.Object { return &resourcev1.DeviceTaintRule{} },
		NewListFunc:               func() runtime.Object { return &resourcev1.DeviceTaintRuleList{} },
		DefaultQualifiedResource:  resourcev1.Resource("devicetaintrules"),
		SingularQualifiedResource: resourcev1.Resource("devicetaintrule"),
		KeyPrefix:                 "/devicetaintrules",
		// Stored as v1beta2, as kube-apiserver 1.37 stores them.
		StorageVersionKind: resourcev1beta2.SchemeGroupVersion.WithKind("DeviceTaintRule"),
		CreateStrategy:     Strategy,
		UpdateStrategy:     Strategy,
		DeleteStrategy:     Strategy,
	}
	if err := opts.Complete(s, resourcev1beta2.SchemeGroupVersion); err != nil {
		return nil, err
	}
	return &Storage{DeviceTaintRule: s, Status: generic.NewSubresourceREST(s, statusStrategy{Strategy})}, nil
}

// Map returns the storage by path: "devicetaintrules" and
// "devicetaintrules/status".
func (s *Storage) Map() map[string]rest.Storage {
	plural := s.DeviceTaintRule.DefaultQualifiedResource.Resource
	return map[string]rest.Storage{plural: s.DeviceTaintRule, plural + "/status": s.Status}
}
