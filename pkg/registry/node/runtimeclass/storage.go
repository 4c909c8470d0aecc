// Package runtimeclass is the REST storage of node.k8s.io/v1
// runtimeclasses.
package runtimeclass

import (
	nodev1 "k8s.io/api/node/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/pkg/apis/node"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

// Strategy is the behaviour of runtimeclasses. As in kube-apiserver, a
// PUT may create a missing class, and an update must name the
// resourceVersion it was computed from.
var Strategy = generic.ValidatingStrategy[*nodev1.RuntimeClass]{
	DefaultStrategy:    generic.DefaultStrategy{CreateOnUpdate: true, RequireResourceVersionOnUpdate: true},
	ValidateFunc:       node.ValidateRuntimeClass,
	ValidateUpdateFunc: node.ValidateRuntimeClassUpdate,
}

// Storage is the REST storage of runtimeclasses.
type Storage struct {
	RuntimeClass *generic.Store
}

// NewStorage returns the storage of runtimeclasses.
func NewStorage(opts generic.RESTOptions) (*Storage, error) {
	s := &generic.Store{
		NewFunc:                   func() runtime.Object { return &nodev1.RuntimeClass{} },
		NewListFunc:               func() runtime.Object { return &nodev1.RuntimeClassList{} },
		DefaultQualifiedResource:  nodev1.Resource("runtimeclasses"),
		SingularQualifiedResource: nodev1.Resource("runtimeclass"),
		KeyPrefix:                 "/runtimeclasses",
		CreateStrategy:            Strategy,
		UpdateStrategy:            Strategy,
		DeleteStrategy:            Strategy,
	}
	if err := opts.Complete(s, nodev1.SchemeGroupVersion); err != nil {
		return nil, err
	}
	return &Storage{RuntimeClass: s}, nil
}

// Map returns the storage by path: "runtimeclasses".
func (s *Storage) Map() map[string]rest.Storage {
	return map[string]rest.Storage{s.RuntimeClass.DefaultQualifiedResource.Resource: s.RuntimeClass}
}
