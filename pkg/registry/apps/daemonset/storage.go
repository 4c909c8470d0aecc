// Package daemonset is the REST storage of apps/v1 daemonsets and of their
// /status subresource.
package daemonset

import (
	"context"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/pkg/apis/apps"
	"github.com/kapi-dev/kapi/pkg/apis/core"
	"github.com/kapi-dev/kapi/pkg/features"
	"github.com/kapi-dev/kapi/pkg/registry/gated"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

type strategy struct {
	generic.SpecStrategy[*appsv1.DaemonSet]
}

// Strategy is the behaviour of daemonsets: metadata.generation counts
// changes of the spec, the annotation deprecated.daemonset.template.generation
// counts changes of the pod template (it is the templateGeneration field
// of the old extensions/v1beta1 API, which kube-apiserver still keeps and
// clients cannot set), and the status is written only through /status.
var Strategy = newStrategy(features.Gates{})

// newStrategy is Strategy for gates, which decide the fields of the pod
// template that are kept.
func newStrategy(gates features.Gates) strategy {
	return strategy{generic.SpecStrategy[*appsv1.DaemonSet]{
		DefaultStrategy:    generic.DefaultStrategy{Namespaced: true},
		APIVersions:        []string{"apps/v1"},
		Spec:               generic.FieldPart(func(ds *appsv1.DaemonSet) *appsv1.DaemonSetSpec { return &ds.Spec }),
		Status:             generic.FieldPart(func(ds *appsv1.DaemonSet) *appsv1.DaemonSetStatus { return &ds.Status }),
		CountGenerations:   true,
		ValidateFunc:       apps.ValidateDaemonSet,
		ValidateUpdateFunc: apps.ValidateDaemonSetUpdate,
		DropDisabled:       gated.Template(gates, func(ds *appsv1.DaemonSet) *corev1.PodTemplateSpec { return &ds.Spec.Template }),
	}}
}
func (s strategy) PrepareForCreate(ctx context.Context, obj runtime.Object) {
	s.SpecStrategy.PrepareForCreate(ctx, obj)
	ds := obj.(*appsv1.DaemonSet)
	// A template generation the client sent is kept, if it counts.
	setTemplateGeneration(ds, max(templateGeneration(ds), 1))
}

// templateGeneration is the template generation a daemonset records, 0
// when it has none (kube-apiserver refuses one that is not a number; kapi
// counts it as none).
func templateGeneration(ds *appsv1.DaemonSet) int64 {
	generation, _ := strconv.ParseInt(ds.Annotations[appsv1.DeprecatedTemplateGeneration], 10, 64)
	return generation
}

func setTemplateGeneration(ds *appsv1.DaemonSet, generation int64) {
	annotations := make(map[string]string, len(ds.Annotations)+1)
	for k, v := range ds.Annotations {
		annotations[k] = v
	}
	annotations[appsv1.DeprecatedTemplateGeneration] = strconv.FormatInt(generation, 10)
	ds.Annotations = annotations
}

func (s strategy) PrepareForUpdate(ctx context.Context, obj, old runtime.Object) {
	s.SpecStrategy.PrepareForUpdate(ctx, obj, old)
	ds, oldDS := obj.(*appsv1.DaemonSet), old.(*appsv1.DaemonSet)
	generation := templateGeneration(oldDS)
	if !apiequality.Semantic.DeepEqual(ds.Spec.Template, oldDS.Spec.Template) {
		generation++
	}
	setTemplateGeneration(ds, generation)
}

type statusStrategy struct {
	generic.StatusStrategy[*appsv1.DaemonSet]
}

var daemonSetStatusStrategy = statusStrategy{generic.StatusStrategy[*appsv1.DaemonSet]{
	SpecStrategy:             Strategy.SpecStrategy,
	ValidateStatusUpdateFunc: apps.ValidateDaemonSetStatusUpdate,
}}

// WarningsOnCreate are the warnings of the pod template.
func (strategy) WarningsOnCreate(_ context.Context, obj runtime.Object) []string {
	ds := obj.(*appsv1.DaemonSet)
	return core.PodTemplateWarnings(field.NewPath("spec", "template"), &ds.Spec.Template)
}

// WarningsOnUpdate are the warnings of the pod template, when the spec
// changed.
func (strategy) WarningsOnUpdate(_ context.Context, obj, old runtime.Object) []string {
	ds := obj.(*appsv1.DaemonSet)
	return core.PodTemplateUpdateWarnings(field.NewPath("spec", "template"), &ds.Spec.Template, ds.Generation, old.(*appsv1.DaemonSet).Generation)
}

// PrepareForUpdate also keeps the template generation, which goes with
// the spec.
func (s statusStrategy) PrepareForUpdate(ctx context.Context, obj, old runtime.Object) {
	s.StatusStrategy.PrepareForUpdate(ctx, obj, old)
	setTemplateGeneration(obj.(*appsv1.DaemonSet), templateGeneration(old.(*appsv1.DaemonSet)))
}

// Storage is the REST storage of daemonsets and their /status.
type Storage struct {
	DaemonSet *generic.Store
	Status    *generic.SubresourceREST
}

// NewStorage returns the storage of daemonsets.
func NewStorage(opts generic.RESTOptions, gates features.Gates) (*Storage, error) {
	st := newStrategy(gates)
	s := &generic.Store{
		NewFunc:                   func() runtime.Object { return &appsv1.DaemonSet{} },
		NewListFunc:               func() runtime.Object { return &appsv1.DaemonSetList{} },
		DefaultQualifiedResource:  appsv1.Resource("daemonsets"),
		SingularQualifiedResource: appsv1.Resource("daemonset"),
		KeyPrefix:                 "/daemonsets",
		CreateStrategy:            st,
		UpdateStrategy:            st,
		DeleteStrategy:            st,
		ShortNamesList:            []string{"ds"},
		CategoriesList:            []string{"all"},
	}
	if err := opts.Complete(s, appsv1.SchemeGroupVersion); err != nil {
		return nil, err
	}
	return &Storage{DaemonSet: s, Status: generic.NewSubresourceREST(s, daemonSetStatusStrategy)}, nil
}

// Map returns the storage by path: "daemonsets" and "daemonsets/status".
func (s *Storage) Map() map[string]rest.Storage {
	plural := s.DaemonSet.DefaultQualifiedResource.Resource
	return map[string]rest.Storage{plural: s.DaemonSet, plural + "/status": s.Status}
}
