// Package poddisruptionbudget is the REST storage of policy/v1
// PodDisruptionBudgets and of their /status.
package poddisruptionbudget

import (
	"context"

	policyv1 "k8s.io/api/policy/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/kapi-dev/kapi/pkg/apis/policy"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

type strategy struct{ generic.DefaultStrategy }

// Strategy is the behaviour of PDBs: metadata.generation counts changes
// of the spec, the status is written only through /status, and every
// update names the resourceVersion it was computed from, as in
// kube-apiserver: evictions decide from the status, and a blind
// overwrite could allow one disruption too many.
var Strategy = strategy{generic.DefaultStrategy{Namespaced: true, RequireResourceVersionOnUpdate: true}}

func (strategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	pdb := obj.(*policyv1.PodDisruptionBudget)
	pdb.Status = policyv1.PodDisruptionBudgetStatus{}
	pdb.Generation = 1
	policy.StripV1beta1Label(pdb, nil)
}

// GetResetFields is the status, written through /status only.
func (strategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return generic.ResetFields("policy/v1", []string{"status"})
}

func (strategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	pdb, oldPDB := obj.(*policyv1.PodDisruptionBudget), old.(*policyv1.PodDisruptionBudget)
	pdb.Status = oldPDB.Status
	if !apiequality.Semantic.DeepEqual(pdb.Spec, oldPDB.Spec) {
		pdb.Generation++
	}
	policy.StripV1beta1Label(pdb, oldPDB)
}

func (strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return policy.ValidatePodDisruptionBudget(obj.(*policyv1.PodDisruptionBudget))
}

func (strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return policy.ValidatePodDisruptionBudgetUpdate(obj.(*policyv1.PodDisruptionBudget), old.(*policyv1.PodDisruptionBudget))
}

type statusStrategy struct{ strategy }

// GetResetFields is what /status keeps: the spec.
func (statusStrategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return generic.ResetFields("policy/v1", []string{"spec"})
}

func (statusStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	obj.(*policyv1.PodDisruptionBudget).Spec = old.(*policyv1.PodDisruptionBudget).Spec
}

func (statusStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return policy.ValidatePodDisruptionBudgetStatusUpdate(obj.(*policyv1.PodDisruptionBudget), old.(*policyv1.PodDisruptionBudget))
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
	return &Storage{PodDisruptionBudget: s, Status: generic.NewSubresourceREST(s, statusStrategy{Strategy})}, nil
}

// Map returns the storage by path: "poddisruptionbudgets" and
// "poddisruptionbudgets/status".
func (s *Storage) Map() map[string]rest.Storage {
	plural := s.PodDisruptionBudget.DefaultQualifiedResource.Resource
	return map[string]rest.Storage{plural: s.PodDisruptionBudget, plural + "/status": s.Status}
}
