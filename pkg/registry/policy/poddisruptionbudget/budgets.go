package poddisruptionbudget

import (
	"context"
	"fmt"

	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/pkg/endpoints/request"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

// Budgets is what an eviction needs of PDBs: the budgets of a namespace,
// and a way to record a disruption in one's status. Evictions (pods/eviction)
// get it from the policy group's storage: NewBudgets of the storage served
// at policy/v1 poddisruptionbudgets and poddisruptionbudgets/status.
type Budgets struct {
	lister rest.Lister
	status rest.Updater
}

// NewBudgets returns the Budgets read from lister (the storage of
// poddisruptionbudgets) and written through status (that of
// poddisruptionbudgets/status).
func NewBudgets(lister rest.Lister, status rest.Updater) *Budgets {
	return &Budgets{lister: lister, status: status}
}

// BudgetsOf returns the Budgets of the storage a policy provider built, by
// path ("poddisruptionbudgets", "poddisruptionbudgets/status"), or an error
// if the policy/v1 storage is not there (policy/v1 not served).
func BudgetsOf(paths map[string]rest.Storage) (*Budgets, error) {
	lister, ok := paths["poddisruptionbudgets"].(rest.Lister)
	if !ok {
		return nil, fmt.Errorf("poddisruptionbudgets are not served")
	}
	status, ok := paths["poddisruptionbudgets/status"].(rest.Updater)
	if !ok {
		return nil, fmt.Errorf("poddisruptionbudgets/status is not served")
	}
	return NewBudgets(lister, status), nil
}

// List returns the PDBs of namespace.
func (b *Budgets) List(ctx context.Context, namespace string) ([]policyv1.PodDisruptionBudget, error) {
	obj, err := b.lister.List(request.WithNamespace(ctx, namespace), &metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	return obj.(*policyv1.PodDisruptionBudgetList).Items, nil
}

// UpdateStatus writes pdb's status, if pdb's resourceVersion is still
// the stored one (a conflict error otherwise), and returns the stored
// PDB.
func (b *Budgets) UpdateStatus(ctx context.Context, pdb *policyv1.PodDisruptionBudget, dryRun bool) (*policyv1.PodDisruptionBudget, error) {
	opts := &metav1.UpdateOptions{}
	if dryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	obj, _, err := b.status.Update(request.WithNamespace(ctx, pdb.Namespace), pdb.Name, rest.DefaultUpdatedObjectInfo(runtime.Object(pdb)), nil, nil, false, opts)
	if err != nil {
		return nil, err
	}
	return obj.(*policyv1.PodDisruptionBudget), nil
}
