// Package rest declares the resource.k8s.io API group.
package rest

import (
	resourcev1 "k8s.io/api/resource/v1"

	"github.com/kapi-dev/kapi/pkg/features"
	"github.com/kapi-dev/kapi/pkg/registry"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/resource/adminaccess"
	"github.com/kapi-dev/kapi/pkg/registry/resource/deviceclass"
	"github.com/kapi-dev/kapi/pkg/registry/resource/devicetaintrule"
	"github.com/kapi-dev/kapi/pkg/registry/resource/resourceclaim"
	"github.com/kapi-dev/kapi/pkg/registry/resource/resourceclaimtemplate"
	"github.com/kapi-dev/kapi/pkg/registry/resource/resourceslice"
)

// StorageProvider declares the resource.k8s.io group.
type StorageProvider struct {
	// Namespaces are read to decide whether claims may have admin access
	// to devices.
	Namespaces adminaccess.Namespaces
	// Gates decide which gated fields are kept (--feature-gates); the
	// zero value is kube-apiserver's defaults.
	Gates features.Gates
}

var _ registry.StorageProvider = StorageProvider{}

func (StorageProvider) GroupName() string { return resourcev1.GroupName }

func (StorageProvider) GroupPriority() int { return 16200 }

// NewRESTStorage builds the storage of resource.k8s.io/v1.
func (p StorageProvider) NewRESTStorage(opts generic.RESTOptions, served func(version string) bool) (registry.VersionedStorage, error) {
	var g registry.GroupStorage
	if served("v1") {
		v1 := g.Version("v1")
		v1.Add(deviceclass.NewStorage(opts))
		v1.Add(devicetaintrule.NewStorage(opts))
		v1.Add(resourceclaim.NewStorage(opts, p.Namespaces, p.Gates))
		v1.Add(resourceclaimtemplate.NewStorage(opts, p.Namespaces, p.Gates))
		v1.Add(resourceslice.NewStorage(opts, p.Gates))
	}
	return g.Result()
}
