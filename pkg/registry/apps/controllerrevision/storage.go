// Package controllerrevision is the REST storage of apps/v1
// controllerrevisions: the snapshots of a StatefulSet's or DaemonSet's
// template that their controllers roll back to.
package controllerrevision

import (
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/pkg/apis/apps"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

// Strategy is the behaviour of controllerrevisions: plain data whose
// snapshot cannot change once written.
var Strategy = generic.ValidatingStrategy[*appsv1.ControllerRevision]{
	DefaultStrategy:    generic.DefaultStrategy{Namespaced: true},
	ValidateFunc:       apps.ValidateControllerRevision,
	ValidateUpdateFunc: apps.ValidateControllerRevisionUpdate,
}

// Storage is the REST storage of controllerrevisions.
type Storage struct {
	ControllerRevision *generic.Store
}

// NewStorage returns the storage of controllerrevisions.
func NewStorage(opts generic.RESTOptions) (*Storage, error) {
	s := &generic.Store{
		NewFunc:                   func() runtime.Object { return &appsv1.ControllerRevision{} },
		NewListFunc:               func() runtime.Object { return &appsv1.ControllerRevisionList{} },
		DefaultQualifiedResource:  appsv1.Resource("controllerrevisions"),
		SingularQualifiedResource: appsv1.Resource("controllerrevision"),
		KeyPrefix:                 "/controllerrevisions",
		CreateStrategy:            Strategy,
		UpdateStrategy:            Strategy,
		DeleteStrategy:            Strategy,
	}
	if err := opts.Complete(s, appsv1.SchemeGroupVersion); err != nil {
		return nil, err
	}
	return &Storage{ControllerRevision: s}, nil
}

// Map returns the storage by path: "controllerrevisions".
func (s *Storage) Map() map[string]rest.Storage {
	return map[string]rest.Storage{s.ControllerRevision.DefaultQualifiedResource.Resource: s.ControllerRevision}
}
