// Package endpoints is the REST storage of core/v1 endpoints.
package endpoints

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/apis/core"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
)

type strategy struct{ generic.DefaultStrategy }

// Strategy is the behaviour of endpoints. kube-apiserver lets a PUT
// create them, for the endpoints controller.
var Strategy = strategy{generic.DefaultStrategy{Namespaced: true, CreateOnUpdate: true}}

func (strategy) PrepareForCreate(context.Context, runtime.Object) {}

func (strategy) PrepareForUpdate(context.Context, runtime.Object, runtime.Object) {}

func (strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return core.ValidateEndpoints(obj.(*corev1.Endpoints))
}

func (strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return core.ValidateEndpointsUpdate(obj.(*corev1.Endpoints), old.(*corev1.Endpoints))
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
	}
	return s, opts.Complete(s, corev1.SchemeGroupVersion)
}
