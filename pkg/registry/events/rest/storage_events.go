// Package rest declares the events.k8s.io API group.
package rest

import (
	"github.com/kapi-dev/kapi/pkg/registry"
	"github.com/kapi-dev/kapi/pkg/registry/core/event"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
)

// StorageProvider declares the events.k8s.io group.
type StorageProvider struct{}

var _ registry.StorageProvider = StorageProvider{}

func (StorageProvider) GroupName() string { return "events.k8s.io" }

func (StorageProvider) GroupPriority() int { return 17750 }

// NewRESTStorage builds the storage of events.k8s.io/v1: the core group's
// events, the same objects under the same keys, served in the
// events.k8s.io/v1 form, as kube-apiserver does.
func (StorageProvider) NewRESTStorage(opts generic.RESTOptions, served func(version string) bool) (registry.VersionedStorage, error) {
	var g registry.GroupStorage
	if served("v1") {
		v1 := g.Version("v1")
		v1.Add(event.NewStorage(opts))
	}
	return g.Result()
}
