package matching

import (
	"testing"

	v1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/pkg/admission"
)

func TestRuleMatches(t *testing.T) {
	namespaced, cluster := v1.NamespacedScope, v1.ClusterScope
	pods := schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	namespaces := schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
	rule := func(resources []string, scope *v1.ScopeType, ops ...v1.OperationType) v1.RuleWithOperations {
		return v1.RuleWithOperations{Operations: ops, Rule: v1.Rule{APIGroups: []string{""}, APIVersions: []string{"*"}, Resources: resources, Scope: scope}}
	}
	cases := []struct {
		name        string
		rule        v1.RuleWithOperations
		resource    schema.GroupVersionResource
		subresource string
		namespace   string
		op          admission.Operation
		want        bool
	}{
		{name: "resource", rule: rule([]string{"pods"}, nil, v1.Create), resource: pods, namespace: "ns", op: admission.Create, want: true},
		{name: "other operation", rule: rule([]string{"pods"}, nil, v1.Create), resource: pods, namespace: "ns", op: admission.Update},
		{name: "all operations", rule: rule([]string{"pods"}, nil, v1.OperationAll), resource: pods, namespace: "ns", op: admission.Delete, want: true},
		{name: "not a subresource", rule: rule([]string{"pods"}, nil, v1.Create), resource: pods, subresource: "status", namespace: "ns", op: admission.Create},
		{name: "star is not subresources", rule: rule([]string{"*"}, nil, v1.Create), resource: pods, subresource: "status", namespace: "ns", op: admission.Create},
		{name: "star slash star", rule: rule([]string{"*/*"}, nil, v1.Create), resource: pods, subresource: "status", namespace: "ns", op: admission.Create, want: true},
		{name: "resource slash star", rule: rule([]string{"pods/*"}, nil, v1.Create), resource: pods, subresource: "binding", namespace: "ns", op: admission.Create, want: true},
		{name: "star slash status", rule: rule([]string{"*/status"}, nil, v1.Update), resource: pods, subresource: "status", namespace: "ns", op: admission.Update, want: true},
		{name: "namespaced scope", rule: rule([]string{"*"}, &namespaced, v1.Create), resource: pods, namespace: "ns", op: admission.Create, want: true},
		{name: "a namespace is cluster-scoped", rule: rule([]string{"*"}, &namespaced, v1.Create), resource: namespaces, namespace: "ns", op: admission.Create},
		{name: "cluster scope takes namespaces", rule: rule([]string{"*"}, &cluster, v1.Create), resource: namespaces, namespace: "ns", op: admission.Create, want: true},
		{name: "cluster scope, namespaced write", rule: rule([]string{"*"}, &cluster, v1.Create), resource: pods, namespace: "ns", op: admission.Create},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := &admission.Attributes{Resource: tc.resource, Subresource: tc.subresource, Namespace: tc.namespace, Operation: tc.op}
			if got := RuleMatches(tc.rule, a, tc.resource); got != tc.want {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}
