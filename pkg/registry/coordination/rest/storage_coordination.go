// Package rest declares the coordination.k8s.io API group.
package rest

import (
	coordinationv1 "k8s.io/api/coordination/v1"

	"github.com/kapi-dev/kapi/pkg/features"
	"github.com/kapi-dev/kapi/pkg/registry"
	"github.com/kapi-dev/kapi/pkg/registry/coordination/lease"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
)

// StorageProvider declares the coordination.k8s.io group.
type StorageProvider struct {
	// Gates decide which gated fields are kept (--feature-gates); the
	// zero value is kube-apiserver's defaults.
	Gates features.Gates
}

var _ registry.StorageProvider = StorageProvider{}

func (StorageProvider) GroupName() string { return coordinationv1.GroupName }

func (StorageProvider) GroupPriority() int { return 16500 }

// NewRESTStorage builds the storage of coordination.k8s.io/v1.
func (p StorageProvider) NewRESTStorage(opts generic.RESTOptions, served func(version string) bool) (registry.VersionedStorage, error) {
	var g registry.GroupStorage
	if served("v1") {
		v1 := g.Version("v1")
		v1.Add(lease.NewStorage(opts, p.Gates))
	}
	return g.Result()
}
