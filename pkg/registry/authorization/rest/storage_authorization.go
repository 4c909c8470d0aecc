// Package rest declares the authorization.k8s.io API group: the access
// reviews, which ask the server's authorizer rather than storage.
package rest

import (
	authorizationv1 "k8s.io/api/authorization/v1"

	"github.com/kapi-dev/kapi/pkg/authorization/authorizer"
	"github.com/kapi-dev/kapi/pkg/registry"
	"github.com/kapi-dev/kapi/pkg/registry/authorization/localsubjectaccessreview"
	"github.com/kapi-dev/kapi/pkg/registry/authorization/selfsubjectaccessreview"
	"github.com/kapi-dev/kapi/pkg/registry/authorization/selfsubjectrulesreview"
	"github.com/kapi-dev/kapi/pkg/registry/authorization/subjectaccessreview"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
)

// StorageProvider declares the authorization.k8s.io group. The authorizer
// and rule resolver are the server's own, handed in by whoever assembles
// the server: the registry knows them only by their interfaces.
type StorageProvider struct {
	Authorizer   authorizer.Authorizer
	RuleResolver authorizer.RuleResolver
}

var _ registry.StorageProvider = StorageProvider{}

func (StorageProvider) GroupName() string { return authorizationv1.GroupName }

func (StorageProvider) GroupPriority() int { return 17600 }

// NewRESTStorage builds the storage of authorization.k8s.io/v1.
func (p StorageProvider) NewRESTStorage(_ generic.RESTOptions, served func(version string) bool) (registry.VersionedStorage, error) {
	var g registry.GroupStorage
	if served("v1") {
		v1 := g.Version("v1")
		v1.Add(subjectaccessreview.NewStorage(p.Authorizer))
		v1.Add(selfsubjectaccessreview.NewStorage(p.Authorizer))
		v1.Add(localsubjectaccessreview.NewStorage(p.Authorizer))
		v1.Add(selfsubjectrulesreview.NewStorage(p.RuleResolver))
	}
	return g.Result()
}
