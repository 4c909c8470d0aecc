package app

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/labels"
	admissionregistrationlisters "k8s.io/client-go/listers/admissionregistration/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/kapi-dev/kapi/pkg/admission"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/policy/generic"
	policyvalidating "github.com/kapi-dev/kapi/pkg/admission/plugin/policy/validating"
	"github.com/kapi-dev/kapi/pkg/client"
)

// policyDeps are what both policy plugins match and read params with:
// namespaces from the shared informer (the server for one it lacks
// yet), the equivalent resources, the params through the loopback
// dynamic client; and whether the namespaces are read.
func policyDeps(d *admissionDeps) (*generic.Matcher, *generic.Params, cache.InformerSynced) {
	cache, live, synced := d.namespaces()
	return generic.NewMatcher(cache, live, d.equivalentResources),
		&generic.Params{Mapper: d.restMapper, Client: d.dynamic}, synced
}

// buildValidatingAdmissionPolicy watches the validatingadmissionpolicies
// and their bindings.
func buildValidatingAdmissionPolicy(d *admissionDeps, _ []byte) (admission.Plugin, error) {
	matcher, params, nsSynced := policyDeps(d)
	policies := client.InformerFor[*admissionregistrationv1.ValidatingAdmissionPolicy, *admissionregistrationv1.ValidatingAdmissionPolicyList](d.informers, "validatingadmissionpolicies")
	bindings := client.InformerFor[*admissionregistrationv1.ValidatingAdmissionPolicyBinding, *admissionregistrationv1.ValidatingAdmissionPolicyBindingList](d.informers, "validatingadmissionpolicybindings")
	policyLister := admissionregistrationlisters.NewValidatingAdmissionPolicyLister(policies.GetIndexer())
	bindingLister := admissionregistrationlisters.NewValidatingAdmissionPolicyBindingLister(bindings.GetIndexer())
	metrics := policyvalidating.NewMetrics()
	d.metrics.MustRegister(metrics.Collectors()...)
	return policyvalidating.New(policyvalidating.Config{
		Policies: func() ([]*admissionregistrationv1.ValidatingAdmissionPolicy, error) {
			return policyLister.List(labels.Everything())
		},
		Bindings: func() ([]*admissionregistrationv1.ValidatingAdmissionPolicyBinding, error) {
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
