// Package devicetaintrule is the REST storage of resource.k8s.io/v1
// devicetaintrules and their /status.
package devicetaintrule

import (
	"context"
	"time"

	resourcev1 "k8s.io/api/resource/v1"
	resourcev1beta2 "k8s.io/api/resource/v1beta2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/pkg/apis/resource"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

type strategy struct {
	generic.SpecStrategy[*resourcev1.DeviceTaintRule]
}

// Strategy is the behaviour of taint rules: metadata.generation counts
// changes of the spec, a new effect restamps the taint's time unless the
// writer set one, the status is written only through /status, and in v1
// an update must name the resourceVersion it was computed from.
var Strategy = strategy{generic.SpecStrategy[*resourcev1.DeviceTaintRule]{
	DefaultStrategy:    generic.DefaultStrategy{RequireResourceVersionOnUpdate: true},
	APIVersions:        []string{"resource.k8s.io/v1"},
	Spec:               generic.FieldPart(func(r *resourcev1.DeviceTaintRule) *resourcev1.DeviceTaintRuleSpec { return &r.Spec }),
	Status:             generic.FieldPart(func(r *resourcev1.DeviceTaintRule) *resourcev1.DeviceTaintRuleStatus { return &r.Status }),
	CountGenerations:   true,
	ValidateFunc:       resource.ValidateDeviceTaintRule,
	ValidateUpdateFunc: resource.ValidateDeviceTaintRuleUpdate,
}}

// PrepareForUpdate restamps the taint before the spec is compared.
func (s strategy) PrepareForUpdate(ctx context.Context, obj, old runtime.Object) {
	r, oldR := obj.(*resourcev1.DeviceTaintRule), old.(*resourcev1.DeviceTaintRule)
	if r.Spec.Taint.Effect != oldR.Spec.Taint.Effect && r.Spec.Taint.TimeAdded.Equal(oldR.Spec.Taint.TimeAdded) {
		r.Spec.Taint.TimeAdded = &metav1.Time{Time: time.Now().Truncate(time.Second)}
	}
	s.SpecStrategy.PrepareForUpdate(ctx, obj, old)
}

var statusStrategy = generic.StatusStrategy[*resourcev1.DeviceTaintRule]{
	SpecStrategy:             Strategy.SpecStrategy,
	KeepMetadata:             metav1.ResetObjectMetaForStatus,
	ResetPaths:               [][]string{{"metadata"}},
	ValidateStatusUpdateFunc: resource.ValidateDeviceTaintRuleStatusUpdate,
}

// Storage is the REST storage of devicetaintrules and their /status.
type Storage struct {
	DeviceTaintRule *generic.Store
	Status          *generic.SubresourceREST
}

// NewStorage returns the storage of devicetaintrules.
func NewStorage(opts generic.RESTOptions) (*Storage, error) {
	s := &generic.Store{
		NewFunc:                   func() runtime.Object { return &resourcev1.DeviceTaintRule{} },
		NewListFunc:               func() runtime.Object { return &resourcev1.DeviceTaintRuleList{} },
		DefaultQualifiedResource:  resourcev1.Resource("devicetaintrules"),
		SingularQualifiedResource: resourcev1.Resource("devicetaintrule"),
		KeyPrefix:                 "/devicetaintrules",
		// Stored as v1beta2, as kube-apiserver 1.37 stores them.
		StorageVersionKind: resourcev1beta2.SchemeGroupVersion.WithKind("DeviceTaintRule"),
		CreateStrategy:     Strategy,
		UpdateStrategy:     Strategy,
		DeleteStrategy:     Strategy,
	}
	if err := opts.Complete(s, resourcev1beta2.SchemeGroupVersion); err != nil {
		return nil, err
	}
	return &Storage{DeviceTaintRule: s, Status: generic.NewSubresourceREST(s, statusStrategy)}, nil
}

// Map returns the storage by path: "devicetaintrules" and
// "devicetaintrules/status".
func (s *Storage) Map() map[string]rest.Storage {
	plural := s.DeviceTaintRule.DefaultQualifiedResource.Resource
	return map[string]rest.Storage{plural: s.DeviceTaintRule, plural + "/status": s.Status}
}
