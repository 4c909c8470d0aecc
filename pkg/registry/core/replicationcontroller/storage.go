// Package replicationcontroller is the REST storage of core/v1
// replicationcontrollers and of their /status and /scale subresources.
package replicationcontroller

import (
	"context"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/pkg/apis/core"
	"github.com/kapi-dev/kapi/pkg/features"
	"github.com/kapi-dev/kapi/pkg/registry/gated"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

type strategy struct {
	generic.SpecStrategy[*corev1.ReplicationController]
}

// Strategy is the behaviour of replication controllers: metadata.generation
// counts changes of the spec, and the status is written through /status
// only.
var Strategy = newStrategy(features.Gates{})

// newStrategy is Strategy for gates, which decide the fields of the pod
// template that are kept.
func newStrategy(gates features.Gates) strategy {
	return strategy{generic.SpecStrategy[*corev1.ReplicationController]{
		DefaultStrategy: generic.DefaultStrategy{Namespaced: true},
		APIVersions:     []string{"v1"},
		Spec: generic.FieldPart(func(rc *corev1.ReplicationController) *corev1.ReplicationControllerSpec {
			return &rc.Spec
		}),
		Status: generic.FieldPart(func(rc *corev1.ReplicationController) *corev1.ReplicationControllerStatus {
			return &rc.Status
		}),
		CountGenerations:   true,
		ValidateFunc:       core.ValidateReplicationController,
		ValidateUpdateFunc: core.ValidateReplicationControllerUpdate,
		DropDisabled:       gated.Template(gates, func(rc *corev1.ReplicationController) *corev1.PodTemplateSpec { return rc.Spec.Template }),
	}}
}

// DefaultGarbageCollectionPolicy orphans a controller's pods unless the
// delete says otherwise: core/v1 keeps the behaviour it had before
// garbage collection, as in kube-apiserver.
func (strategy) DefaultGarbageCollectionPolicy(context.Context) rest.GarbageCollectionPolicy {
	return rest.OrphanDependents
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

// statusStrategy keeps the spec; as for replicasets, kube-apiserver lets
// /status change a controller's metadata.
var statusStrategy = generic.StatusStrategy[*corev1.ReplicationController]{
	SpecStrategy:             Strategy.SpecStrategy,
	ValidateStatusUpdateFunc: core.ValidateReplicationControllerStatusUpdate,
}

// Storage is the REST storage of replicationcontrollers and their
// subresources.
type Storage struct {
	ReplicationController *generic.Store
	Status                *generic.SubresourceREST
	Scale                 *generic.ScaleREST
}

// NewStorage returns the storage of replicationcontrollers.
func NewStorage(opts generic.RESTOptions, gates features.Gates) (*Storage, error) {
	st := newStrategy(gates)
	s := &generic.Store{
		NewFunc:                   func() runtime.Object { return &corev1.ReplicationController{} },
		NewListFunc:               func() runtime.Object { return &corev1.ReplicationControllerList{} },
		DefaultQualifiedResource:  corev1.Resource("replicationcontrollers"),
		SingularQualifiedResource: corev1.Resource("replicationcontroller"),
		KeyPrefix:                 "/controllers",
		FieldsFunc: func(obj runtime.Object) fields.Set {
			return fields.Set{"status.replicas": strconv.Itoa(int(obj.(*corev1.ReplicationController).Status.Replicas))}
		},
		CreateStrategy: st,
		UpdateStrategy: st,
		DeleteStrategy: st,
		ShortNamesList: []string{"rc"},
		CategoriesList: []string{"all"},
	}
	if err := opts.Complete(s, corev1.SchemeGroupVersion); err != nil {
		return nil, err
	}
	return &Storage{
		ReplicationController: s,
		Status:                generic.NewSubresourceREST(s, statusStrategy),
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
