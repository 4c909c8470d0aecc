// Package flowschema is the REST storage of
// flowcontrol.apiserver.k8s.io/v1 flowschemas and their /status.
package flowschema

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

// Strategy is the behaviour of flow schemas: the status is written only
// through /status (by the priority-and-fairness controller), and
// metadata.generation counts changes of the spec.
var Strategy = strategy{}

func (strategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	fs := obj.(*flowcontrolv1.FlowSchema)
	fs.Status = flowcontrolv1.FlowSchemaStatus{}
	fs.Generation = 1
}

// GetResetFields is the status, written through /status only.
func (strategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return generic.ResetFields("flowcontrol.apiserver.k8s.io/v1", []string{"status"})
}

func (strategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	fs, oldFS := obj.(*flowcontrolv1.FlowSchema), old.(*flowcontrolv1.FlowSchema)
	fs.Status = oldFS.Status
	fs.Generation = oldFS.Generation
	if !apiequality.Semantic.DeepEqual(fs.Spec, oldFS.Spec) {
		fs.Generation++
	}
}

func (strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return flowcontrol.ValidateFlowSchema(obj.(*flowcontrolv1.FlowSchema))
}

func (strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return flowcontrol.ValidateFlowSchemaUpdate(obj.(*flowcontrolv1.FlowSchema), old.(*flowcontrolv1.FlowSchema))
}

type statusStrategy struct{ strategy }

// GetResetFields is what /status keeps: the whole metadata and the spec.
func (statusStrategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return generic.ResetFields("flowcontrol.apiserver.k8s.io/v1", []string{"metadata"}, []string{"spec"})
}

// PrepareForUpdate keeps all of the metadata but the managed fields: a
// status write cannot even change labels.
func (statusStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	fs, oldFS := obj.(*flowcontrolv1.FlowSchema), old.(*flowcontrolv1.FlowSchema)
	managed := fs.ManagedFields
	fs.ObjectMeta = *oldFS.ObjectMeta.DeepCopy()
	fs.ManagedFields = managed
	fs.Spec = oldFS.Spec
}

func (statusStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return flowcontrol.ValidateFlowSchemaStatusUpdate(obj.(*flowcontrolv1.FlowSchema), old.(*flowcontrolv1.FlowSchema))
}

// Storage is the REST storage of flowschemas and their /status.
type Storage struct {
	FlowSchema *generic.Store
	Status     *generic.SubresourceREST
}

// NewStorage returns the storage of flowschemas.
func NewStorage(opts generic.RESTOptions) (*Storage, error) {
	s := &generic.Store{
		NewFunc:                   func() runtime.Object { return &flowcontrolv1.FlowSchema{} },
		NewListFunc:               func() runtime.Object { return &flowcontrolv1.FlowSchemaList{} },
		DefaultQualifiedResource:  flowcontrolv1.Resource("flowschemas"),
		SingularQualifiedResource: flowcontrolv1.Resource("flowschema"),
		KeyPrefix:                 "/flowschemas",
		CreateStrategy:            Strategy,
		UpdateStrategy:            Strategy,
		DeleteStrategy:            Strategy,
	}
	if err := opts.Complete(s, flowcontrolv1.SchemeGroupVersion); err != nil {
		return nil, err
	}
	return &Storage{FlowSchema: s, Status: generic.NewSubresourceREST(s, statusStrategy{Strategy})}, nil
}

// Map returns the storage by path: "flowschemas" and "flowschemas/status".
func (s *Storage) Map() map[string]rest.Storage {
	plural := s.FlowSchema.DefaultQualifiedResource.Resource
	return map[string]rest.Storage{plural: s.FlowSchema, plural + "/status": s.Status}
}
