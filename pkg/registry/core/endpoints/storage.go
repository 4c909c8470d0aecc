// Package endpoints is the REST storage of core/v1 endpoints.
package endpoints

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/pkg/apis/core"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
)

// Strategy is the behaviour of endpoints. kube-apiserver lets a PUT
// create them, for the endpoints controller.
var Strategy = generic.ValidatingStrategy[*corev1.Endpoints]{
	DefaultStrategy:    generic.DefaultStrategy{Namespaced: true, CreateOnUpdate: true},
	ValidateFunc:       core.ValidateEndpoints,
	ValidateUpdateFunc: core.ValidateEndpointsUpdate,
}

// NewREST returns the storage of endpoints.
func NewREST(opts generic.RESTOptions) (*generic.Store, error) {
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
	return s, opts.Complete(s, corev1.SchemeGroupVersion)
}
