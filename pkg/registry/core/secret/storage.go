// Package secret is the REST storage of core/v1 secrets.
package secret

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/apis/core"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

type strategy struct{ generic.DefaultStrategy }

// Strategy is the behaviour of secrets. stringData is write-only: it is
// merged into data before validation, as kube-apiserver does.
var Strategy = strategy{generic.DefaultStrategy{Namespaced: true}}

func (strategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	foldStringData(obj.(*corev1.Secret))
}

func (strategy) PrepareForUpdate(_ context.Context, obj, _ runtime.Object) {
	foldStringData(obj.(*corev1.Secret))
}

// foldStringData moves stringData into data; stringData wins on a key
// present in both.
func foldStringData(s *corev1.Secret) {
	if len(s.StringData) == 0 {
		return
	}
	if s.Data == nil {
		s.Data = make(map[string][]byte, len(s.StringData))
	}
	for k, v := range s.StringData {
		s.Data[k] = []byte(v)
	}
	s.StringData = nil
}

func (strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return core.ValidateSecret(obj.(*corev1.Secret))
}

func (strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return core.ValidateSecretUpdate(obj.(*corev1.Secret), old.(*corev1.Secret))
}

// Storage is the REST storage of secrets.
type Storage struct {
	Secret *generic.Store
}

// NewStorage returns the storage of secrets.
func NewStorage(opts generic.RESTOptions) (*Storage, error) {
	s := &generic.Store{
		NewFunc:                   func() runtime.Object { return &corev1.Secret{} },
		NewListFunc:               func() runtime.Object { return &corev1.SecretList{} },
		DefaultQualifiedResource:  corev1.Resource("secrets"),
		SingularQualifiedResource: corev1.Resource("secret"),
		KeyPrefix:                 "/secrets",
		FieldsFunc: func(obj runtime.Object) fields.Set {
			return fields.Set{"type": string(obj.(*corev1.Secret).Type)}
		},
		CreateStrategy: Strategy,
		UpdateStrategy: Strategy,
		DeleteStrategy: Strategy,
	}
	if err := opts.Complete(s, corev1.SchemeGroupVersion); err != nil {
		return nil, err
	}
	return &Storage{Secret: s}, nil
}

// Map returns the storage by path: "secrets".
func (s *Storage) Map() map[string]rest.Storage {
	return map[string]rest.Storage{s.Secret.DefaultQualifiedResource.Resource: s.Secret}
}
