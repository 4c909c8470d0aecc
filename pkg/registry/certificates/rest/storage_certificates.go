// Package rest declares the certificates.k8s.io API group.
package rest

import (
	certificatesv1 "k8s.io/api/certificates/v1"

	"github.com/kapi-dev/kapi/pkg/registry"
	"github.com/kapi-dev/kapi/pkg/registry/certificates/certificatesigningrequest"
	"github.com/kapi-dev/kapi/pkg/registry/certificates/clustertrustbundle"
	"github.com/kapi-dev/kapi/pkg/registry/certificates/podcertificaterequest"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
)

// StorageProvider declares the certificates.k8s.io group.
type StorageProvider struct{}

var _ registry.StorageProvider = StorageProvider{}

func (StorageProvider) GroupName() string { return certificatesv1.GroupName }

func (StorageProvider) GroupPriority() int { return 17300 }

// NewRESTStorage builds the storage of certificates.k8s.io/v1.
func (StorageProvider) NewRESTStorage(opts generic.RESTOptions, served func(version string) bool) (registry.VersionedStorage, error) {
	var g registry.GroupStorage
	if served("v1") {
		v1 := g.Version("v1")
		v1.Add(certificatesigningrequest.NewStorage(opts))
		v1.Add(clustertrustbundle.NewStorage(opts))
		v1.Add(podcertificaterequest.NewStorage(opts))
	}
	return g.Result()
}
