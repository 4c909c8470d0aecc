// Package rest declares the batch API group.
package rest

import (
	batchv1 "k8s.io/api/batch/v1"

	"github.com/kapi-dev/kapi/pkg/features"
	"github.com/kapi-dev/kapi/pkg/registry"
	"github.com/kapi-dev/kapi/pkg/registry/batch/cronjob"
	"github.com/kapi-dev/kapi/pkg/registry/batch/job"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
)

// StorageProvider declares the batch group.
type StorageProvider struct {
	// Gates decide which gated fields are kept (--feature-gates); the
	// zero value is kube-apiserver's defaults.
	Gates features.Gates
}

var _ registry.StorageProvider = StorageProvider{}

func (StorageProvider) GroupName() string { return batchv1.GroupName }

func (StorageProvider) GroupPriority() int { return 17400 }

// NewRESTStorage builds the storage of batch/v1.
func (p StorageProvider) NewRESTStorage(opts generic.RESTOptions, served func(version string) bool) (registry.VersionedStorage, error) {
	var g registry.GroupStorage
	if served("v1") {
		v1 := g.Version("v1")
		v1.Add(job.NewStorage(opts, p.Gates))
		v1.Add(cronjob.NewStorage(opts, p.Gates))
	}
	return g.Result()
}
