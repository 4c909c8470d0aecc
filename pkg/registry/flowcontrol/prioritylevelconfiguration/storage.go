// Package prioritylevelconfiguration is the REST storage of
// flowcontrol.apiserver.k8s.io/v1 prioritylevelconfigurations and their
// /status.
package prioritylevelconfiguration

import (
	"context"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/kapi-dev/kapi/pkg/apis/flowcontrol"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

type strategy struct{ generic.DefaultStrategy }

// Strategy is the behaviour of priority levels: the status is written only
// through /status (by the priority-and-fairness controller), and
// metadata.generation counts changes of the spec.
var Strategy = strategy{}

func (strategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	pl := obj.(*flowcontrolv1.PriorityLevelConfiguration)
	pl.Status = flowcontrolv1.PriorityLevelConfigurationStatus{}
	pl.Generation = 1
}

// GetResetFields is the status, written through /status only.
func (strategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return generic.ResetFields("flowcontrol.apiserver.k8s.io/v1", []string{"status"})
}

func (strategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	pl, oldPL := obj.(*flowcontrolv1.PriorityLevelConfiguration), old.(*flowcontrolv1.PriorityLevelConfiguration)
	pl.Status = oldPL.Status
	pl.Generation = oldPL.Generation
	if !apiequality.Semantic.DeepEqual(pl.Spec, oldPL.Spec) {
		pl.Generation++
	}
}

func (strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return flowcontrol.ValidatePriorityLevelConfiguration(obj.(*flowcontrolv1.PriorityLevelConfiguration))
}

func (strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return flowcontrol.ValidatePriorityLevelConfigurationUpdate(obj.(*flowcontrolv1.PriorityLevelConfiguration), old.(*flowcontrolv1.PriorityLevelConfiguration))
}

type statusStrategy struct{ strategy }

// GetResetFields is what /status keeps: the whole metadata and the spec.
func (statusStrategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return generic.ResetFields("flowcontrol.apiserver.k8s.io/v1", []string{"metadata"}, []string{"spec"})
}

// PrepareForUpdate keeps all of the metadata but the managed fields: a
// status write cannot even change labels.
func (statusStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	pl, oldPL := obj.(*flowcontrolv1.PriorityLevelConfiguration), old.(*flowcontrolv1.PriorityLevelConfiguration)
	managed := pl.ManagedFields
	pl.ObjectMeta = *oldPL.ObjectMeta.DeepCopy()
	pl.ManagedFields = managed
	pl.Spec = oldPL.Spec
}

func (statusStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return flowcontrol.ValidatePriorityLevelConfigurationStatusUpdate(obj.(*flowcontrolv1.PriorityLevelConfiguration), old.(*flowcontrolv1.PriorityLevelConfiguration))
}

// Storage is the REST storage of prioritylevelconfigurations and their /status.
type Storage struct {
	PriorityLevelConfiguration *generic.Store
	Status                     *generic.SubresourceREST
}

// NewStorage returns the storage of prioritylevelconfigurations.
func NewStorage(opts generic.RESTOptions) (*Storage, error) {
	s := &generic.Store{
		NewFunc:                   func() runtime.Object { return &flowcontrolv1.PriorityLevelConfiguration{} },
		NewListFunc:               func() runtime.Object { return &flowcontrolv1.PriorityLevelConfigurationList{} },
		DefaultQualifiedResource:  flowcontrolv1.Resource("prioritylevelconfigurations"),
		SingularQualifiedResource: flowcontrolv1.Resource("prioritylevelconfiguration"),
		KeyPrefix:                 "/prioritylevelconfigurations",
		CreateStrategy:            Strategy,
		UpdateStrategy:            Strategy,
		DeleteStrategy:            Strategy,
	}
	if err := opts.Complete(s, flowcontrolv1.SchemeGroupVersion); err != nil {
		return nil, err
	}
	return &Storage{PriorityLevelConfiguration: s, Status: generic.NewSubresourceREST(s, statusStrategy{Strategy})}, nil
}

// Map returns the storage by path: "prioritylevelconfigurations" and
// "prioritylevelconfigurations/status".
func (s *Storage) Map() map[string]rest.Storage {
	plural := s.PriorityLevelConfiguration.DefaultQualifiedResource.Resource
	return map[string]rest.Storage{plural: s.PriorityLevelConfiguration, plural + "/status": s.Status}
}
