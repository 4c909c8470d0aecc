// Package rest declares the batch API group.
package rest

import (
	batchv1 "k8s.io/api/batch/v1"

	"github.com/kapi-dev/kapi/pkg/registry"
	"github.com/kapi-dev/kapi/pkg/registry/batch/cronjob"
	"github.com/kapi-dev/kapi/pkg/registry/batch/job"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
)

// StorageProvider declares the batch group.
type StorageProvider struct{}

var _ registry.StorageProvider = StorageProvider{}

func (StorageProvider) GroupName() string { return batchv1.GroupName }

func (StorageProvider) GroupPriority() int { return 17400 }

// NewRESTStorage builds the storage of batch/v1.
func (StorageProvider) NewRESTStorage(opts generic.RESTOptions, served func(version string) bool) (registry.VersionedStorage, error) {
	var g registry.GroupStorage
	if served("v1") {
		v1 := g.Version("v1")
		v1.Add(job.NewStorage(opts))
		v1.Add(cronjob.NewStorage(opts))
	}
	return g.Result()
}
