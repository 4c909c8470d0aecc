package generic

import (
	"context"
	"testing"

	v1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kapi-dev/kapi/pkg/admission"
)

type namespaceCache map[string]*corev1.Namespace

func (c namespaceCache) Get(name string) (*corev1.Namespace, error) {
	if ns, ok := c[name]; ok {
		return ns, nil
	}
	return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "namespaces"}, name)
}

// equivalents serves deployments at apps/v1 and apps/v1beta1.
type equivalents struct{}

func (equivalents) EquivalentResourcesFor(r schema.GroupVersionResource, sub string) []schema.GroupVersionResource {
	if r.GroupResource() == (schema.GroupResource{Group: "apps", Resource: "deployments"}) {
		return []schema.GroupVersionResource{r, {Group: "apps", Version: "v1beta1", Resource: "deployments"}}
	}
	return []schema.GroupVersionResource{r}
}

func (equivalents) KindFor(r schema.GroupVersionResource, sub string) schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: r.Group, Version: r.Version, Kind: "Deployment"}
}

type policy struct {
	mc *v1.MatchResources
}

func (p policy) GetName() string                         { return "p" }
func (p policy) GetUID() types.UID                       { return "" }
func (p policy) GetResourceVersion() string              { return "" }
func (p policy) GetParamKind() *v1.ParamKind             { return nil }
func (p policy) GetMatchConstraints() *v1.MatchResources { return p.mc }
func (p policy) GetFailurePolicy() *v1.FailurePolicyType { return nil }
func (p policy) GetMatchConditions() []v1.MatchCondition { return nil }

func deploymentWrite(ns, name string, labels map[string]string) *admission.Attributes {
	d := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: labels}}
	return &admission.Attributes{
		Name: name, Namespace: ns, Operation: admission.Create, Object: d,
		Resource: schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"},
		Kind:     schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"},
	}
}

func rule(version string, names ...string) v1.NamedRuleWithOperations {
	return v1.NamedRuleWithOperations{ResourceNames: names, RuleWithOperations: v1.RuleWithOperations{
		Operations: []v1.OperationType{v1.Create},
		Rule:       v1.Rule{APIGroups: []string{"apps"}, APIVersions: []string{version}, Resources: []string{"deployments"}},
	}}
}

func TestPolicyMatches(t *testing.T) {
	everything := &metav1.LabelSelector{}
	equivalent, exact := v1.Equivalent, v1.Exact
	m := NewMatcher(namespaceCache{
		"prod": {ObjectMeta: metav1.ObjectMeta{Name: "prod", Labels: map[string]string{"env": "prod"}}},
		"dev":  {ObjectMeta: metav1.ObjectMeta{Name: "dev", Labels: map[string]string{"env": "dev"}}},
	}, nil, equivalents{})
	cases := []struct {
		name      string
		mc        *v1.MatchResources
		write     *admission.Attributes
		want      bool
		wantAs    string
		wantError string
	}{
		{name: "no constraints", write: deploymentWrite("prod", "web", nil), wantError: "policy contained no match constraints, a required field"},
		{name: "nil namespace selector", mc: &v1.MatchResources{ObjectSelector: everything}, write: deploymentWrite("prod", "web", nil),
			wantError: "a nil namespace selector was passed, please ensure selectors are initialized properly"},
		{name: "any deployment", mc: &v1.MatchResources{NamespaceSelector: everything, ObjectSelector: everything}, write: deploymentWrite("prod", "web", nil), want: true, wantAs: "apps/v1, Resource=deployments"},
		{name: "namespace selected", mc: &v1.MatchResources{NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}, ObjectSelector: everything,
			ResourceRules: []v1.NamedRuleWithOperations{rule("v1")}}, write: deploymentWrite("prod", "web", nil), want: true, wantAs: "apps/v1, Resource=deployments"},
		{name: "namespace not selected", mc: &v1.MatchResources{NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}, ObjectSelector: everything,
			ResourceRules: []v1.NamedRuleWithOperations{rule("v1")}}, write: deploymentWrite("dev", "web", nil)},
		{name: "missing namespace, rule matches", mc: &v1.MatchResources{NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}, ObjectSelector: everything,
			ResourceRules: []v1.NamedRuleWithOperations{rule("v1")}}, write: deploymentWrite("gone", "web", nil), wantError: `namespaces "gone" not found`},
		{name: "object selector", mc: &v1.MatchResources{NamespaceSelector: everything, ObjectSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}},
			write: deploymentWrite("prod", "web", map[string]string{"app": "db"})},
		{name: "resource names", mc: &v1.MatchResources{NamespaceSelector: everything, ObjectSelector: everything,
			ResourceRules: []v1.NamedRuleWithOperations{rule("v1", "other")}}, write: deploymentWrite("prod", "web", nil)},
		{name: "excluded by name", mc: &v1.MatchResources{NamespaceSelector: everything, ObjectSelector: everything,
			ResourceRules: []v1.NamedRuleWithOperations{rule("v1")}, ExcludeResourceRules: []v1.NamedRuleWithOperations{rule("v1", "web")}}, write: deploymentWrite("prod", "web", nil)},
		{name: "not excluded", mc: &v1.MatchResources{NamespaceSelector: everything, ObjectSelector: everything,
			ResourceRules: []v1.NamedRuleWithOperations{rule("v1")}, ExcludeResourceRules: []v1.NamedRuleWithOperations{rule("v1", "db")}}, write: deploymentWrite("prod", "web", nil), want: true, wantAs: "apps/v1, Resource=deployments"},
		{name: "equivalent version", mc: &v1.MatchResources{NamespaceSelector: everything, ObjectSelector: everything, MatchPolicy: &equivalent,
			ResourceRules: []v1.NamedRuleWithOperations{rule("v1beta1")}}, write: deploymentWrite("prod", "web", nil), want: true, wantAs: "apps/v1beta1, Resource=deployments"},
		{name: "exact version", mc: &v1.MatchResources{NamespaceSelector: everything, ObjectSelector: everything, MatchPolicy: &exact,
			ResourceRules: []v1.NamedRuleWithOperations{rule("v1beta1")}}, write: deploymentWrite("prod", "web", nil)},
		{name: "excluded through an equivalent", mc: &v1.MatchResources{NamespaceSelector: everything, ObjectSelector: everything, MatchPolicy: &equivalent,
			ExcludeResourceRules: []v1.NamedRuleWithOperations{rule("v1beta1")}}, write: deploymentWrite("prod", "web", nil)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ok, resource, _, err := m.PolicyMatches(context.Background(), tc.write, policy{tc.mc})
			if tc.wantError != "" {
				if err == nil || err.Error() != tc.wantError {
					t.Fatalf("got error %v, want %q", err, tc.wantError)
				}
				return
			}
			if err != nil || ok != tc.want {
				t.Fatalf("got %v, %v; want %v", ok, err, tc.want)
			}
			if ok && resource.String() != tc.wantAs {
				t.Fatalf("matched as %v, want %v", resource, tc.wantAs)
			}
		})
	}
}

func TestExempt(t *testing.T) {
	for resource, want := range map[schema.GroupResource]bool{
		{Group: v1.GroupName, Resource: "validatingadmissionpolicies"}: true, {Group: v1.GroupName, Resource: "validatingadmissionpolicybindings"}: true,
		{Group: v1.GroupName, Resource: "mutatingadmissionpolicies"}: true, {Group: v1.GroupName, Resource: "mutatingadmissionpolicybindings"}: true,
		{Group: "authorization.k8s.io", Resource: "subjectaccessreviews"}: true, {Group: "authentication.k8s.io", Resource: "tokenreviews"}: true,
		{Group: v1.GroupName, Resource: "validatingwebhookconfigurations"}: false, {Resource: "configmaps"}: false,
	} {
		a := &admission.Attributes{Resource: resource.WithVersion("v1")}
		if got := Exempt(a); got != want {
			t.Errorf("%s: exempt %v, want %v", resource, got, want)
		}
	}
}
