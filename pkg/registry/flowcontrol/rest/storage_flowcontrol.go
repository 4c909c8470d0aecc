// Package rest declares the flowcontrol.apiserver.k8s.io API group.
package rest

import (
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"

	"github.com/kapi-dev/kapi/pkg/registry"
	"github.com/kapi-dev/kapi/pkg/registry/flowcontrol/flowschema"
	"github.com/kapi-dev/kapi/pkg/registry/flowcontrol/prioritylevelconfiguration"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
)

// StorageProvider declares the flowcontrol.apiserver.k8s.io group.
type StorageProvider struct{}

var _ registry.StorageProvider = StorageProvider{}

func (StorageProvider) GroupName() string { return flowcontrolv1.GroupName }

func (StorageProvider) GroupPriority() int { return 16100 }

// NewRESTStorage builds the storage of flowcontrol.apiserver.k8s.io/v1.
func (StorageProvider) NewRESTStorage(opts generic.RESTOptions, served func(version string) bool) (registry.VersionedStorage, error) {
	var g registry.GroupStorage
	if served("v1") {
		v1 := g.Version("v1")
		v1.Add(flowschema.NewStorage(opts))
		v1.Add(prioritylevelconfiguration.NewStorage(opts))
	}
	return g.Result()
}
