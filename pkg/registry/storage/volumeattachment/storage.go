// Package volumeattachment is the REST storage of storage.k8s.io/v1
// volumeattachments and their /status.
package volumeattachment

import (
	"context"

	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/kapi-dev/kapi/pkg/apis/storage"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

type strategy struct{ generic.DefaultStrategy }

// Strategy is the behaviour of volume attachments: the attach/detach
// controller creates them with a fixed spec, the CSI attacher reports
// through /status, and every update names the resourceVersion it read.
var Strategy = strategy{generic.DefaultStrategy{RequireResourceVersionOnUpdate: true}}

// GetResetFields is the status, written through /status only.
func (strategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return generic.ResetFields("storage.k8s.io/v1", []string{"status"})
}

func (strategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	obj.(*storagev1.VolumeAttachment).Status = storagev1.VolumeAttachmentStatus{}
}

// PrepareForUpdate keeps the status; the spec cannot change, so the
// generation never moves.
func (strategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	obj.(*storagev1.VolumeAttachment).Status = old.(*storagev1.VolumeAttachment).Status
}

func (strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return storage.ValidateVolumeAttachment(obj.(*storagev1.VolumeAttachment))
}

func (strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return storage.ValidateVolumeAttachmentUpdate(obj.(*storagev1.VolumeAttachment), old.(*storagev1.VolumeAttachment))
}

type statusStrategy struct{ strategy }

// GetResetFields is what /status keeps: the metadata and the spec.
func (statusStrategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return generic.ResetFields("storage.k8s.io/v1", []string{"metadata"}, []string{"spec"})
}

func (statusStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	va, oldVA := obj.(*storagev1.VolumeAttachment), old.(*storagev1.VolumeAttachment)
	va.Spec = oldVA.Spec
	metav1.ResetObjectMetaForStatus(&va.ObjectMeta, &oldVA.ObjectMeta)
}

func (statusStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return storage.ValidateVolumeAttachmentStatusUpdate(obj.(*storagev1.VolumeAttachment), old.(*storagev1.VolumeAttachment))
}

// Storage is the REST storage of volume attachments and their status.
type Storage struct {
	VolumeAttachment *generic.Store
	Status           *generic.SubresourceREST
}

// NewStorage returns the storage of volume attachments.
func NewStorage(opts generic.RESTOptions) (*Storage, error) {
	s := &generic.Store{
		NewFunc:                   func() runtime.Object { return &storagev1.VolumeAttachment{} },
		NewListFunc:               func() runtime.Object { return &storagev1.VolumeAttachmentList{} },
		DefaultQualifiedResource:  storagev1.Resource("volumeattachments"),
		SingularQualifiedResource: storagev1.Resource("volumeattachment"),
		KeyPrefix:                 "/volumeattachments",
		CreateStrategy:            Strategy,
		UpdateStrategy:            Strategy,
		DeleteStrategy:            Strategy,
		ReturnDeletedObject:       true,
	}
	if err := opts.Complete(s, storagev1.SchemeGroupVersion); err != nil {
		return nil, err
	}
	return &Storage{VolumeAttachment: s, Status: generic.NewSubresourceREST(s, statusStrategy{Strategy})}, nil
}

// Map returns the storage by path: "volumeattachments" and
// "volumeattachments/status".
func (s *Storage) Map() map[string]rest.Storage {
	plural := s.VolumeAttachment.DefaultQualifiedResource.Resource
	return map[string]rest.Storage{plural: s.VolumeAttachment, plural + "/status": s.Status}
}
