// Package rest declares the rbac.authorization.k8s.io API group.
package rest

import (
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/kapi-dev/kapi/pkg/registry"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rbac/clusterrole"
	"github.com/kapi-dev/kapi/pkg/registry/rbac/clusterrolebinding"
	"github.com/kapi-dev/kapi/pkg/registry/rbac/escalation"
	"github.com/kapi-dev/kapi/pkg/registry/rbac/role"
	"github.com/kapi-dev/kapi/pkg/registry/rbac/rolebinding"
)

// StorageProvider declares the rbac.authorization.k8s.io group. Guard is
// the escalation check every resource of the group makes on create and
// update; nil checks nothing.
type StorageProvider struct {
	Guard *escalation.Guard
}

var _ registry.StorageProvider = StorageProvider{}

func (StorageProvider) GroupName() string { return rbacv1.GroupName }

func (StorageProvider) GroupPriority() int { return 17000 }

// NewRESTStorage builds the storage of rbac.authorization.k8s.io/v1.
func (p StorageProvider) NewRESTStorage(opts generic.RESTOptions, served func(version string) bool) (registry.VersionedStorage, error) {
	var g registry.GroupStorage
	if served("v1") {
		v1 := g.Version("v1")
		v1.Add(role.NewStorage(opts, p.Guard))
		v1.Add(rolebinding.NewStorage(opts, p.Guard))
		v1.Add(clusterrole.NewStorage(opts, p.Guard))
		v1.Add(clusterrolebinding.NewStorage(opts, p.Guard))
	}
	return g.Result()
}
