// Package rest declares the scheduling.k8s.io API group.
package rest

import (
	schedulingv1 "k8s.io/api/scheduling/v1"

	"github.com/kapi-dev/kapi/pkg/registry"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/scheduling/priorityclass"
)

// StorageProvider declares the scheduling.k8s.io group.
type StorageProvider struct{}

var _ registry.StorageProvider = StorageProvider{}

func (StorageProvider) GroupName() string { return schedulingv1.GroupName }

func (StorageProvider) GroupPriority() int { return 16600 }

// NewRESTStorage builds the storage of scheduling.k8s.io/v1.
func (StorageProvider) NewRESTStorage(opts generic.RESTOptions, served func(version string) bool) (registry.VersionedStorage, error) {
	var g registry.GroupStorage
	if served("v1") {
		v1 := g.Version("v1")
		v1.Add(priorityclass.NewStorage(opts))
	}
	return g.Result()
}
