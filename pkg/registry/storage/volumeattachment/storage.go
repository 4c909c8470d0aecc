// Package volumeattachment is the REST storage of storage.k8s.io/v1
// volumeattachments and their /status.
package volumeattachment

import (
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/pkg/apis/storage"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

// Strategy is the behaviour of volume attachments: the attach/detach
// controller creates them with a fixed spec, the CSI attacher reports
// through /status, and every update names the resourceVersion it read.
// The spec cannot change, so nothing counts generations.
var Strategy = generic.SpecStrategy[*storagev1.VolumeAttachment]{
	DefaultStrategy:    generic.DefaultStrategy{RequireResourceVersionOnUpdate: true},
	APIVersions:        []string{"storage.k8s.io/v1"},
	Spec:               generic.FieldPart(func(va *storagev1.VolumeAttachment) *storagev1.VolumeAttachmentSpec { return &va.Spec }),
	Status:             generic.FieldPart(func(va *storagev1.VolumeAttachment) *storagev1.VolumeAttachmentStatus { return &va.Status }),
	ValidateFunc:       storage.ValidateVolumeAttachment,
	ValidateUpdateFunc: storage.ValidateVolumeAttachmentUpdate,
}

var statusStrategy = generic.StatusStrategy[*storagev1.VolumeAttachment]{
	SpecStrategy:             Strategy,
	KeepMetadata:             metav1.ResetObjectMetaForStatus,
	ResetPaths:               [][]string{{"metadata"}},
	ValidateStatusUpdateFunc: storage.ValidateVolumeAttachmentStatusUpdate,
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
	return &Storage{VolumeAttachment: s, Status: generic.NewSubresourceREST(s, statusStrategy)}, nil
}

// Map returns the storage by path: "volumeattachments" and
// "volumeattachments/status".
func (s *Storage) Map() map[string]rest.Storage {
	plural := s.VolumeAttachment.DefaultQualifiedResource.Resource
	return map[string]rest.Storage{plural: s.VolumeAttachment, plural + "/status": s.Status}
}
