// Package configmap is the REST storage of core/v1 configmaps.
package configmap

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/pkg/apis/core"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

// Strategy is the behaviour of configmaps: plain data, validated as a
// whole, no status.
var Strategy = generic.ValidatingStrategy[*corev1.ConfigMap]{
	DefaultStrategy:    generic.DefaultStrategy{Namespaced: true},
	ValidateFunc:       core.ValidateConfigMap,
	ValidateUpdateFunc: core.ValidateConfigMapUpdate,
}

// Storage is the REST storage of configmaps.
type Storage struct {
	ConfigMap *generic.Store
}

// NewStorage returns the storage of configmaps.
func NewStorage(opts generic.RESTOptions) (*Storage, error) {
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
	if err := opts.Complete(s, corev1.SchemeGroupVersion); err != nil {
		return nil, err
	}
	return &Storage{ConfigMap: s}, nil
}

// Map returns the storage by path: "configmaps".
func (s *Storage) Map() map[string]rest.Storage {
	return map[string]rest.Storage{s.ConfigMap.DefaultQualifiedResource.Resource: s.ConfigMap}
}
