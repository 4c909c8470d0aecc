package app

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/labels"
	admissionregistrationlisters "k8s.io/client-go/listers/admissionregistration/v1"

	"github.com/kapi-dev/kapi/pkg/admission"
	mutatingpolicy "github.com/kapi-dev/kapi/pkg/admission/plugin/policy/mutating"
	"github.com/kapi-dev/kapi/pkg/client"
)

// buildMutatingAdmissionPolicy watches the mutatingadmissionpolicies and
// their bindings. With the MutatingAdmissionPolicy feature gate off, the
// plugin does nothing, as kube-apiserver's.
func buildMutatingAdmissionPolicy(d *admissionDeps, _ []byte) (admission.Plugin, error) {
	if !d.features.Enabled("MutatingAdmissionPolicy") {
		return admission.NewHandler(), nil
	}
	matcher, params, nsSynced := policyDeps(d)
	policies := client.InformerFor[*admissionregistrationv1.MutatingAdmissionPolicy, *admissionregistrationv1.MutatingAdmissionPolicyList](d.informers, "mutatingadmissionpolicies")
	bindings := client.InformerFor[*admissionregistrationv1.MutatingAdmissionPolicyBinding, *admissionregistrationv1.MutatingAdmissionPolicyBindingList](d.informers, "mutatingadmissionpolicybindings")
	policyLister := admissionregistrationlisters.NewMutatingAdmissionPolicyLister(policies.GetIndexer())
	bindingLister := admissionregistrationlisters.NewMutatingAdmissionPolicyBindingLister(bindings.GetIndexer())
	metrics := mutatingpolicy.NewMetrics()
	d.metrics.MustRegister(metrics)
	return mutatingpolicy.New(mutatingpolicy.Config{
		Policies: func() ([]*admissionregistrationv1.MutatingAdmissionPolicy, error) {
			return policyLister.List(labels.Everything())
		},
		Bindings: func() ([]*admissionregistrationv1.MutatingAdmissionPolicyBinding, error) {
			return bindingLister.List(labels.Everything())
		},
		HasSynced:  func() bool { return policies.HasSynced() && bindings.HasSynced() && nsSynced() },
		Matcher:    matcher,
		Params:     params,
		Authorizer: d.authorizer,
		Metrics:    metrics,
		// kube-apiserver counts policies' match conditions with the
		// webhooks'.
		ConditionMetrics: d.webhookMetrics,
	}), nil
}
