// Package poddisruptionbudget is the REST storage of policy/v1
// PodDisruptionBudgets and of their /status.
package poddisruptionbudget

import (
	"context"

	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/pkg/apis/policy"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

type strategy struct {
	generic.SpecStrategy[*policyv1.PodDisruptionBudget]
}

// Strategy is the behaviour of PDBs: metadata.generation counts changes
// of the spec, the status is written only through /status, and every
// update names the resourceVersion it was computed from, as in
// kube-apiserver: evictions decide from the status, and a blind
// overwrite could allow one disruption too many.
var Strategy = strategy{generic.SpecStrategy[*policyv1.PodDisruptionBudget]{
	DefaultStrategy: generic.DefaultStrategy{Namespaced: true, RequireResourceVersionOnUpdate: true},
	APIVersions:     []string{"policy/v1"},
	Spec: generic.FieldPart(func(pdb *policyv1.PodDisruptionBudget) *policyv1.PodDisruptionBudgetSpec {
		return &pdb.Spec
	}),
	Status: generic.FieldPart(func(pdb *policyv1.PodDisruptionBudget) *policyv1.PodDisruptionBudgetStatus {
		return &pdb.Status
	}),
	CountGenerations:   true,
	ValidateFunc:       policy.ValidatePodDisruptionBudget,
	ValidateUpdateFunc: policy.ValidatePodDisruptionBudgetUpdate,
}}

func (s strategy) PrepareForCreate(ctx context.Context, obj runtime.Object) {
	s.SpecStrategy.PrepareForCreate(ctx, obj)
	policy.StripV1beta1Label(obj.(*policyv1.PodDisruptionBudget), nil)
}

func (s strategy) PrepareForUpdate(ctx context.Context, obj, old runtime.Object) {
	s.SpecStrategy.PrepareForUpdate(ctx, obj, old)
	policy.StripV1beta1Label(obj.(*policyv1.PodDisruptionBudget), old.(*policyv1.PodDisruptionBudget))
}

var statusStrategy = generic.StatusStrategy[*policyv1.PodDisruptionBudget]{
	SpecStrategy:             Strategy.SpecStrategy,
	ValidateStatusUpdateFunc: policy.ValidatePodDisruptionBudgetStatusUpdate,
}

// Storage is the REST storage of PDBs and their /status.
type Storage struct {
	PodDisruptionBudget *generic.Store
	Status              *generic.SubresourceREST
}

// NewStorage returns the storage of PDBs.
func NewStorage(opts generic.RESTOptions) (*Storage, error) {
	s := &generic.Store{
		NewFunc:                   func() runtime.Object { return &policyv1.PodDisruptionBudget{} },
		NewListFunc:               func() runtime.Object { return &policyv1.PodDisruptionBudgetList{} },
		DefaultQualifiedResource:  policyv1.Resource("poddisruptionbudgets"),
		SingularQualifiedResource: policyv1.Resource("poddisruptionbudget"),
		KeyPrefix:                 "/poddisruptionbudgets",
		CreateStrategy:            Strategy,
		UpdateStrategy:            Strategy,
		DeleteStrategy:            Strategy,
		ShortNamesList:            []string{"pdb"},
	}
	if err := opts.Complete(s, policyv1.SchemeGroupVersion); err != nil {
		return nil, err
	}
	return &Storage{PodDisruptionBudget: s, Status: generic.NewSubresourceREST(s, statusStrategy)}, nil
}

// Map returns the storage by path: "poddisruptionbudgets" and
// "poddisruptionbudgets/status".
func (s *Storage) Map() map[string]rest.Storage {
	plural := s.PodDisruptionBudget.DefaultQualifiedResource.Resource
	return map[string]rest.Storage{plural: s.PodDisruptionBudget, plural + "/status": s.Status}
}
