// Package persistentvolume is the REST storage of core/v1
// persistentvolumes and their /status.
package persistentvolume

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/apis/core"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

type strategy struct {
	generic.SpecStrategy[*corev1.PersistentVolume]
}

// Strategy is the behaviour of persistent volumes: a new volume is Pending
// since the moment it was created, its status is written through /status
// only, and writes warn about deprecated plugins and labels.
var Strategy = strategy{generic.SpecStrategy[*corev1.PersistentVolume]{
	APIVersions:        []string{"v1"},
	Spec:               generic.FieldPart(func(pv *corev1.PersistentVolume) *corev1.PersistentVolumeSpec { return &pv.Spec }),
	Status:             generic.FieldPart(func(pv *corev1.PersistentVolume) *corev1.PersistentVolumeStatus { return &pv.Status }),
	ValidateFunc:       func(pv *corev1.PersistentVolume) field.ErrorList { return core.ValidatePersistentVolume(pv, nil) },
	ValidateUpdateFunc: core.ValidatePersistentVolumeUpdate,
}}

func (strategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	pv := obj.(*corev1.PersistentVolume)
	now := metav1.Now()
	pv.Status = corev1.PersistentVolumeStatus{Phase: corev1.VolumePending, LastPhaseTransitionTime: &now}
}

func (strategy) WarningsOnCreate(_ context.Context, obj runtime.Object) []string {
	return core.PersistentVolumeWarnings(obj.(*corev1.PersistentVolume))
}

func (strategy) WarningsOnUpdate(_ context.Context, obj, _ runtime.Object) []string {
	return core.PersistentVolumeWarnings(obj.(*corev1.PersistentVolume))
}

type statusStrategy struct {
	generic.StatusStrategy[*corev1.PersistentVolume]
}

var pvStatusStrategy = statusStrategy{generic.StatusStrategy[*corev1.PersistentVolume]{
	SpecStrategy:             Strategy.SpecStrategy,
	ValidateStatusUpdateFunc: core.ValidatePersistentVolumeStatusUpdate,
}}

// PrepareForUpdate keeps the spec and, when the phase changes, records
// when, unless the writer said so itself.
func (s statusStrategy) PrepareForUpdate(ctx context.Context, obj, old runtime.Object) {
	s.StatusStrategy.PrepareForUpdate(ctx, obj, old)
	pv, oldPV := obj.(*corev1.PersistentVolume), old.(*corev1.PersistentVolume)
	if pv.Status.Phase != oldPV.Status.Phase &&
		(pv.Status.LastPhaseTransitionTime == nil || pv.Status.LastPhaseTransitionTime.Equal(oldPV.Status.LastPhaseTransitionTime)) {
		now := metav1.Now()
		pv.Status.LastPhaseTransitionTime = &now
	}
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
	return &Storage{PersistentVolume: s, Status: generic.NewSubresourceREST(s, pvStatusStrategy)}, nil
}

// Map returns the storage by path: "persistentvolumes" and
// "persistentvolumes/status".
func (s *Storage) Map() map[string]rest.Storage {
	plural := s.PersistentVolume.DefaultQualifiedResource.Resource
	return map[string]rest.Storage{plural: s.PersistentVolume, plural + "/status": s.Status}
}
