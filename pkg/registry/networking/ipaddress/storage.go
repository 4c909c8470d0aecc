// Package ipaddress is the REST storage of networking.k8s.io/v1
// ipaddresses: one object per allocated IP, named by the IP in canonical
// form. The Service allocator (pkg/registry/core/service/ipallocator)
// writes the IPs of Services here; other allocators may write their own.
package ipaddress

import (
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/pkg/apis/networking"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

// Strategy is the behaviour of IP addresses: plain data whose parent
// reference never changes.
var Strategy = generic.ValidatingStrategy[*networkingv1.IPAddress]{
	ValidateFunc:       networking.ValidateIPAddress,
	ValidateUpdateFunc: networking.ValidateIPAddressUpdate,
}

// Storage is the REST storage of IP addresses.
type Storage struct {
	IPAddress *generic.Store
}

// KeyPrefix is where IP addresses are kept, by name.
const KeyPrefix = "/ipaddresses"

// NewStorage returns the storage of IP addresses.
func NewStorage(opts generic.RESTOptions) (*Storage, error) {
	s := &generic.Store{
		NewFunc:                   func() runtime.Object { return &networkingv1.IPAddress{} },
		NewListFunc:               func() runtime.Object { return &networkingv1.IPAddressList{} },
		DefaultQualifiedResource:  networkingv1.Resource("ipaddresses"),
		SingularQualifiedResource: networkingv1.Resource("ipaddress"),
		KeyPrefix:                 KeyPrefix,
		CreateStrategy:            Strategy,
		UpdateStrategy:            Strategy,
		DeleteStrategy:            Strategy,
		ShortNamesList:            []string{"ip"},
		// An IPAddress is named by its address: kube-apiserver takes a
		// generateName as the name itself.
		NameGenerator: func(base string) string { return base },
	}
	if err := opts.Complete(s, networkingv1.SchemeGroupVersion); err != nil {
		return nil, err
	}
	return &Storage{IPAddress: s}, nil
}

// Map returns the storage by path: "ipaddresses".
func (s *Storage) Map() map[string]rest.Storage {
	return map[string]rest.Storage{s.IPAddress.DefaultQualifiedResource.Resource: s.IPAddress}
}
