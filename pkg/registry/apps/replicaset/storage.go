// Package replicaset is the REST storage of apps/v1 replicasets and of
// their /status and /scale subresources.
package replicaset

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/kapi-dev/kapi/pkg/apis/apps"
	"github.com/kapi-dev/kapi/pkg/apis/core"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

type strategy struct{ generic.DefaultStrategy }

// Strategy is the behaviour of replicasets: metadata.generation counts
// changes of the spec, and the status is written only through /status.
var Strategy = strategy{generic.DefaultStrategy{Namespaced: true}}

func (strategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	rs := obj.(*appsv1.ReplicaSet)
	rs.Status = appsv1.ReplicaSetStatus{}
	rs.Generation = 1
}

// GetResetFields is the status, written through /status only.
func (strategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return generic.ResetFields("apps/v1", []string{"status"})
}

func (strategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	rs, oldRS := obj.(*appsv1.ReplicaSet), old.(*appsv1.ReplicaSet)
	rs.Status = oldRS.Status
	rs.Generation = oldRS.Generation
	if !apiequality.Semantic.DeepEqual(rs.Spec, oldRS.Spec) {
		rs.Generation++
	}
}

func (strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return apps.ValidateReplicaSet(obj.(*appsv1.ReplicaSet))
}

func (strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return apps.ValidateReplicaSetUpdate(obj.(*appsv1.ReplicaSet), old.(*appsv1.ReplicaSet))
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

type statusStrategy struct{ strategy }

// GetResetFields is what /status keeps: the spec.
func (statusStrategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return generic.ResetFields("apps/v1", []string{"spec"})
}

func (statusStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	rs, oldRS := obj.(*appsv1.ReplicaSet), old.(*appsv1.ReplicaSet)
	rs.Spec = oldRS.Spec
	rs.Generation = oldRS.Generation
}

func (statusStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return apps.ValidateReplicaSetStatusUpdate(obj.(*appsv1.ReplicaSet), old.(*appsv1.ReplicaSet))
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
func NewStorage(opts generic.RESTOptions) (*Storage, error) {
	s := &generic.Store{
		NewFunc:                   func() runtime.Object { return &appsv1.ReplicaSet{} },
		NewListFunc:               func() runtime.Object { return &appsv1.ReplicaSetList{} },
		DefaultQualifiedResource:  appsv1.Resource("replicasets"),
		SingularQualifiedResource: appsv1.Resource("replicaset"),
		KeyPrefix:                 "/replicasets",
		CreateStrategy:            Strategy,
		UpdateStrategy:            Strategy,
		DeleteStrategy:            Strategy,
		ShortNamesList:            []string{"rs"},
		CategoriesList:            []string{"all"},
	}
	if err := opts.Complete(s, appsv1.SchemeGroupVersion); err != nil {
		return nil, err
	}
	return &Storage{
		ReplicaSet: s,
		Status:     generic.NewSubresourceREST(s, statusStrategy{}),
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
