package validatingadmissionpolicystatus

import (
	"fmt"
	"reflect"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/pkg/api/scheme"
	"github.com/kapi-dev/kapi/pkg/cel/schemas"
)

// schemaless knows no schema but Deployment's: other kinds are skipped.
type schemaless struct{ SchemaResolver }

func (s schemaless) ResolveSchema(gvk schema.GroupVersionKind) (schemas.Schema, error) {
	if gvk.Kind != "Deployment" {
		return nil, fmt.Errorf("%v: %w", gvk, ErrSchemaNotFound)
	}
	return s.SchemaResolver.ResolveSchema(gvk)
}

func mapper(kinds ...schema.GroupVersionKind) meta.RESTMapper {
	m := meta.NewDefaultRESTMapper(nil)
	for _, k := range kinds {
		m.Add(k, meta.RESTScopeNamespace)
	}
	return m
}

func rule(groups, versions, resources []string) admissionregistrationv1.NamedRuleWithOperations {
	return admissionregistrationv1.NamedRuleWithOperations{RuleWithOperations: admissionregistrationv1.RuleWithOperations{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
		Rule:       admissionregistrationv1.Rule{APIGroups: groups, APIVersions: versions, Resources: resources},
	}}
}

// Which kinds a policy is checked against, in which order: the rules'
// names without wildcards or subresources, sorted by group, version and
// kind, at most ten.
func TestKindsToCheck(t *testing.T) {
	deployment := schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
	replicaSet := schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "ReplicaSet"}
	pod := schema.GroupVersionKind{Version: "v1", Kind: "Pod"}
	var many []schema.GroupVersionKind
	var manyResources []string
	for i := range 12 {
		many = append(many, schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: fmt.Sprintf("Kind%02d", i)})
		manyResources = append(manyResources, fmt.Sprintf("kind%02ds", i))
	}
	c := &TypeChecker{RESTMapper: mapper(append([]schema.GroupVersionKind{deployment, replicaSet, pod}, many...)...)}
	cases := []struct {
		name  string
		rules []admissionregistrationv1.NamedRuleWithOperations
		want  []schema.GroupVersionKind
	}{
		{"sorted", []admissionregistrationv1.NamedRuleWithOperations{
			rule([]string{"apps"}, []string{"v1"}, []string{"replicasets", "deployments"}),
			rule([]string{""}, []string{"v1"}, []string{"pods"}),
		}, []schema.GroupVersionKind{pod, deployment, replicaSet}},
		{"wildcard group", []admissionregistrationv1.NamedRuleWithOperations{rule([]string{"*"}, []string{"v1"}, []string{"pods"})}, nil},
		{"wildcard version", []admissionregistrationv1.NamedRuleWithOperations{rule([]string{""}, []string{"*"}, []string{"pods"})}, nil},
		{"wildcard and subresources skipped", []admissionregistrationv1.NamedRuleWithOperations{
			rule([]string{"apps"}, []string{"v1"}, []string{"*", "deployments/scale", "deployments"}),
		}, []schema.GroupVersionKind{deployment}},
		{"unknown resource", []admissionregistrationv1.NamedRuleWithOperations{rule([]string{"apps"}, []string{"v1"}, []string{"widgets"})}, nil},
		{"at most ten", []admissionregistrationv1.NamedRuleWithOperations{rule([]string{"example.com"}, []string{"v1"}, manyResources)}, many[:10]},
	}
	for _, tc := range cases {
		p := &admissionregistrationv1.ValidatingAdmissionPolicy{Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: tc.rules},
		}}
		if got := c.kindsToCheck(p); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// A kind whose schema is not found is not checked; an unknown paramKind
// leaves params dyn; a paramKind that does not parse leaves params
// undeclared.
func TestSchemasNotFound(t *testing.T) {
	c := &TypeChecker{
		Schemas:    schemaless{NewSchemaResolver(scheme.Scheme, nil)},
		RESTMapper: mapper(schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, schema.GroupVersionKind{Version: "v1", Kind: "Pod"}),
	}
	policy := func(paramKind *admissionregistrationv1.ParamKind, expressions ...string) *admissionregistrationv1.ValidatingAdmissionPolicy {
		p := &admissionregistrationv1.ValidatingAdmissionPolicy{Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			ParamKind: paramKind,
			MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{
				rule([]string{"", "apps"}, []string{"v1"}, []string{"pods", "deployments"}),
			}},
		}}
		for _, e := range expressions {
			p.Spec.Validations = append(p.Spec.Validations, admissionregistrationv1.Validation{Expression: e})
		}
		return p
	}
	// Pods have no schema here: only Deployment is named.
	got := c.Check(policy(&admissionregistrationv1.ParamKind{APIVersion: "example.com/v1", Kind: "Widget"},
		"object.spec.nothing == params.anything"))
	want := "apps/v1, Kind=Deployment: ERROR: <input>:1:12: undefined field 'nothing'\n | object.spec.nothing == params.anything\n | ...........^\n"
	if len(got) != 1 || got[0].Warning != want || got[0].FieldRef != "spec.validations[0].expression" {
		t.Errorf("warnings %+v, want one on spec.validations[0].expression:\n%s", got, want)
	}
	got = c.Check(policy(&admissionregistrationv1.ParamKind{APIVersion: "a/b/c", Kind: "Widget"}, "params != null"))
	if len(got) != 1 || got[0].FieldRef != "spec.validations[0].expression" {
		t.Errorf("params of a paramKind that does not parse: %+v, want undeclared", got)
	}
}
