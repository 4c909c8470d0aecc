package mutating

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kapi-dev/kapi/pkg/admission"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/policy/generic"
	"github.com/kapi-dev/kapi/pkg/api/scheme"
	"github.com/kapi-dev/kapi/pkg/endpoints/fieldmanager"
)

// The semantics checked here are kube-apiserver's, as the admission
// corpus (test/corpus/testdata-admission/mutatingadmissionpolicy)
// records them through a whole server; these tests pin the plugin's own
// logic: order, reinvocation, failure policies.

type namespaceCache map[string]*corev1.Namespace

func (c namespaceCache) Get(name string) (*corev1.Namespace, error) {
	if ns, ok := c[name]; ok {
		return ns, nil
	}
	return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "namespaces"}, name)
}

func ptr[T any](v T) *T { return &v }

// newPolicy is a policy of configmaps with one mutation per expression
// (ApplyConfiguration, or JSONPatch when it starts with "[").
func newPolicy(name string, reinvocation v1.ReinvocationPolicyType, fail v1.FailurePolicyType, expressions ...string) *Policy {
	p := &Policy{
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("uid-" + name), ResourceVersion: "1"},
		Spec: v1.MutatingAdmissionPolicySpec{
			MatchConstraints: &v1.MatchResources{
				NamespaceSelector: &metav1.LabelSelector{}, ObjectSelector: &metav1.LabelSelector{},
				ResourceRules: []v1.NamedRuleWithOperations{{RuleWithOperations: v1.RuleWithOperations{
					Operations: []v1.OperationType{v1.OperationAll},
					Rule:       v1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}},
				}}},
				MatchPolicy: ptr(v1.Equivalent),
			},
			FailurePolicy:      ptr(fail),
			ReinvocationPolicy: reinvocation,
		},
	}
	for _, e := range expressions {
		if e[0] == '[' {
			p.Spec.Mutations = append(p.Spec.Mutations, v1.Mutation{PatchType: v1.PatchTypeJSONPatch, JSONPatch: &v1.JSONPatch{Expression: e}})
		} else {
			p.Spec.Mutations = append(p.Spec.Mutations, v1.Mutation{PatchType: v1.PatchTypeApplyConfiguration, ApplyConfiguration: &v1.ApplyConfiguration{Expression: e}})
		}
	}
	return p
}

func bindingOf(p *Policy) *Binding {
	return &Binding{ObjectMeta: metav1.ObjectMeta{Name: p.Name}, Spec: v1.MutatingAdmissionPolicyBindingSpec{PolicyName: p.Name}}
}

func newPlugin(policies ...*Policy) *Plugin {
	var bindings []*Binding
	for _, p := range policies {
		bindings = append(bindings, bindingOf(p))
	}
	return New(Config{
		Policies:  func() ([]*Policy, error) { return policies, nil },
		Bindings:  func() ([]*Binding, error) { return bindings, nil },
		HasSynced: func() bool { return true },
		Matcher:   generic.NewMatcher(namespaceCache{"ns": {ObjectMeta: metav1.ObjectMeta{Name: "ns"}}}, nil, nil),
		Params:    &generic.Params{},
		Metrics:   NewMetrics(),
	})
}

func configMapCreate(cm *corev1.ConfigMap) *admission.Attributes {
	cm.Namespace = "ns"
	return &admission.Attributes{
		Name: cm.Name, Namespace: "ns",
		Resource:  schema.GroupVersionResource{Version: "v1", Resource: "configmaps"},
		Kind:      schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"},
		Operation: admission.Create, Object: cm, Options: &metav1.CreateOptions{},
		Objects: admission.ObjectInterfaces{
			Creater: scheme.Scheme, Convertor: scheme.Scheme, Defaulter: scheme.Scheme, Typer: scheme.Scheme,
			TypeConverter: fieldmanager.SchemeTypeConverter(scheme.Scheme, nil),
		},
	}
}

// labeller is a built-in plugin after the policies that labels every
// configmap once.
type labeller struct{ admission.Handler }

func (labeller) Admit(_ context.Context, a *admission.Attributes) error {
	cm := a.Object.(*corev1.ConfigMap)
	if cm.Labels == nil {
		cm.Labels = map[string]string{}
	}
	cm.Labels["labelled"] = "yes"
	return nil
}

// counter counts its invocations in an annotation.
const counter = `Object{metadata: Object.metadata{annotations: {"%s": string(
	has(object.metadata.annotations) && "%[1]s" in object.metadata.annotations ? int(object.metadata.annotations["%[1]s"]) + 1 : 1)}}}`

func counting(name string) string { return fmt.Sprintf(counter, name) }

func TestPoliciesApplyInOrderAndReinvokeIfNeeded(t *testing.T) {
	for _, tc := range []struct {
		name     string
		policies []*Policy
		// labeller runs after the policies, as a later plugin would.
		labeller bool
		want     map[string]string
	}{{
		name: "each mutation sees the one before, policies in the order of their names",
		policies: []*Policy{
			newPolicy("b", v1.NeverReinvocationPolicy, v1.Fail, `Object{metadata: Object.metadata{annotations: {"b-saw-a": string(has(object.metadata.annotations) && "a" in object.metadata.annotations)}}}`),
			newPolicy("a", v1.NeverReinvocationPolicy, v1.Fail,
				`Object{metadata: Object.metadata{annotations: {"a": "1"}}}`,
				`[JSONPatch{op: "replace", path: "/metadata/annotations/a", value: object.metadata.annotations.a + "2"}]`),
		},
		want: map[string]string{"a": "12", "b-saw-a": "true"},
	}, {
		name: "IfNeeded is invoked again when a later policy changed the object; Never is not",
		policies: []*Policy{
			newPolicy("a-if-needed", v1.IfNeededReinvocationPolicy, v1.Fail, counting("if-needed")),
			newPolicy("b-never", v1.NeverReinvocationPolicy, v1.Fail, counting("never")),
		},
		want: map[string]string{"if-needed": "2", "never": "1"},
	}, {
		name: "IfNeeded is invoked again when a later plugin changed the object",
		policies: []*Policy{
			newPolicy("saw", v1.IfNeededReinvocationPolicy, v1.Fail, `Object{metadata: Object.metadata{annotations: {"saw-label": string(has(object.metadata.labels))}}}`),
		},
		labeller: true,
		want:     map[string]string{"saw-label": "true"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			plugins := []admission.NamedPlugin{{Name: PluginName, Plugin: newPlugin(tc.policies...)}}
			if tc.labeller {
				plugins = append(plugins, admission.NamedPlugin{Name: "labeller", Plugin: labeller{admission.NewHandler(admission.Create)}})
			}
			cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm"}}
			a := configMapCreate(cm)
			if err := admission.NewChain(nil, plugins...).Admit(context.Background(), a); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, a.Object.(*corev1.ConfigMap).Annotations); diff != "" {
				t.Errorf("annotations (-want +got):\n%s", diff)
			}
			if a.Object != runtime.Object(cm) {
				t.Errorf("the attributes' object was replaced; the handler holds the original")
			}
		})
	}
}

func TestFailuresAreDecidedByEachPolicysFailurePolicy(t *testing.T) {
	const fails = `[JSONPatch{op: "remove", path: "/data/missing"}]`
	const failMessage = `JSON Patch: error in remove for path: '/data/missing': Unable to remove nonexistent key: missing: missing value`
	for _, tc := range []struct {
		name     string
		policies []*Policy
		// wantMessage and wantCauses are the refusal's, none if empty.
		wantMessage string
		wantCauses  []string
		wantLabels  map[string]string
	}{{
		name: "Ignore drops the failure; the policy's other mutations apply",
		policies: []*Policy{newPolicy("ignore", v1.NeverReinvocationPolicy, v1.Ignore,
			fails, `Object{metadata: Object.metadata{labels: {"second": "applied"}}}`)},
		wantLabels: map[string]string{"second": "applied"},
	}, {
		name: "Fail refuses with the first failure; every failure is a cause",
		policies: []*Policy{
			newPolicy("a", v1.NeverReinvocationPolicy, v1.Fail, fails, fails),
			newPolicy("b", v1.NeverReinvocationPolicy, v1.Ignore, fails),
			newPolicy("c", v1.NeverReinvocationPolicy, v1.Fail, `Object{spec: Object.spec{x: 1}}`),
		},
		wantMessage: "policy 'a' with binding 'a' denied request: " + failMessage,
		wantCauses: []string{
			"policy 'a' with binding 'a' denied request: " + failMessage,
			"policy 'a' with binding 'a' denied request: " + failMessage,
			"policy 'c' with binding 'c' denied request: error applying patch: failed to convert patch object to typed object: .spec: field not declared in schema",
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			a := configMapCreate(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm"}, Data: map[string]string{"key": "value"}})
			err := newPlugin(tc.policies...).Admit(context.Background(), a)
			if tc.wantMessage == "" {
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tc.wantLabels, a.Object.(*corev1.ConfigMap).Labels); diff != "" {
					t.Errorf("labels (-want +got):\n%s", diff)
				}
				return
			}
			var status *apierrors.StatusError
			if !errors.As(err, &status) {
				t.Fatalf("got %v, want a refusal", err)
			}
			s := status.ErrStatus
			if s.Code != 403 || s.Reason != metav1.StatusReasonInvalid || s.Message != tc.wantMessage {
				t.Errorf("got %d %s %q, want 403 Invalid %q", s.Code, s.Reason, s.Message, tc.wantMessage)
			}
			var causes []string
			for _, c := range s.Details.Causes {
				causes = append(causes, c.Message)
			}
			if diff := cmp.Diff(tc.wantCauses, causes); diff != "" {
				t.Errorf("causes (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPolicyAndBindingResourcesAreNeverMutated(t *testing.T) {
	p := newPolicy("all", v1.NeverReinvocationPolicy, v1.Fail, `Object{metadata: Object.metadata{labels: {"x": "y"}}}`)
	p.Spec.MatchConstraints.ResourceRules[0].Rule = v1.Rule{APIGroups: []string{"*"}, APIVersions: []string{"*"}, Resources: []string{"*"}}
	obj := &v1.MutatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: "other"}}
	a := &admission.Attributes{
		Name:      "other",
		Resource:  v1.SchemeGroupVersion.WithResource("mutatingadmissionpolicies"),
		Kind:      v1.SchemeGroupVersion.WithKind("MutatingAdmissionPolicy"),
		Operation: admission.Create, Object: obj,
		Objects: configMapCreate(&corev1.ConfigMap{}).Objects,
	}
	if err := newPlugin(p).Admit(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	if obj.Labels != nil {
		t.Errorf("a policy was mutated: labels %v", obj.Labels)
	}
}
