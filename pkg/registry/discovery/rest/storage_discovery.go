// Package rest declares the discovery.k8s.io API group.
package rest

import (
	discoveryv1 "k8s.io/api/discovery/v1"

	"github.com/kapi-dev/kapi/pkg/registry"
	"github.com/kapi-dev/kapi/pkg/registry/discovery/endpointslice"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
)

// StorageProvider declares the discovery.k8s.io group.
type StorageProvider struct{}

var _ registry.StorageProvider = StorageProvider{}

func (StorageProvider) GroupName() string { return discoveryv1.GroupName }

func (StorageProvider) GroupPriority() int { return 16200 }

// NewRESTStorage builds the storage of discovery.k8s.io/v1.
func (StorageProvider) NewRESTStorage(opts generic.RESTOptions, served func(version string) bool) (registry.VersionedStorage, error) {
	var g registry.GroupStorage
	if served("v1") {
		v1 := g.Version("v1")
		v1.Add(endpointslice.NewStorage(opts))
	}
	return g.Result()
}
