// Package flowschema is the REST storage of
// flowcontrol.apiserver.k8s.io/v1 flowschemas and their /status.
package flowschema

import (
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/pkg/apis/flowcontrol"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

// Strategy is the behaviour of flow schemas: the status is written only
// through /status (by the priority-and-fairness controller), and
// metadata.generation counts changes of the spec.
var Strategy = generic.SpecStrategy[*flowcontrolv1.FlowSchema]{
	APIVersions:        []string{"flowcontrol.apiserver.k8s.io/v1"},
	Spec:               generic.FieldPart(func(fs *flowcontrolv1.FlowSchema) *flowcontrolv1.FlowSchemaSpec { return &fs.Spec }),
	Status:             generic.FieldPart(func(fs *flowcontrolv1.FlowSchema) *flowcontrolv1.FlowSchemaStatus { return &fs.Status }),
	CountGenerations:   true,
	ValidateFunc:       flowcontrol.ValidateFlowSchema,
	ValidateUpdateFunc: flowcontrol.ValidateFlowSchemaUpdate,
}

// statusStrategy keeps all of the metadata: a status write cannot even
// change labels.
var statusStrategy = generic.StatusStrategy[*flowcontrolv1.FlowSchema]{
	SpecStrategy:             Strategy,
	KeepMetadata:             generic.KeepAllMetadata,
	ResetPaths:               [][]string{{"metadata"}},
	ValidateStatusUpdateFunc: flowcontrol.ValidateFlowSchemaStatusUpdate,
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
	return &Storage{FlowSchema: s, Status: generic.NewSubresourceREST(s, statusStrategy)}, nil
}

// Map returns the storage by path: "flowschemas" and "flowschemas/status".
func (s *Storage) Map() map[string]rest.Storage {
	plural := s.FlowSchema.DefaultQualifiedResource.Resource
	return map[string]rest.Storage{plural: s.FlowSchema, plural + "/status": s.Status}
}
