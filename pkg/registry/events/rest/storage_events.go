// Package rest declares the events.k8s.io API group.
package rest

import (
	eventsv1 "k8s.io/api/events/v1"

	"github.com/kapi-dev/kapi/pkg/registry"
	"github.com/kapi-dev/kapi/pkg/registry/core/event"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
)

// StorageProvider declares the events.k8s.io group.
type StorageProvider struct{}

var _ registry.StorageProvider = StorageProvider{}

func (StorageProvider) GroupName() string { return eventsv1.GroupName }

func (StorageProvider) GroupPriority() int { return 17750 }

// NewRESTStorage builds the storage of events.k8s.io/v1: the core group's
// events, the same objects under the same keys, served in the
// events.k8s.io/v1 form and selectable by its field names, as
// kube-apiserver does.
func (StorageProvider) NewRESTStorage(opts generic.RESTOptions, served func(version string) bool) (registry.VersionedStorage, error) {
	var g registry.GroupStorage
	if served("v1") {
		v1 := g.Version("v1")
		v1.Add(event.NewStorage(opts, eventsv1.SchemeGroupVersion))
	}
	return g.Result()
}
