// Package persistentvolumeclaim is the REST storage of core/v1
// persistentvolumeclaims and their /status.
package persistentvolumeclaim

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/kapi-dev/kapi/pkg/apis/core"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

type strategy struct{ generic.DefaultStrategy }

// Strategy is the behaviour of claims: the spec is fixed at creation
// (see core.ValidatePersistentVolumeClaimUpdate for what may change), the
// status is the binder's, written through /status only.
var Strategy = strategy{generic.DefaultStrategy{Namespaced: true}}

func (strategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	pvc := obj.(*corev1.PersistentVolumeClaim)
	pvc.Status = corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimPending}
	core.NormalizeClaimDataSources(&pvc.Spec, nil)
}

// GetResetFields is the status, written through /status only.
func (strategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return generic.ResetFields("v1", []string{"status"})
}

func (strategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	pvc, oldPVC := obj.(*corev1.PersistentVolumeClaim), old.(*corev1.PersistentVolumeClaim)
	pvc.Status = oldPVC.Status
	core.NormalizeClaimDataSources(&pvc.Spec, &oldPVC.Spec)
}

func (strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return core.ValidatePersistentVolumeClaim(obj.(*corev1.PersistentVolumeClaim))
}

func (strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return core.ValidatePersistentVolumeClaimUpdate(obj.(*corev1.PersistentVolumeClaim), old.(*corev1.PersistentVolumeClaim))
}

func (strategy) WarningsOnCreate(_ context.Context, obj runtime.Object) []string {
	return core.PersistentVolumeClaimWarnings(obj.(*corev1.PersistentVolumeClaim))
}

func (strategy) WarningsOnUpdate(_ context.Context, obj, _ runtime.Object) []string {
	return core.PersistentVolumeClaimWarnings(obj.(*corev1.PersistentVolumeClaim))
}

type statusStrategy struct{ strategy }

// GetResetFields is what /status keeps: the spec.
func (statusStrategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return generic.ResetFields("v1", []string{"spec"})
}

func (statusStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	obj.(*corev1.PersistentVolumeClaim).Spec = old.(*corev1.PersistentVolumeClaim).Spec
}

func (statusStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return core.ValidatePersistentVolumeClaimStatusUpdate(obj.(*corev1.PersistentVolumeClaim), old.(*corev1.PersistentVolumeClaim))
}

func (statusStrategy) WarningsOnUpdate(context.Context, runtime.Object, runtime.Object) []string {
	return nil
}

// Storage is the REST storage of persistentvolumeclaims and their /status.
type Storage struct {
	PersistentVolumeClaim *generic.Store
	Status                *generic.SubresourceREST
}

// NewStorage returns the storage of persistentvolumeclaims.
func NewStorage(opts generic.RESTOptions) (*Storage, error) {
	s := &generic.Store{
		NewFunc:                   func() runtime.Object { return &corev1.PersistentVolumeClaim{} },
		NewListFunc:               func() runtime.Object { return &corev1.PersistentVolumeClaimList{} },
		DefaultQualifiedResource:  corev1.Resource("persistentvolumeclaims"),
		SingularQualifiedResource: corev1.Resource("persistentvolumeclaim"),
		KeyPrefix:                 "/persistentvolumeclaims",
		CreateStrategy:            Strategy,
		UpdateStrategy:            Strategy,
		DeleteStrategy:            Strategy,
		ShortNamesList:            []string{"pvc"},
		// As kube-apiserver, a delete answers with the deleted claim.
		ReturnDeletedObject: true,
	}
	if err := opts.Complete(s, corev1.SchemeGroupVersion); err != nil {
		return nil, err
	}
	return &Storage{PersistentVolumeClaim: s, Status: generic.NewSubresourceREST(s, statusStrategy{})}, nil
}

// Map returns the storage by path: "persistentvolumeclaims" and
// "persistentvolumeclaims/status".
func (s *Storage) Map() map[string]rest.Storage {
	plural := s.PersistentVolumeClaim.DefaultQualifiedResource.Resource
	return map[string]rest.Storage{plural: s.PersistentVolumeClaim, plural + "/status": s.Status}
}
