// Package prioritylevelconfiguration is the REST storage of
// flowcontrol.apiserver.k8s.io/v1 prioritylevelconfigurations and their
// /status.
package prioritylevelconfiguration

import (
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/pkg/apis/flowcontrol"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

// Strategy is the behaviour of priority levels: the status is written only
// through /status (by the priority-and-fairness controller), and
// metadata.generation counts changes of the spec.
var Strategy = generic.SpecStrategy[*flowcontrolv1.PriorityLevelConfiguration]{
	APIVersions: []string{"flowcontrol.apiserver.k8s.io/v1"},
	Spec: generic.FieldPart(func(pl *flowcontrolv1.PriorityLevelConfiguration) *flowcontrolv1.PriorityLevelConfigurationSpec {
		return &pl.Spec
	}),
	Status: generic.FieldPart(func(pl *flowcontrolv1.PriorityLevelConfiguration) *flowcontrolv1.PriorityLevelConfigurationStatus {
		return &pl.Status
	}),
	CountGenerations:   true,
	ValidateFunc:       flowcontrol.ValidatePriorityLevelConfiguration,
	ValidateUpdateFunc: flowcontrol.ValidatePriorityLevelConfigurationUpdate,
}

// statusStrategy keeps all of the metadata: a status write cannot even
// change labels.
var statusStrategy = generic.StatusStrategy[*flowcontrolv1.PriorityLevelConfiguration]{
	SpecStrategy:             Strategy,
	KeepMetadata:             generic.KeepAllMetadata,
	ResetPaths:               [][]string{{"metadata"}},
	ValidateStatusUpdateFunc: flowcontrol.ValidatePriorityLevelConfigurationStatusUpdate,
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
	return &Storage{PriorityLevelConfiguration: s, Status: generic.NewSubresourceREST(s, statusStrategy)}, nil
}

// Map returns the storage by path: "prioritylevelconfigurations" and
// "prioritylevelconfigurations/status".
func (s *Storage) Map() map[string]rest.Storage {
	plural := s.PriorityLevelConfiguration.DefaultQualifiedResource.Resource
	return map[string]rest.Storage{plural: s.PriorityLevelConfiguration, plural + "/status": s.Status}
}
