// Package rest declares the authentication.k8s.io API group: tokenreviews
// and selfsubjectreviews, neither of them stored.
package rest

import (
	authenticationv1 "k8s.io/api/authentication/v1"

	"github.com/kapi-dev/kapi/pkg/authentication/authenticator"
	"github.com/kapi-dev/kapi/pkg/registry"
	"github.com/kapi-dev/kapi/pkg/registry/authentication/selfsubjectreview"
	"github.com/kapi-dev/kapi/pkg/registry/authentication/tokenreview"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
)

// StorageProvider declares the authentication.k8s.io group.
type StorageProvider struct {
	// Authenticator is the server's request authenticator, which
	// tokenreviews ask; nil serves no tokenreviews.
	Authenticator authenticator.Request
	// APIAudiences are --api-audiences.
	APIAudiences []string
}

var _ registry.StorageProvider = StorageProvider{}

func (StorageProvider) GroupName() string { return authenticationv1.GroupName }

func (StorageProvider) GroupPriority() int { return 17700 }

// NewRESTStorage builds the storage of authentication.k8s.io/v1.
func (p StorageProvider) NewRESTStorage(_ generic.RESTOptions, served func(version string) bool) (registry.VersionedStorage, error) {
	var g registry.GroupStorage
	if served("v1") {
		v1 := g.Version("v1")
		if p.Authenticator != nil {
			v1.Add(tokenreview.NewStorage(p.Authenticator, p.APIAudiences))
		}
		v1.Add(selfsubjectreview.NewStorage())
	}
	return g.Result()
}
