// Package persistentvolume is the REST storage of core/v1
// persistentvolumes and their /status.
package persistentvolume

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/kapi-dev/kapi/pkg/apis/core"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

type strategy struct{ generic.DefaultStrategy }

// Strategy is the behaviour of persistent volumes: a new volume is Pending
// since the moment it was created, its status is written through /status
// only, and writes warn about deprecated plugins and labels.
var Strategy = strategy{generic.DefaultStrategy{}}

func (strategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	pv := obj.(*corev1.PersistentVolume)
	now := metav1.Now()
	pv.Status = corev1.PersistentVolumeStatus{Phase: corev1.VolumePending, LastPhaseTransitionTime: &now}
}

// GetResetFields is the status, written through /status only.
func (strategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return generic.ResetFields("v1", []string{"status"})
}

func (strategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	obj.(*corev1.PersistentVolume).Status = old.(*corev1.PersistentVolume).Status
}

func (strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return core.ValidatePersistentVolume(obj.(*corev1.PersistentVolume), nil)
}

func (strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return core.ValidatePersistentVolumeUpdate(obj.(*corev1.PersistentVolume), old.(*corev1.PersistentVolume))
}

func (strategy) WarningsOnCreate(_ context.Context, obj runtime.Object) []string {
	return core.PersistentVolumeWarnings(obj.(*corev1.PersistentVolume))
}

func (strategy) WarningsOnUpdate(_ context.Context, obj, _ runtime.Object) []string {
	return core.PersistentVolumeWarnings(obj.(*corev1.PersistentVolume))
}

type statusStrategy struct{ strategy }

// GetResetFields is what /status keeps: the spec.
func (statusStrategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return generic.ResetFields("v1", []string{"spec"})
}

// PrepareForUpdate keeps the spec and, when the phase changes, records
// when, unless the writer said so itself.
func (statusStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	pv, oldPV := obj.(*corev1.PersistentVolume), old.(*corev1.PersistentVolume)
	pv.Spec = oldPV.Spec
	if pv.Status.Phase != oldPV.Status.Phase &&
		(pv.Status.LastPhaseTransitionTime == nil || pv.Status.LastPhaseTransitionTime.Equal(oldPV.Status.LastPhaseTransitionTime)) {
		now := metav1.Now()
		pv.Status.LastPhaseTransitionTime = &now
	}
}

func (statusStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return core.ValidatePersistentVolumeStatusUpdate(obj.(*corev1.PersistentVolume), old.(*corev1.PersistentVolume))
}

func (statusStrategy) WarningsOnUpdate(context.Context, runtime.Object, runtime.Object) []string {
	return nil
}

// Storage is the REST storage of persistentvolumes and their /status.
type Storage struct {
	PersistentVolume *generic.Store
	Status           *generic.SubresourceREST
}

// NewStorage returns the storage of persistentvolumes.
func NewStorage(opts generic.RESTOptions) (*Storage, error) {
	s := &generic.Store{
		NewFunc:                   func() runtime.Object { return &corev1.PersistentVolume{} },
		NewListFunc:               func() runtime.Object { return &corev1.PersistentVolumeList{} },
		DefaultQualifiedResource:  corev1.Resource("persistentvolumes"),
		SingularQualifiedResource: corev1.Resource("persistentvolume"),
		KeyPrefix:                 "/persistentvolumes",
		CreateStrategy:            Strategy,
		UpdateStrategy:            Strategy,
		DeleteStrategy:            Strategy,
		ShortNamesList:            []string{"pv"},
		// As kube-apiserver, a delete answers with the deleted volume.
		ReturnDeletedObject: true,
	}
	if err := opts.Complete(s, corev1.SchemeGroupVersion); err != nil {
		return nil, err
	}
	return &Storage{PersistentVolume: s, Status: generic.NewSubresourceREST(s, statusStrategy{})}, nil
}

// Map returns the storage by path: "persistentvolumes" and
// "persistentvolumes/status".
func (s *Storage) Map() map[string]rest.Storage {
	plural := s.PersistentVolume.DefaultQualifiedResource.Resource
	return map[string]rest.Storage{plural: s.PersistentVolume, plural + "/status": s.Status}
}
