// Package csinode is the REST storage of storage.k8s.io/v1 csinodes and
// their /status.
package csinode

import (
	"context"

	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/pkg/apis/storage"
	"github.com/kapi-dev/kapi/pkg/features"
	"github.com/kapi-dev/kapi/pkg/registry/gated"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

// Strategy is the behaviour of CSI nodes, written by each node's kubelet
// with the resourceVersion it read. The status (storage health) is
// written through /status only, and only with the alpha gate
// CSIVolumeHealth, which kube-apiserver 1.37 leaves off: without it a
// status that was never set stays empty.
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
	gates features.Gates
}

func newStatusStrategy(gates features.Gates) statusStrategy {
	return statusStrategy{generic.StatusStrategy[*storagev1.CSINode]{
		SpecStrategy:             Strategy,
		KeepMetadata:             metav1.ResetObjectMetaForStatus,
		ResetPaths:               [][]string{{"metadata"}},
		ValidateStatusUpdateFunc: storage.ValidateCSINodeStatusUpdate,
	}, gates}
}

// PrepareForUpdate also drops the storage health a status write sets
// where there was none, unless the gates serve it.
func (s statusStrategy) PrepareForUpdate(ctx context.Context, obj, old runtime.Object) {
	s.StatusStrategy.PrepareForUpdate(ctx, obj, old)
	gated.CSINodeStatus(s.gates, &obj.(*storagev1.CSINode).Status, &old.(*storagev1.CSINode).Status)
}

// Storage is the REST storage of CSI nodes and their status.
type Storage struct {
	CSINode *generic.Store
	Status  *generic.SubresourceREST
}

// NewStorage returns the storage of CSI nodes.
func NewStorage(opts generic.RESTOptions, gates features.Gates) (*Storage, error) {
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
	return &Storage{CSINode: s, Status: generic.NewSubresourceREST(s, newStatusStrategy(gates))}, nil
}

// Map returns the storage by path: "csinodes" and "csinodes/status".
func (s *Storage) Map() map[string]rest.Storage {
	plural := s.CSINode.DefaultQualifiedResource.Resource
	return map[string]rest.Storage{plural: s.CSINode, plural + "/status": s.Status}
}
