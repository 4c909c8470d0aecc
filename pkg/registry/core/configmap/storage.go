// Package configmap is the REST storage of core/v1 configmaps.
package configmap

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/pkg/apis/core"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
)

// Strategy is the behaviour of configmaps: plain data, validated as a
// whole, no status.
var Strategy = generic.ValidatingStrategy[*corev1.ConfigMap]{
	DefaultStrategy:    generic.DefaultStrategy{Namespaced: true},
	ValidateFunc:       core.ValidateConfigMap,
	ValidateUpdateFunc: core.ValidateConfigMapUpdate,
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
