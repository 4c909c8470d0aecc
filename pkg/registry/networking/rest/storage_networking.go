// Package rest declares the networking.k8s.io API group.
package rest

import (
	networkingv1 "k8s.io/api/networking/v1"

	"github.com/kapi-dev/kapi/pkg/registry"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/networking/ingress"
	"github.com/kapi-dev/kapi/pkg/registry/networking/ingressclass"
	"github.com/kapi-dev/kapi/pkg/registry/networking/ipaddress"
	"github.com/kapi-dev/kapi/pkg/registry/networking/networkpolicy"
	"github.com/kapi-dev/kapi/pkg/registry/networking/servicecidr"
)

// StorageProvider declares the networking.k8s.io group.
type StorageProvider struct{}

var _ registry.StorageProvider = StorageProvider{}

func (StorageProvider) GroupName() string { return networkingv1.GroupName }

func (StorageProvider) GroupPriority() int { return 17200 }

// NewRESTStorage builds the storage of networking.k8s.io/v1.
func (StorageProvider) NewRESTStorage(opts generic.RESTOptions, served func(version string) bool) (registry.VersionedStorage, error) {
	var g registry.GroupStorage
	if served("v1") {
		v1 := g.Version("v1")
		v1.Add(networkpolicy.NewStorage(opts))
		v1.Add(ingress.NewStorage(opts))
		v1.Add(ingressclass.NewStorage(opts))
		v1.Add(ipaddress.NewStorage(opts))
		v1.Add(servicecidr.NewStorage(opts))
	}
	return g.Result()
}
