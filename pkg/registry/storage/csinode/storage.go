// Package csinode is the REST storage of storage.k8s.io/v1 csinodes and
// their /status.
package csinode

import (
	"context"

	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/pkg/apis/storage"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

// Strategy is the behaviour of CSI nodes, written by each node's kubelet
// with the resourceVersion it read. The status (storage health) is
// written through /status only, and only with the alpha gate
// CSIVolumeHealth, which kube-apiserver 1.37 leaves off: a status that
// was never set stays empty.
var Strategy = generic.SpecStrategy[*storagev1.CSINode]{
	DefaultStrategy:    generic.DefaultStrategy{RequireResourceVersionOnUpdate: true},
	APIVersions:        []string{"storage.k8s.io/v1"},
	Spec:               generic.FieldPart(func(n *storagev1.CSINode) *storagev1.CSINodeSpec { return &n.Spec }),
	Status:             generic.FieldPart(func(n *storagev1.CSINode) *storagev1.CSINodeStatus { return &n.Status }),
	ValidateFunc:       storage.ValidateCSINode,
	ValidateUpdateFunc: storage.ValidateCSINodeUpdate,
}

type statusStrategy struct {
	generic.StatusStrategy[*storagev1.CSINode]
}

var csiNodeStatusStrategy = statusStrategy{generic.StatusStrategy[*storagev1.CSINode]{
	SpecStrategy:             Strategy,
	KeepMetadata:             metav1.ResetObjectMetaForStatus,
	ResetPaths:               [][]string{{"metadata"}},
	ValidateStatusUpdateFunc: storage.ValidateCSINodeStatusUpdate,
}}

// PrepareForUpdate also drops the storage health a status write sets
// where there was none: without CSIVolumeHealth it cannot be set.
func (s statusStrategy) PrepareForUpdate(ctx context.Context, obj, old runtime.Object) {
	s.StatusStrategy.PrepareForUpdate(ctx, obj, old)
	if len(old.(*storagev1.CSINode).Status.StorageHealth) == 0 {
		obj.(*storagev1.CSINode).Status.StorageHealth = nil
	}
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
	return &Storage{CSINode: s, Status: generic.NewSubresourceREST(s, csiNodeStatusStrategy)}, nil
}

// Map returns the storage by path: "csinodes" and "csinodes/status".
func (s *Storage) Map() map[string]rest.Storage {
	plural := s.CSINode.DefaultQualifiedResource.Resource
	return map[string]rest.Storage{plural: s.CSINode, plural + "/status": s.Status}
}
