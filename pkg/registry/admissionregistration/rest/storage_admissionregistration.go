// Package rest declares the admissionregistration.k8s.io API group.
package rest

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

	"github.com/kapi-dev/kapi/pkg/registry"
	"github.com/kapi-dev/kapi/pkg/registry/admissionregistration/mutatingadmissionpolicy"
	"github.com/kapi-dev/kapi/pkg/registry/admissionregistration/mutatingadmissionpolicybinding"
	"github.com/kapi-dev/kapi/pkg/registry/admissionregistration/mutatingwebhookconfiguration"
	"github.com/kapi-dev/kapi/pkg/registry/admissionregistration/validatingadmissionpolicy"
	"github.com/kapi-dev/kapi/pkg/registry/admissionregistration/validatingadmissionpolicybinding"
	"github.com/kapi-dev/kapi/pkg/registry/admissionregistration/validatingwebhookconfiguration"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
)

// StorageProvider declares the admissionregistration.k8s.io group.
type StorageProvider struct{}

var _ registry.StorageProvider = StorageProvider{}

func (StorageProvider) GroupName() string { return admissionregistrationv1.GroupName }

func (StorageProvider) GroupPriority() int { return 16700 }

// NewRESTStorage builds the storage of admissionregistration.k8s.io/v1.
func (StorageProvider) NewRESTStorage(opts generic.RESTOptions, served func(version string) bool) (registry.VersionedStorage, error) {
	var g registry.GroupStorage
	if served("v1") {
		v1 := g.Version("v1")
		v1.Add(validatingwebhookconfiguration.NewStorage(opts))
		v1.Add(mutatingwebhookconfiguration.NewStorage(opts))
		v1.Add(validatingadmissionpolicy.NewStorage(opts))
		v1.Add(validatingadmissionpolicybinding.NewStorage(opts))
		v1.Add(mutatingadmissionpolicy.NewStorage(opts))
		v1.Add(mutatingadmissionpolicybinding.NewStorage(opts))
	}
	return g.Result()
}
