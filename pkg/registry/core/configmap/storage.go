// Package configmap is the REST storage of core/v1 configmaps.
package configmap

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/apis/core"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
)

type strategy struct{ generic.DefaultStrategy }

// Strategy is the behaviour of configmaps: plain data, validated as a
// whole, no status.
var Strategy = strategy{generic.DefaultStrategy{Namespaced: true}}

func (strategy) PrepareForCreate(context.Context, runtime.Object) {}

func (strategy) PrepareForUpdate(context.Context, runtime.Object, runtime.Object) {}

func (strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return core.ValidateConfigMap(obj.(*corev1.ConfigMap))
}

func (strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return core.ValidateConfigMapUpdate(obj.(*corev1.ConfigMap), old.(*corev1.ConfigMap))
}

// NewREST returns the storage of configmaps.
func NewREST(opts generic.RESTOptions) (*generic.Store, error) {
	s := &generic.Store{
		NewFunc:                   func() runtime.Object { return &corev1.ConfigMap{} },
		NewListFunc:               func() runtime.Object { return &corev1.ConfigMapList{} },
		DefaultQualifiedResource:  corev1.Resource("configmaps"),
		SingularQualifiedResource: corev1.Resource("configmap"),
		KeyPrefix:                 "/configmaps",
		CreateStrategy:            Strategy,
		UpdateStrategy:            Strategy,
		DeleteStrategy:            Strategy,
		ShortNamesList:            []string{"cm"},
	}
	return s, opts.Complete(s, corev1.SchemeGroupVersion)
}
