// Package csinode is the REST storage of storage.k8s.io/v1 csinodes and
// their /status.
package csinode

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

// Strategy is the behaviour of CSI nodes, written by each node's kubelet
// with the resourceVersion it read. The status (storage health) is
// written through /status only, and only with the alpha gate
// CSIVolumeHealth, which kube-apiserver 1.37 leaves off: a status that
// was never set stays empty.
var Strategy = strategy{generic.DefaultStrategy{RequireResourceVersionOnUpdate: true}}

// GetResetFields is the status, written through /status only.
func (strategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return generic.ResetFields("storage.k8s.io/v1", []string{"status"})
}

func (strategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	obj.(*storagev1.CSINode).Status = storagev1.CSINodeStatus{}
}

func (strategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	obj.(*storagev1.CSINode).Status = old.(*storagev1.CSINode).Status
}

func (strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return storage.ValidateCSINode(obj.(*storagev1.CSINode))
}

func (strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return storage.ValidateCSINodeUpdate(obj.(*storagev1.CSINode), old.(*storagev1.CSINode))
}

type statusStrategy struct{ strategy }

// GetResetFields is what /status keeps: the metadata and the spec.
func (statusStrategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return generic.ResetFields("storage.k8s.io/v1", []string{"metadata"}, []string{"spec"})
}

func (statusStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	n, oldN := obj.(*storagev1.CSINode), old.(*storagev1.CSINode)
	n.Spec = oldN.Spec
	metav1.ResetObjectMetaForStatus(&n.ObjectMeta, &oldN.ObjectMeta)
	if len(oldN.Status.StorageHealth) == 0 {
		n.Status.StorageHealth = nil
	}
}

func (statusStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return storage.ValidateCSINodeStatusUpdate(obj.(*storagev1.CSINode), old.(*storagev1.CSINode))
}

// Storage is the REST storage of CSI nodes and their status.
type Storage struct {
	CSINode *generic.Store
	Status  *generic.SubresourceREST
}

// NewStorage returns the storage of CSI nodes.
func NewStorage(opts generic.RESTOptions) (*Storage, error) {
	s := &generic.Store{
		NewFunc:                   func() runtime.Object { return &storagev1.CSINode{} },
		NewListFunc:               func() runtime.Object { return &storagev1.CSINodeList{} },
		DefaultQualifiedResource:  storagev1.Resource("csinodes"),
		SingularQualifiedResource: storagev1.Resource("csinode"),
		KeyPrefix:                 "/csinodes",
		CreateStrategy:            Strategy,
		UpdateStrategy:            Strategy,
		DeleteStrategy:            Strategy,
		ReturnDeletedObject:       true,
	}
	if err := opts.Complete(s, storagev1.SchemeGroupVersion); err != nil {
		return nil, err
	}
	return &Storage{CSINode: s, Status: generic.NewSubresourceREST(s, statusStrategy{Strategy})}, nil
}

// Map returns the storage by path: "csinodes" and "csinodes/status".
func (s *Storage) Map() map[string]rest.Storage {
	plural := s.CSINode.DefaultQualifiedResource.Resource
	return map[string]rest.Storage{plural: s.CSINode, plural + "/status": s.Status}
}
