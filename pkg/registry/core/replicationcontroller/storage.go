// Package replicationcontroller is the REST storage of core/v1
// replicationcontrollers and of their /status and /scale subresources.
package replicationcontroller

import (
	"context"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/kapi-dev/kapi/pkg/apis/core"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

type strategy struct{ generic.DefaultStrategy }

// Strategy is the behaviour of replication controllers: metadata.generation
// counts changes of the spec, and the status is written through /status
// only.
var Strategy = strategy{generic.DefaultStrategy{Namespaced: true}}

// DefaultGarbageCollectionPolicy orphans a controller's pods unless the
// delete says otherwise: core/v1 keeps the behaviour it had before
// garbage collection, as in kube-apiserver.
func (strategy) DefaultGarbageCollectionPolicy(context.Context) rest.GarbageCollectionPolicy {
	return rest.OrphanDependents
}

func (strategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	rc := obj.(*corev1.ReplicationController)
	rc.Status = corev1.ReplicationControllerStatus{}
	rc.Generation = 1
}

// GetResetFields is the status, written through /status only.
func (strategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return generic.ResetFields("v1", []string{"status"})
}

func (strategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	rc, oldRC := obj.(*corev1.ReplicationController), old.(*corev1.ReplicationController)
	rc.Status = oldRC.Status
	rc.Generation = oldRC.Generation
	if !apiequality.Semantic.DeepEqual(rc.Spec, oldRC.Spec) {
		rc.Generation++
	}
}

func (strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return core.ValidateReplicationController(obj.(*corev1.ReplicationController))
}

func (strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return core.ValidateReplicationControllerUpdate(obj.(*corev1.ReplicationController), old.(*corev1.ReplicationController))
}

// WarningsOnCreate are the warnings of the pod template.
func (strategy) WarningsOnCreate(_ context.Context, obj runtime.Object) []string {
	rc := obj.(*corev1.ReplicationController)
	return core.PodTemplateWarnings(field.NewPath("spec", "template"), rc.Spec.Template)
}

// WarningsOnUpdate are the warnings of the pod template, when the spec
// changed.
func (strategy) WarningsOnUpdate(_ context.Context, obj, old runtime.Object) []string {
	rc := obj.(*corev1.ReplicationController)
	return core.PodTemplateUpdateWarnings(field.NewPath("spec", "template"), rc.Spec.Template, rc.Generation, old.(*corev1.ReplicationController).Generation)
}

type statusStrategy struct{ strategy }

// GetResetFields is what /status keeps: the spec. Unlike the apps
// workloads, kube-apiserver lets /status change a controller's metadata.
func (statusStrategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return generic.ResetFields("v1", []string{"spec"})
}

func (statusStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	rc, oldRC := obj.(*corev1.ReplicationController), old.(*corev1.ReplicationController)
	rc.Spec = oldRC.Spec
	rc.Generation = oldRC.Generation
}

func (statusStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return core.ValidateReplicationControllerStatusUpdate(obj.(*corev1.ReplicationController), old.(*corev1.ReplicationController))
}

// Storage is the REST storage of replicationcontrollers and their
// subresources.
type Storage struct {
	ReplicationController *generic.Store
	Status                *generic.SubresourceREST
	Scale                 *generic.ScaleREST
}

// NewStorage returns the storage of replicationcontrollers.
func NewStorage(opts generic.RESTOptions) (*Storage, error) {
	s := &generic.Store{
		NewFunc:                   func() runtime.Object { return &corev1.ReplicationController{} },
		NewListFunc:               func() runtime.Object { return &corev1.ReplicationControllerList{} },
		DefaultQualifiedResource:  corev1.Resource("replicationcontrollers"),
		SingularQualifiedResource: corev1.Resource("replicationcontroller"),
		KeyPrefix:                 "/controllers",
		FieldsFunc: func(obj runtime.Object) fields.Set {
			return fields.Set{"status.replicas": strconv.Itoa(int(obj.(*corev1.ReplicationController).Status.Replicas))}
		},
		CreateStrategy: Strategy,
		UpdateStrategy: Strategy,
		DeleteStrategy: Strategy,
		ShortNamesList: []string{"rc"},
		CategoriesList: []string{"all"},
	}
	if err := opts.Complete(s, corev1.SchemeGroupVersion); err != nil {
		return nil, err
	}
	return &Storage{
		ReplicationController: s,
		Status:                generic.NewSubresourceREST(s, statusStrategy{}),
		Scale:                 generic.NewScaleREST(s, scalable),
	}, nil
}

// Map returns the storage by path: "replicationcontrollers" and its
// "/status" and "/scale".
func (s *Storage) Map() map[string]rest.Storage {
	plural := s.ReplicationController.DefaultQualifiedResource.Resource
	return map[string]rest.Storage{
		plural:             s.ReplicationController,
		plural + "/status": s.Status,
		plural + "/scale":  s.Scale,
	}
}
