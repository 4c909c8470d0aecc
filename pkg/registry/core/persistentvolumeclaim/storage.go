// Package persistentvolumeclaim is the REST storage of core/v1
// persistentvolumeclaims and their /status.
package persistentvolumeclaim

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/pkg/apis/core"
	"github.com/kapi-dev/kapi/pkg/features"
	"github.com/kapi-dev/kapi/pkg/registry/gated"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

type strategy struct {
	generic.SpecStrategy[*corev1.PersistentVolumeClaim]
}

// Strategy is the behaviour of claims: the spec is fixed at creation
// (see core.ValidatePersistentVolumeClaimUpdate for what may change), the
// status is the binder's, written through /status only.
var Strategy = newStrategy(features.Gates{})

// newStrategy is Strategy for gates, which decide the gated fields of
// the spec that are kept.
func newStrategy(gates features.Gates) strategy {
	return strategy{generic.SpecStrategy[*corev1.PersistentVolumeClaim]{
		DefaultStrategy: generic.DefaultStrategy{Namespaced: true},
		APIVersions:     []string{"v1"},
		Spec: generic.FieldPart(func(pvc *corev1.PersistentVolumeClaim) *corev1.PersistentVolumeClaimSpec {
			return &pvc.Spec
		}),
		Status: generic.FieldPart(func(pvc *corev1.PersistentVolumeClaim) *corev1.PersistentVolumeClaimStatus {
			return &pvc.Status
		}),
		DropDisabled: func(pvc, old *corev1.PersistentVolumeClaim) {
			var oldSpec *corev1.PersistentVolumeClaimSpec
			if old != nil {
				oldSpec = &old.Spec
			}
			gated.ClaimSpec(gates, &pvc.Spec, oldSpec)
		},
		ValidateFunc:       core.ValidatePersistentVolumeClaim,
		ValidateUpdateFunc: core.ValidatePersistentVolumeClaimUpdate,
	}}
}

// PrepareForCreate starts the claim Pending, without the fields of
// disabled gates.
func (s strategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	pvc := obj.(*corev1.PersistentVolumeClaim)
	pvc.Status = corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimPending}
	s.DropDisabled(pvc, nil)
	core.NormalizeClaimDataSources(&pvc.Spec, nil)
}

func (s strategy) PrepareForUpdate(ctx context.Context, obj, old runtime.Object) {
	s.SpecStrategy.PrepareForUpdate(ctx, obj, old)
	core.NormalizeClaimDataSources(&obj.(*corev1.PersistentVolumeClaim).Spec, &old.(*corev1.PersistentVolumeClaim).Spec)
}

func (strategy) WarningsOnCreate(_ context.Context, obj runtime.Object) []string {
	return core.PersistentVolumeClaimWarnings(obj.(*corev1.PersistentVolumeClaim))
}

func (strategy) WarningsOnUpdate(_ context.Context, obj, _ runtime.Object) []string {
	return core.PersistentVolumeClaimWarnings(obj.(*corev1.PersistentVolumeClaim))
}

type statusStrategy struct {
	generic.StatusStrategy[*corev1.PersistentVolumeClaim]
	gates features.Gates
}

func newStatusStrategy(gates features.Gates) statusStrategy {
	return statusStrategy{generic.StatusStrategy[*corev1.PersistentVolumeClaim]{
		SpecStrategy:             Strategy.SpecStrategy,
		ValidateStatusUpdateFunc: core.ValidatePersistentVolumeClaimStatusUpdate,
	}, gates}
}

// PrepareForUpdate keeps the spec and drops the status fields of
// disabled gates that the old status does not have.
func (s statusStrategy) PrepareForUpdate(ctx context.Context, obj, old runtime.Object) {
	s.StatusStrategy.PrepareForUpdate(ctx, obj, old)
	gated.ClaimStatus(s.gates, &obj.(*corev1.PersistentVolumeClaim).Status, &old.(*corev1.PersistentVolumeClaim).Status)
}

// Storage is the REST storage of persistentvolumeclaims and their /status.
type Storage struct {
	PersistentVolumeClaim *generic.Store
	Status                *generic.SubresourceREST
}

// NewStorage returns the storage of persistentvolumeclaims.
func NewStorage(opts generic.RESTOptions, gates features.Gates) (*Storage, error) {
	st := newStrategy(gates)
	s := &generic.Store{
		NewFunc:                   func() runtime.Object { return &corev1.PersistentVolumeClaim{} },
		NewListFunc:               func() runtime.Object { return &corev1.PersistentVolumeClaimList{} },
		DefaultQualifiedResource:  corev1.Resource("persistentvolumeclaims"),
		SingularQualifiedResource: corev1.Resource("persistentvolumeclaim"),
		KeyPrefix:                 "/persistentvolumeclaims",
		CreateStrategy:            st,
		UpdateStrategy:            st,
		DeleteStrategy:            st,
		ShortNamesList:            []string{"pvc"},
		// As kube-apiserver, a delete answers with the deleted claim.
		ReturnDeletedObject: true,
	}
	if err := opts.Complete(s, corev1.SchemeGroupVersion); err != nil {
		return nil, err
	}
	return &Storage{PersistentVolumeClaim: s, Status: generic.NewSubresourceREST(s, newStatusStrategy(gates))}, nil
}

// Map returns the storage by path: "persistentvolumeclaims" and
// "persistentvolumeclaims/status".
func (s *Storage) Map() map[string]rest.Storage {
	plural := s.PersistentVolumeClaim.DefaultQualifiedResource.Resource
	return map[string]rest.Storage{plural: s.PersistentVolumeClaim, plural + "/status": s.Status}
}
