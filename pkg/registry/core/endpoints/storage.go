// Package endpoints is the REST storage of core/v1 endpoints.
package endpoints

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/pkg/apis/core"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

// Strategy is the behaviour of endpoints. kube-apiserver lets a PUT
// create them, for the endpoints controller.
var Strategy = strategy{generic.ValidatingStrategy[*corev1.Endpoints]{
	DefaultStrategy:    generic.DefaultStrategy{Namespaced: true, CreateOnUpdate: true},
	ValidateFunc:       core.ValidateEndpoints,
	ValidateUpdateFunc: core.ValidateEndpointsUpdate,
}}

type strategy struct {
	generic.ValidatingStrategy[*corev1.Endpoints]
}

// WarningsOnCreate warns of addresses not written the standard way.
func (strategy) WarningsOnCreate(_ context.Context, obj runtime.Object) []string {
	return core.EndpointsWarnings(obj.(*corev1.Endpoints))
}

// WarningsOnUpdate warns of addresses not written the standard way.
func (strategy) WarningsOnUpdate(_ context.Context, obj, _ runtime.Object) []string {
	return core.EndpointsWarnings(obj.(*corev1.Endpoints))
}

// Storage is the REST storage of endpoints.
type Storage struct {
	Endpoints *generic.Store
}

// NewStorage returns the storage of endpoints.
func NewStorage(opts generic.RESTOptions) (*Storage, error) {
	s := &generic.Store{
		NewFunc:                   func() runtime.Object { return &corev1.Endpoints{} },
		NewListFunc:               func() runtime.Object { return &corev1.EndpointsList{} },
		DefaultQualifiedResource:  corev1.Resource("endpoints"),
		SingularQualifiedResource: corev1.Resource("endpoints"),
		KeyPrefix:                 "/services/endpoints",
		CreateStrategy:            Strategy,
		UpdateStrategy:            Strategy,
		DeleteStrategy:            Strategy,
		ShortNamesList:            []string{"ep"},
		Deprecation:               "v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice",
	}
	if err := opts.Complete(s, corev1.SchemeGroupVersion); err != nil {
		return nil, err
	}
	return &Storage{Endpoints: s}, nil
}

// Map returns the storage by path: "endpoints".
func (s *Storage) Map() map[string]rest.Storage {
	return map[string]rest.Storage{s.Endpoints.DefaultQualifiedResource.Resource: s.Endpoints}
}
