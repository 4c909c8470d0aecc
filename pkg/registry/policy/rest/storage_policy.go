// Package rest declares the policy API group.
package rest

import (
	policyv1 "k8s.io/api/policy/v1"

	"github.com/kapi-dev/kapi/pkg/registry"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/policy/poddisruptionbudget"
)

// StorageProvider declares the policy group. (pods/eviction reads and
// updates PDBs through the loopback client, as kube-apiserver's does.)
type StorageProvider struct{}

var _ registry.StorageProvider = StorageProvider{}

func (StorageProvider) GroupName() string { return policyv1.GroupName }

func (StorageProvider) GroupPriority() int { return 17100 }

// NewRESTStorage builds the storage of policy/v1.
func (StorageProvider) NewRESTStorage(opts generic.RESTOptions, served func(version string) bool) (registry.VersionedStorage, error) {
	var g registry.GroupStorage
	if served("v1") {
		g.Version("v1").Add(poddisruptionbudget.NewStorage(opts))
	}
	return g.Result()
}
