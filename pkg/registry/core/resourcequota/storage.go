// Package resourcequota is the REST storage of core/v1 resourcequotas and
// their /status.
package resourcequota

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/pkg/apis/core"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

// Strategy is the behaviour of quotas: the spec is the user's, the status
// (what is used against what is allowed) the quota controller's, written
// through /status only.
var Strategy = generic.SpecStrategy[*corev1.ResourceQuota]{
	DefaultStrategy:    generic.DefaultStrategy{Namespaced: true},
	APIVersions:        []string{"v1"},
	Spec:               generic.FieldPart(func(q *corev1.ResourceQuota) *corev1.ResourceQuotaSpec { return &q.Spec }),
	Status:             generic.FieldPart(func(q *corev1.ResourceQuota) *corev1.ResourceQuotaStatus { return &q.Status }),
	ValidateFunc:       core.ValidateResourceQuota,
	ValidateUpdateFunc: core.ValidateResourceQuotaUpdate,
}

var statusStrategy = generic.StatusStrategy[*corev1.ResourceQuota]{
	SpecStrategy:             Strategy,
	ValidateStatusUpdateFunc: core.ValidateResourceQuotaStatusUpdate,
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
	return &Storage{ResourceQuota: s, Status: generic.NewSubresourceREST(s, statusStrategy)}, nil
}

// Map returns the storage by path: "resourcequotas" and
// "resourcequotas/status".
func (s *Storage) Map() map[string]rest.Storage {
	plural := s.ResourceQuota.DefaultQualifiedResource.Resource
	return map[string]rest.Storage{plural: s.ResourceQuota, plural + "/status": s.Status}
}
