// Package statefulset is the REST storage of apps/v1 statefulsets and of
// their /status and /scale subresources.
package statefulset

import (
	"context"
	"k8s.io/apimachinery/pkg/util/validation/field"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/pkg/apis/apps"
	"github.com/kapi-dev/kapi/pkg/apis/core"
	"github.com/kapi-dev/kapi/pkg/features"
	"github.com/kapi-dev/kapi/pkg/registry/gated"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

type strategy struct {
	generic.SpecStrategy[*appsv1.StatefulSet]
}

// Strategy is the behaviour of statefulsets: metadata.generation counts
// changes of the spec, and the status is written only through /status.
var Strategy = newStrategy(features.Gates{})

// newStrategy is Strategy for gates, which decide the fields of the pod
// template that are kept.
func newStrategy(gates features.Gates) strategy {
	return strategy{generic.SpecStrategy[*appsv1.StatefulSet]{
		DefaultStrategy:    generic.DefaultStrategy{Namespaced: true},
		APIVersions:        []string{"apps/v1"},
		Spec:               generic.FieldPart(func(ss *appsv1.StatefulSet) *appsv1.StatefulSetSpec { return &ss.Spec }),
		Status:             generic.FieldPart(func(ss *appsv1.StatefulSet) *appsv1.StatefulSetStatus { return &ss.Status }),
		CountGenerations:   true,
		ValidateFunc:       apps.ValidateStatefulSet,
		ValidateUpdateFunc: apps.ValidateStatefulSetUpdate,
		DropDisabled:       gated.Template(gates, func(ss *appsv1.StatefulSet) *corev1.PodTemplateSpec { return &ss.Spec.Template }),
	}}
}

// WarningsOnCreate are those of the pod template, the claim templates and
// the spec.
func (strategy) WarningsOnCreate(_ context.Context, obj runtime.Object) []string {
	ss := obj.(*appsv1.StatefulSet)
	warnings := core.PodTemplateWarnings(field.NewPath("spec", "template"), &ss.Spec.Template)
	for i := range ss.Spec.VolumeClaimTemplates {
		warnings = append(warnings, core.ClaimSpecWarnings(field.NewPath("spec", "volumeClaimTemplates").Index(i), &ss.Spec.VolumeClaimTemplates[i].Spec)...)
	}
	return append(warnings, apps.StatefulSetWarnings(ss)...)
}

func (strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return apps.ValidateStatefulSetUpdate(obj.(*appsv1.StatefulSet), old.(*appsv1.StatefulSet))
}

// WarningsOnUpdate are those of the pod template when the spec changed,
// and those of the claim templates (at kube-apiserver's path, which names
// their spec "Spec") and the spec.
func (strategy) WarningsOnUpdate(_ context.Context, obj, old runtime.Object) []string {
	ss := obj.(*appsv1.StatefulSet)
	warnings := core.PodTemplateUpdateWarnings(field.NewPath("spec", "template"), &ss.Spec.Template, ss.Generation, old.(*appsv1.StatefulSet).Generation)
	for i := range ss.Spec.VolumeClaimTemplates {
		warnings = append(warnings, core.ClaimSpecWarnings(field.NewPath("spec", "volumeClaimTemplates").Index(i).Child("Spec"), &ss.Spec.VolumeClaimTemplates[i].Spec)...)
	}
	return append(warnings, apps.StatefulSetWarnings(ss)...)
}

var statusStrategy = generic.StatusStrategy[*appsv1.StatefulSet]{
	SpecStrategy:             Strategy.SpecStrategy,
	ValidateStatusUpdateFunc: apps.ValidateStatefulSetStatusUpdate,
}

// scalable is how statefulsets/scale reads and writes a statefulset.
var scalable = generic.Scalable{
	GroupVersion: appsv1.SchemeGroupVersion,
	Replicas: func(obj runtime.Object) (generic.Replicas, error) {
		ss := obj.(*appsv1.StatefulSet)
		selector, err := metav1.LabelSelectorAsSelector(ss.Spec.Selector)
		if err != nil {
			return generic.Replicas{}, err
		}
		return generic.Replicas{Spec: ptr.Deref(ss.Spec.Replicas, 0), Status: ss.Status.Replicas, Selector: selector.String()}, nil
	},
	SetReplicas: func(obj runtime.Object, replicas int32) { obj.(*appsv1.StatefulSet).Spec.Replicas = &replicas },
}

// Storage is the REST storage of statefulsets and their subresources.
type Storage struct {
	StatefulSet *generic.Store
	Status      *generic.SubresourceREST
	Scale       *generic.ScaleREST
}

// NewStorage returns the storage of statefulsets.
func NewStorage(opts generic.RESTOptions, gates features.Gates) (*Storage, error) {
	st := newStrategy(gates)
	s := &generic.Store{
		NewFunc:                   func() runtime.Object { return &appsv1.StatefulSet{} },
		NewListFunc:               func() runtime.Object { return &appsv1.StatefulSetList{} },
		DefaultQualifiedResource:  appsv1.Resource("statefulsets"),
		SingularQualifiedResource: appsv1.Resource("statefulset"),
		KeyPrefix:                 "/statefulsets",
		CreateStrategy:            st,
		UpdateStrategy:            st,
		DeleteStrategy:            st,
		ShortNamesList:            []string{"sts"},
		CategoriesList:            []string{"all"},
	}
	if err := opts.Complete(s, appsv1.SchemeGroupVersion); err != nil {
		return nil, err
	}
	return &Storage{
		StatefulSet: s,
		Status:      generic.NewSubresourceREST(s, statusStrategy),
		Scale:       generic.NewScaleREST(s, scalable),
	}, nil
}

// Map returns the storage by path: "statefulsets", "statefulsets/status"
// and "statefulsets/scale".
func (s *Storage) Map() map[string]rest.Storage {
	plural := s.StatefulSet.DefaultQualifiedResource.Resource
	return map[string]rest.Storage{
		plural:             s.StatefulSet,
		plural + "/status": s.Status,
		plural + "/scale":  s.Scale,
	}
}
