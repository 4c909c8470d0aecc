// Package rest declares the node.k8s.io API group.
package rest

import (
	nodev1 "k8s.io/api/node/v1"

	"github.com/kapi-dev/kapi/pkg/registry"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/node/runtimeclass"
)

// StorageProvider declares the node.k8s.io group.
type StorageProvider struct{}

var _ registry.StorageProvider = StorageProvider{}

func (StorageProvider) GroupName() string { return nodev1.GroupName }

func (StorageProvider) GroupPriority() int { return 16300 }

// NewRESTStorage builds the storage of node.k8s.io/v1.
func (StorageProvider) NewRESTStorage(opts generic.RESTOptions, served func(version string) bool) (registry.VersionedStorage, error) {
	var g registry.GroupStorage
	if served("v1") {
		v1 := g.Version("v1")
		v1.Add(runtimeclass.NewStorage(opts))
	}
	return g.Result()
}
