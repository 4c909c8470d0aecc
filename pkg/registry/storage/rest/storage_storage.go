// Package rest declares the storage.k8s.io API group.
package rest

import (
	storagev1 "k8s.io/api/storage/v1"

	"github.com/kapi-dev/kapi/pkg/features"
	"github.com/kapi-dev/kapi/pkg/registry"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/storage/csidriver"
	"github.com/kapi-dev/kapi/pkg/registry/storage/csinode"
	"github.com/kapi-dev/kapi/pkg/registry/storage/csistoragecapacity"
	"github.com/kapi-dev/kapi/pkg/registry/storage/storageclass"
	"github.com/kapi-dev/kapi/pkg/registry/storage/volumeattachment"
	"github.com/kapi-dev/kapi/pkg/registry/storage/volumeattributesclass"
)

// StorageProvider declares the storage.k8s.io group.
type StorageProvider struct {
	// Gates decide which gated fields are kept (--feature-gates); the
	// zero value is kube-apiserver's defaults.
	Gates features.Gates
}

var _ registry.StorageProvider = StorageProvider{}

func (StorageProvider) GroupName() string { return storagev1.GroupName }

func (StorageProvider) GroupPriority() int { return 16800 }

// NewRESTStorage builds the storage of storage.k8s.io/v1.
func (p StorageProvider) NewRESTStorage(opts generic.RESTOptions, served func(version string) bool) (registry.VersionedStorage, error) {
	var g registry.GroupStorage
	if served("v1") {
		v1 := g.Version("v1")
		v1.Add(storageclass.NewStorage(opts))
		v1.Add(volumeattachment.NewStorage(opts))
		v1.Add(csinode.NewStorage(opts, p.Gates))
		v1.Add(csidriver.NewStorage(opts))
		v1.Add(csistoragecapacity.NewStorage(opts))
		v1.Add(volumeattributesclass.NewStorage(opts))
	}
	return g.Result()
}
