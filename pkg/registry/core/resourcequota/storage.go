// Package resourcequota is the REST storage of core/v1 resourcequotas and
// their /status.
package resourcequota

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/kapi-dev/kapi/pkg/apis/core"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

type strategy struct{ generic.DefaultStrategy }

// Strategy is the behaviour of quotas: the spec is the user's, the status
// (what is used against what is allowed) the quota controller's, written
// through /status only.
var Strategy = strategy{generic.DefaultStrategy{Namespaced: true}}

func (strategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	obj.(*corev1.ResourceQuota).Status = corev1.ResourceQuotaStatus{}
}

// GetResetFields is the status, written through /status only.
func (strategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return generic.ResetFields("v1", []string{"status"})
}

func (strategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	obj.(*corev1.ResourceQuota).Status = old.(*corev1.ResourceQuota).Status
}

func (strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return core.ValidateResourceQuota(obj.(*corev1.ResourceQuota))
}

func (strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return core.ValidateResourceQuotaUpdate(obj.(*corev1.ResourceQuota), old.(*corev1.ResourceQuota))
}

type statusStrategy struct{ strategy }

// GetResetFields is what /status keeps: the spec.
func (statusStrategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return generic.ResetFields("v1", []string{"spec"})
}

func (statusStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	obj.(*corev1.ResourceQuota).Spec = old.(*corev1.ResourceQuota).Spec
}

func (statusStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return core.ValidateResourceQuotaStatusUpdate(obj.(*corev1.ResourceQuota), old.(*corev1.ResourceQuota))
}

// Storage is the REST storage of resourcequotas and their /status.
type Storage struct {
	ResourceQuota *generic.Store
	Status        *generic.SubresourceREST
}

// NewStorage returns the storage of resourcequotas.
func NewStorage(opts generic.RESTOptions) (*Storage, error) {
	s := &generic.Store{
		NewFunc:                   func() runtime.Object { return &corev1.ResourceQuota{} },
		NewListFunc:               func() runtime.Object { return &corev1.ResourceQuotaList{} },
		DefaultQualifiedResource:  corev1.Resource("resourcequotas"),
		SingularQualifiedResource: corev1.Resource("resourcequota"),
		KeyPrefix:                 "/resourcequotas",
		CreateStrategy:            Strategy,
		UpdateStrategy:            Strategy,
		DeleteStrategy:            Strategy,
		ShortNamesList:            []string{"quota"},
		// As kube-apiserver, a delete answers with the deleted quota.
		ReturnDeletedObject: true,
	}
	if err := opts.Complete(s, corev1.SchemeGroupVersion); err != nil {
		return nil, err
	}
	return &Storage{ResourceQuota: s, Status: generic.NewSubresourceREST(s, statusStrategy{})}, nil
}

// Map returns the storage by path: "resourcequotas" and
// "resourcequotas/status".
func (s *Storage) Map() map[string]rest.Storage {
	plural := s.ResourceQuota.DefaultQualifiedResource.Resource
	return map[string]rest.Storage{plural: s.ResourceQuota, plural + "/status": s.Status}
}
