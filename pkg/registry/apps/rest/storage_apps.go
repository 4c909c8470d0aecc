// Package rest declares the apps API group.
package rest

import (
	appsv1 "k8s.io/api/apps/v1"

	"github.com/kapi-dev/kapi/pkg/features"
	"github.com/kapi-dev/kapi/pkg/registry"
	"github.com/kapi-dev/kapi/pkg/registry/apps/controllerrevision"
	"github.com/kapi-dev/kapi/pkg/registry/apps/daemonset"
	"github.com/kapi-dev/kapi/pkg/registry/apps/deployment"
	"github.com/kapi-dev/kapi/pkg/registry/apps/replicaset"
	"github.com/kapi-dev/kapi/pkg/registry/apps/statefulset"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
)

// StorageProvider declares the apps group.
type StorageProvider struct {
	// Gates decide which gated fields are kept (--feature-gates); the
	// zero value is kube-apiserver's defaults.
	Gates features.Gates
}

var _ registry.StorageProvider = StorageProvider{}

func (StorageProvider) GroupName() string { return appsv1.GroupName }

func (StorageProvider) GroupPriority() int { return 17800 }

// NewRESTStorage builds the storage of apps/v1.
func (p StorageProvider) NewRESTStorage(opts generic.RESTOptions, served func(version string) bool) (registry.VersionedStorage, error) {
	var g registry.GroupStorage
	if served("v1") {
		v1 := g.Version("v1")
		v1.Add(controllerrevision.NewStorage(opts))
		v1.Add(daemonset.NewStorage(opts, p.Gates))
		v1.Add(deployment.NewStorage(opts, p.Gates))
		v1.Add(replicaset.NewStorage(opts, p.Gates))
		v1.Add(statefulset.NewStorage(opts, p.Gates))
	}
	return g.Result()
}
