// Package limitrange is the REST storage of core/v1 limitranges.
package limitrange

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/apis/core"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

type strategy struct{ generic.DefaultStrategy }

// Strategy is the behaviour of limit ranges. As in kube-apiserver, a PUT
// may create a missing one, and a limit range created without any name
// gets a random UUID as its name.
var Strategy = strategy{generic.DefaultStrategy{Namespaced: true, CreateOnUpdate: true}}

func (strategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	lr := obj.(*corev1.LimitRange)
	if lr.Name == "" {
		lr.Name = string(uuid.NewUUID())
	}
}

func (strategy) PrepareForUpdate(context.Context, runtime.Object, runtime.Object) {}

func (strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return core.ValidateLimitRange(obj.(*corev1.LimitRange))
}

func (strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return core.ValidateLimitRangeUpdate(obj.(*corev1.LimitRange), old.(*corev1.LimitRange))
}

// Storage is the REST storage of limitranges.
type Storage struct {
	LimitRange *generic.Store
}

// NewStorage returns the storage of limitranges.
func NewStorage(opts generic.RESTOptions) (*Storage, error) {
	s := &generic.Store{
		NewFunc:                   func() runtime.Object { return &corev1.LimitRange{} },
		NewListFunc:               func() runtime.Object { return &corev1.LimitRangeList{} },
		DefaultQualifiedResource:  corev1.Resource("limitranges"),
		SingularQualifiedResource: corev1.Resource("limitrange"),
		KeyPrefix:                 "/limitranges",
		CreateStrategy:            Strategy,
		UpdateStrategy:            Strategy,
		DeleteStrategy:            Strategy,
		ShortNamesList:            []string{"limits"},
	}
	if err := opts.Complete(s, corev1.SchemeGroupVersion); err != nil {
		return nil, err
	}
	return &Storage{LimitRange: s}, nil
}

// Map returns the storage by path: "limitranges".
func (s *Storage) Map() map[string]rest.Storage {
	return map[string]rest.Storage{s.LimitRange.DefaultQualifiedResource.Resource: s.LimitRange}
}
