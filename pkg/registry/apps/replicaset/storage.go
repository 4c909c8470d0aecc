// Package replicaset is the REST storage of apps/v1 replicasets and of
// their /status and /scale subresources.
package replicaset

import (
	"context"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/pkg/apis/apps"
	"github.com/kapi-dev/kapi/pkg/apis/core"
	"github.com/kapi-dev/kapi/pkg/features"
	"github.com/kapi-dev/kapi/pkg/registry/gated"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

type strategy struct {
	generic.SpecStrategy[*appsv1.ReplicaSet]
}

// Strategy is the behaviour of replicasets: metadata.generation counts
// changes of the spec, and the status is written only through /status.
var Strategy = newStrategy(features.Gates{})

// newStrategy is Strategy for gates, which decide the fields of the pod
// template that are kept.
func newStrategy(gates features.Gates) strategy {
	return strategy{generic.SpecStrategy[*appsv1.ReplicaSet]{
		DefaultStrategy:    generic.DefaultStrategy{Namespaced: true},
		APIVersions:        []string{"apps/v1"},
		Spec:               generic.FieldPart(func(rs *appsv1.ReplicaSet) *appsv1.ReplicaSetSpec { return &rs.Spec }),
		Status:             generic.FieldPart(func(rs *appsv1.ReplicaSet) *appsv1.ReplicaSetStatus { return &rs.Status }),
		CountGenerations:   true,
		ValidateFunc:       apps.ValidateReplicaSet,
		ValidateUpdateFunc: apps.ValidateReplicaSetUpdate,
		DropDisabled:       gated.Template(gates, func(rs *appsv1.ReplicaSet) *corev1.PodTemplateSpec { return &rs.Spec.Template }),
	}}
}

// WarningsOnCreate are the warnings of the pod template.
func (strategy) WarningsOnCreate(_ context.Context, obj runtime.Object) []string {
	rs := obj.(*appsv1.ReplicaSet)
	return core.PodTemplateWarnings(field.NewPath("spec", "template"), &rs.Spec.Template)
}

// WarningsOnUpdate are the warnings of the pod template, when the spec
// changed.
func (strategy) WarningsOnUpdate(_ context.Context, obj, old runtime.Object) []string {
	rs := obj.(*appsv1.ReplicaSet)
	return core.PodTemplateUpdateWarnings(field.NewPath("spec", "template"), &rs.Spec.Template, rs.Generation, old.(*appsv1.ReplicaSet).Generation)
}

var statusStrategy = generic.StatusStrategy[*appsv1.ReplicaSet]{
	SpecStrategy:             Strategy.SpecStrategy,
	ValidateStatusUpdateFunc: apps.ValidateReplicaSetStatusUpdate,
}

// scalable is how replicasets/scale reads and writes a replicaset.
var scalable = generic.Scalable{
	GroupVersion: appsv1.SchemeGroupVersion,
	Replicas: func(obj runtime.Object) (generic.Replicas, error) {
		rs := obj.(*appsv1.ReplicaSet)
		selector, err := metav1.LabelSelectorAsSelector(rs.Spec.Selector)
		if err != nil {
			return generic.Replicas{}, err
		}
		return generic.Replicas{Spec: ptr.Deref(rs.Spec.Replicas, 0), Status: rs.Status.Replicas, Selector: selector.String()}, nil
	},
	SetReplicas: func(obj runtime.Object, replicas int32) { obj.(*appsv1.ReplicaSet).Spec.Replicas = &replicas },
}

// Storage is the REST storage of replicasets and their subresources.
type Storage struct {
	ReplicaSet *generic.Store
	Status     *generic.SubresourceREST
	Scale      *generic.ScaleREST
}

// NewStorage returns the storage of replicasets.
func NewStorage(opts generic.RESTOptions, gates features.Gates) (*Storage, error) {
	st := newStrategy(gates)
	s := &generic.Store{
		NewFunc:                   func() runtime.Object { return &appsv1.ReplicaSet{} },
		NewListFunc:               func() runtime.Object { return &appsv1.ReplicaSetList{} },
		DefaultQualifiedResource:  appsv1.Resource("replicasets"),
		SingularQualifiedResource: appsv1.Resource("replicaset"),
		KeyPrefix:                 "/replicasets",
		CreateStrategy:            st,
		UpdateStrategy:            st,
		DeleteStrategy:            st,
		ShortNamesList:            []string{"rs"},
		CategoriesList:            []string{"all"},
	}
	if err := opts.Complete(s, appsv1.SchemeGroupVersion); err != nil {
		return nil, err
	}
	return &Storage{
		ReplicaSet: s,
		Status:     generic.NewSubresourceREST(s, statusStrategy),
		Scale:      generic.NewScaleREST(s, scalable),
	}, nil
}

// Map returns the storage by path: "replicasets", "replicasets/status"
// and "replicasets/scale".
func (s *Storage) Map() map[string]rest.Storage {
	plural := s.ReplicaSet.DefaultQualifiedResource.Resource
	return map[string]rest.Storage{
		plural:             s.ReplicaSet,
		plural + "/status": s.Status,
		plural + "/scale":  s.Scale,
	}
}
