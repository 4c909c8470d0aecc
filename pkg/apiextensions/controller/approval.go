package controller

import (
	"context"
	"log/slog"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/kapi-dev/kapi/pkg/apis/apiextensions"
)

// APIApproval keeps the KubernetesAPIApprovalPolicyConformant condition
// of CRDs in the groups of the Kubernetes project (*.k8s.io,
// *.kubernetes.io): true when the api-approved.kubernetes.io annotation
// links to the approval, false when it says "unapproved...".
type APIApproval struct {
	lister Lister
	write  StatusWriter
	*queue
}

// NewAPIApproval returns the API approval controller.
func NewAPIApproval(lister Lister, write StatusWriter, log *slog.Logger) *APIApproval {
	a := &APIApproval{lister: lister, write: write}
	a.queue = newQueue("crd-api-approval", log, a.sync)
	return a
}

func (a *APIApproval) sync(ctx context.Context, name string) error {
	crd, ok := a.lister.Get(name)
	if !ok {
		return nil
	}
	want := apiextensions.APIApprovalCondition(crd)
	have := apiextensions.GetCondition(crd, apiextensionsv1.KubernetesAPIApprovalPolicyConformant)
	if want == nil && have == nil || apiextensions.ConditionsEquivalent(want, have) {
		return nil
	}
	crd = crd.DeepCopy()
	if want == nil {
		apiextensions.RemoveCondition(crd, apiextensionsv1.KubernetesAPIApprovalPolicyConformant)
	} else {
		apiextensions.SetCondition(crd, *want)
	}
	_, err := a.write(ctx, crd)
	return err
}
