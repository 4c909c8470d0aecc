package networking_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/apis/networking"
)

// Values stored before kube-apiserver validated them strictly stay
// accepted in updates that keep them: CIDRs of a NetworkPolicy, label
// values in the expressions of its selectors once its pod selector has an invalid one, the
// TLS secret names of an Ingress and the rules of its wildcard hosts.
// Objects with such values cannot be created today, so the corpus cannot
// show this; the messages are kube-apiserver's (see the corpus).
func TestUpdatesRatchetStoredInvalidValues(t *testing.T) {
	policy := func(cidr, label string) *networkingv1.NetworkPolicy {
		return &networkingv1.NetworkPolicy{
			ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns", ResourceVersion: "1"},
			Spec: networkingv1.NetworkPolicySpec{
				PodSelector: metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: metav1.LabelSelectorOpIn, Values: []string{label}}}},
				Ingress:     []networkingv1.NetworkPolicyIngressRule{{From: []networkingv1.NetworkPolicyPeer{{IPBlock: &networkingv1.IPBlock{CIDR: cidr}}}}},
			},
		}
	}
	old := policy("10.0.0.1/8", "bad value!")
	assertErrors(t, networking.ValidateNetworkPolicyUpdate(policy("10.0.0.1/8", "other bad!"), old), nil)
	assertErrors(t, networking.ValidateNetworkPolicyUpdate(policy("10.0.0.2/8", "ok"), old), []string{
		`spec.ingress[0].from[0].ipBlock.cidr: Invalid value: "10.0.0.2/8": must not have bits set beyond the prefix length`,
	})
	assertErrors(t, networking.ValidateNetworkPolicy(old), []string{
		`spec.podSelector.matchExpressions[0].values[0]: Invalid value: "bad value!": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
		`spec.ingress[0].from[0].ipBlock.cidr: Invalid value: "10.0.0.1/8": must not have bits set beyond the prefix length`,
	})

	prefix := networkingv1.PathTypePrefix
	ingress := func(secret, path string) *networkingv1.Ingress {
		return &networkingv1.Ingress{
			ObjectMeta: metav1.ObjectMeta{Name: "i", Namespace: "ns", ResourceVersion: "1"},
			Spec: networkingv1.IngressSpec{
				TLS: []networkingv1.IngressTLS{{SecretName: secret}},
				Rules: []networkingv1.IngressRule{{Host: "*.example.com", IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{
					Paths: []networkingv1.HTTPIngressPath{{Path: path, PathType: &prefix, Backend: networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: "web", Port: networkingv1.ServiceBackendPort{Number: 80}}}}},
				}}}},
			},
		}
	}
	oldIng := ingress("Bad_Secret", "relative")
	assertErrors(t, networking.ValidateIngressUpdate(ingress("Other_Bad", "also-relative"), oldIng), nil)
	assertErrors(t, networking.ValidateIngressUpdate(ingress("Bad_Secret", "relative"), ingress("good", "/")), []string{
		`spec.rules[0].http.paths[0].path: Invalid value: "relative": must be an absolute path`,
		`spec.tls[0].secretName: Invalid value: "Bad_Secret": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
	})
}

func assertErrors(t *testing.T, errs field.ErrorList, want []string) {
	t.Helper()
	var got []string
	for _, err := range errs {
		got = append(got, err.Error())
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("errors differ (-want +got):\n%s", diff)
	}
}
