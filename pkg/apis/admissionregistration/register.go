package admissionregistration

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// AddDefaults registers the defaulting functions of the
// admissionregistration.k8s.io/v1 kinds, and of their lists, in scheme.
func AddDefaults(scheme *runtime.Scheme) error {
	addDefaults(scheme, SetDefaultsValidatingWebhookConfiguration, func(l *admissionregistrationv1.ValidatingWebhookConfigurationList) []admissionregistrationv1.ValidatingWebhookConfiguration {
		return l.Items
	})
	addDefaults(scheme, SetDefaultsMutatingWebhookConfiguration, func(l *admissionregistrationv1.MutatingWebhookConfigurationList) []admissionregistrationv1.MutatingWebhookConfiguration {
		return l.Items
	})
	addDefaults(scheme, SetDefaultsValidatingAdmissionPolicy, func(l *admissionregistrationv1.ValidatingAdmissionPolicyList) []admissionregistrationv1.ValidatingAdmissionPolicy {
		return l.Items
	})
	addDefaults(scheme, SetDefaultsValidatingAdmissionPolicyBinding, func(l *admissionregistrationv1.ValidatingAdmissionPolicyBindingList) []admissionregistrationv1.ValidatingAdmissionPolicyBinding {
		return l.Items
	})
	addDefaults(scheme, SetDefaultsMutatingAdmissionPolicy, func(l *admissionregistrationv1.MutatingAdmissionPolicyList) []admissionregistrationv1.MutatingAdmissionPolicy {
		return l.Items
	})
	addDefaults(scheme, SetDefaultsMutatingAdmissionPolicyBinding, func(l *admissionregistrationv1.MutatingAdmissionPolicyBindingList) []admissionregistrationv1.MutatingAdmissionPolicyBinding {
		return l.Items
	})
	return nil
}

// addDefaults registers set for the kind *T and for each item of its
// list *L.
func addDefaults[T any, L runtime.Object](scheme *runtime.Scheme, set func(*T), items func(L) []T) {
	var obj T
	scheme.AddTypeDefaultingFunc(any(&obj).(runtime.Object), func(o any) { set(o.(*T)) })
	var list L
	scheme.AddTypeDefaultingFunc(list, func(o any) {
		l := items(o.(L))
		for i := range l {
			set(&l[i])
		}
	})
}
