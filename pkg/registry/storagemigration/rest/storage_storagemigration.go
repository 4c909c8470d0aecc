// Package rest declares the storagemigration.k8s.io API group.
package rest

import (
	storagemigrationv1 "k8s.io/api/storagemigration/v1"

	"github.com/kapi-dev/kapi/pkg/registry"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/storagemigration/storageversionmigration"
)

// StorageProvider declares the storagemigration.k8s.io group.
type StorageProvider struct{}

var _ registry.StorageProvider = StorageProvider{}

func (StorageProvider) GroupName() string { return storagemigrationv1.GroupName }

func (StorageProvider) GroupPriority() int { return 15800 }

// NewRESTStorage builds the storage of storagemigration.k8s.io/v1.
func (StorageProvider) NewRESTStorage(opts generic.RESTOptions, served func(version string) bool) (registry.VersionedStorage, error) {
	var g registry.GroupStorage
	if served("v1") {
		v1 := g.Version("v1")
		v1.Add(storageversionmigration.NewStorage(opts))
	}
	return g.Result()
}
