package validating

import (
	"context"
	"net/http"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	v1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/pkg/admission"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/policy/generic"
	"github.com/kapi-dev/kapi/pkg/api/scheme"
	"github.com/kapi-dev/kapi/pkg/authentication/user"
	"github.com/kapi-dev/kapi/pkg/authorization/authorizer"
	"github.com/kapi-dev/kapi/pkg/endpoints/auditcontext"
	"github.com/kapi-dev/kapi/pkg/endpoints/warning"
)

func ptr[T any](v T) *T { return &v }

type namespaceCache map[string]*corev1.Namespace

func (c namespaceCache) Get(name string) (*corev1.Namespace, error) {
	if ns, ok := c[name]; ok {
		return ns, nil
	}
	return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "namespaces"}, name)
}

func configMapPolicy(name string, mutate func(*v1.ValidatingAdmissionPolicySpec)) *v1.ValidatingAdmissionPolicy {
	p := &v1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: name, ResourceVersion: "1"},
		Spec: v1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr(v1.Fail),
			MatchConstraints: &v1.MatchResources{
				NamespaceSelector: &metav1.LabelSelector{}, ObjectSelector: &metav1.LabelSelector{}, MatchPolicy: ptr(v1.Equivalent),
				ResourceRules: []v1.NamedRuleWithOperations{{RuleWithOperations: v1.RuleWithOperations{
					Operations: []v1.OperationType{v1.Create},
					Rule:       v1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}},
				}}},
			},
		},
	}
	mutate(&p.Spec)
	return p
}

func binding(name, policy string, actions ...v1.ValidationAction) *v1.ValidatingAdmissionPolicyBinding {
	return &v1.ValidatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: v1.ValidatingAdmissionPolicyBindingSpec{PolicyName: policy, ValidationActions: actions}}
}

func configMapCreate(name string, data map[string]string) *admission.Attributes {
	return &admission.Attributes{
		Name: name, Namespace: "ns1", Operation: admission.Create,
		Resource: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"},
		Kind:     schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"},
		Object:   &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns1"}, Data: data},
		Options:  &metav1.CreateOptions{},
		User:     &user.DefaultInfo{Name: "alice"},
		Objects:  admission.ObjectInterfaces{Creater: scheme.Scheme, Convertor: scheme.Scheme, Defaulter: scheme.Scheme, Typer: scheme.Scheme},
	}
}

func newPlugin(policies []*v1.ValidatingAdmissionPolicy, bindings []*v1.ValidatingAdmissionPolicyBinding) *Plugin {
	return New(Config{
		Policies: func() ([]*v1.ValidatingAdmissionPolicy, error) { return policies, nil },
		Bindings: func() ([]*v1.ValidatingAdmissionPolicyBinding, error) { return bindings, nil },
		Matcher:  generic.NewMatcher(namespaceCache{"ns1": {ObjectMeta: metav1.ObjectMeta{Name: "ns1"}}}, nil, nil),
		Params:   &generic.Params{},
		Authorizer: authorizer.AuthorizerFunc(func(_ context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
			return authorizer.DecisionNoOpinion, "", nil
		}),
		Metrics: NewMetrics(),
	})
}

type outcome struct {
	code        int32
	reason      metav1.StatusReason
	message     string
	warnings    []string
	annotations map[string]string
}

func run(t *testing.T, p *Plugin, a *admission.Attributes) outcome {
	t.Helper()
	rec := warning.NewRecorder(http.Header{})
	audit := auditcontext.New("1")
	audit.Init(auditcontext.LevelMetadata, false)
	ctx := auditcontext.With(warning.WithRecorder(context.Background(), rec), audit)
	var out outcome
	if err := p.Validate(ctx, a); err != nil {
		status, ok := err.(apierrors.APIStatus)
		if !ok {
			t.Fatalf("error %T %v is not a Status", err, err)
		}
		out.code, out.reason, out.message = status.Status().Code, status.Status().Reason, status.Status().Message
	}
	out.warnings = rec.Texts()
	out.annotations = audit.Recorded().Annotations
	return out
}

func TestValidate(t *testing.T) {
	ownerRequired := func(s *v1.ValidatingAdmissionPolicySpec) {
		s.Validations = []v1.Validation{{Expression: "has(object.data) && 'owner' in object.data", Message: "names its owner", Reason: ptr(metav1.StatusReasonForbidden)}}
		s.AuditAnnotations = []v1.AuditAnnotation{{Key: "user", ValueExpression: "request.userInfo.username"}}
	}
	cases := []struct {
		name     string
		policies []*v1.ValidatingAdmissionPolicy
		bindings []*v1.ValidatingAdmissionPolicyBinding
		write    *admission.Attributes
		want     outcome
	}{
		{
			name:     "denied with the validation's reason",
			policies: []*v1.ValidatingAdmissionPolicy{configMapPolicy("owners", ownerRequired)},
			bindings: []*v1.ValidatingAdmissionPolicyBinding{binding("owners-deny", "owners", v1.Deny)},
			write:    configMapCreate("cm", nil),
			want: outcome{code: 403, reason: metav1.StatusReasonForbidden,
				message:     `configmaps "cm" is forbidden: ValidatingAdmissionPolicy 'owners' with binding 'owners-deny' denied request: names its owner`,
				annotations: map[string]string{"owners/user": "alice"}},
		},
		{
			name:     "warned and audited",
			policies: []*v1.ValidatingAdmissionPolicy{configMapPolicy("owners", ownerRequired)},
			bindings: []*v1.ValidatingAdmissionPolicyBinding{binding("owners-warn", "owners", v1.Warn, v1.Audit)},
			write:    configMapCreate("cm", nil),
			want: outcome{
				warnings: []string{"Validation failed for ValidatingAdmissionPolicy 'owners' with binding 'owners-warn': names its owner"},
				annotations: map[string]string{"owners/user": "alice",
					"validation.policy.admission.k8s.io/validation_failure": `[{"message":"names its owner","policy":"owners","binding":"owners-warn","expressionIndex":0,"validationActions":["Warn","Audit"]}]`},
			},
		},
		{
			name:     "allowed",
			policies: []*v1.ValidatingAdmissionPolicy{configMapPolicy("owners", ownerRequired)},
			bindings: []*v1.ValidatingAdmissionPolicyBinding{binding("owners-deny", "owners", v1.Deny)},
			write:    configMapCreate("cm", map[string]string{"owner": "me"}),
			want:     outcome{annotations: map[string]string{"owners/user": "alice"}},
		},
		{
			name: "an audit annotation of the wrong type fails the write",
			policies: []*v1.ValidatingAdmissionPolicy{configMapPolicy("typed", func(s *v1.ValidatingAdmissionPolicySpec) {
				s.AuditAnnotations = []v1.AuditAnnotation{{Key: "size", ValueExpression: "object.metadata.name.size()"}}
			})},
			bindings: []*v1.ValidatingAdmissionPolicyBinding{binding("typed", "typed", v1.Audit)},
			write:    configMapCreate("cm", nil),
			want: outcome{code: 422, reason: metav1.StatusReasonInvalid,
				message: `configmaps "cm" is forbidden: ValidatingAdmissionPolicy 'typed' with binding 'typed' denied request: compilation error: must evaluate to one of [string null_type] but got int`},
		},
		{
			name: "a message expression that is not usable falls back to the expression",
			policies: []*v1.ValidatingAdmissionPolicy{configMapPolicy("messages", func(s *v1.ValidatingAdmissionPolicySpec) {
				s.Validations = []v1.Validation{{Expression: "false", MessageExpression: "'two\\nlines'"}}
			})},
			bindings: []*v1.ValidatingAdmissionPolicyBinding{binding("messages", "messages", v1.Deny)},
			write:    configMapCreate("cm", nil),
			want: outcome{code: 422, reason: metav1.StatusReasonInvalid,
				message: `configmaps "cm" is forbidden: ValidatingAdmissionPolicy 'messages' with binding 'messages' denied request: failed expression: false`},
		},
		{
			name: "a runtime error ignored",
			policies: []*v1.ValidatingAdmissionPolicy{configMapPolicy("ignored", func(s *v1.ValidatingAdmissionPolicySpec) {
				s.FailurePolicy = ptr(v1.Ignore)
				s.Validations = []v1.Validation{{Expression: "object.data.missing == 'x'"}}
			})},
			bindings: []*v1.ValidatingAdmissionPolicyBinding{binding("ignored", "ignored", v1.Deny)},
			write:    configMapCreate("cm", map[string]string{}),
		},
		{
			name: "the first policy by name is reported",
			policies: []*v1.ValidatingAdmissionPolicy{
				configMapPolicy("b", func(s *v1.ValidatingAdmissionPolicySpec) {
					s.Validations = []v1.Validation{{Expression: "false", Message: "b says no"}}
				}),
				configMapPolicy("a", func(s *v1.ValidatingAdmissionPolicySpec) {
					s.Validations = []v1.Validation{{Expression: "false", Message: "a says no"}}
				}),
			},
			bindings: []*v1.ValidatingAdmissionPolicyBinding{binding("b", "b", v1.Deny), binding("a", "a", v1.Deny)},
			write:    configMapCreate("cm", nil),
			want: outcome{code: 422, reason: metav1.StatusReasonInvalid,
				message: `configmaps "cm" is forbidden: ValidatingAdmissionPolicy 'a' with binding 'a' denied request: a says no`},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := run(t, newPlugin(tc.policies, tc.bindings), tc.write)
			if got.code != tc.want.code || got.reason != tc.want.reason || got.message != tc.want.message {
				t.Errorf("got %d %s %q, want %d %s %q", got.code, got.reason, got.message, tc.want.code, tc.want.reason, tc.want.message)
			}
			if strings.Join(got.warnings, "|") != strings.Join(tc.want.warnings, "|") {
				t.Errorf("warnings %q, want %q", got.warnings, tc.want.warnings)
			}
			if len(got.annotations) != len(tc.want.annotations) {
				t.Errorf("annotations %v, want %v", got.annotations, tc.want.annotations)
			}
			for k, v := range tc.want.annotations {
				if got.annotations[k] != v {
					t.Errorf("annotation %s = %q, want %q", k, got.annotations[k], v)
				}
			}
		})
	}
}

// The policies and their bindings are exempt: a policy cannot lock
// itself in.
func TestPolicyResourcesExempt(t *testing.T) {
	p := newPlugin([]*v1.ValidatingAdmissionPolicy{configMapPolicy("all", func(s *v1.ValidatingAdmissionPolicySpec) {
		s.MatchConstraints.ResourceRules[0].Rule = v1.Rule{APIGroups: []string{"*"}, APIVersions: []string{"*"}, Resources: []string{"*"}}
		s.Validations = []v1.Validation{{Expression: "false"}}
	})}, []*v1.ValidatingAdmissionPolicyBinding{binding("all", "all", v1.Deny)})
	a := &admission.Attributes{Name: "x", Operation: admission.Create,
		Resource: schema.GroupVersionResource{Group: v1.GroupName, Version: "v1", Resource: "validatingadmissionpolicybindings"},
		Kind:     schema.GroupVersionKind{Group: v1.GroupName, Version: "v1", Kind: "ValidatingAdmissionPolicyBinding"},
		Object:   &v1.ValidatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: "x"}}}
	if err := p.Validate(context.Background(), a); err != nil {
		t.Fatalf("a binding's write was refused: %v", err)
	}
}

func TestMetrics(t *testing.T) {
	p := newPlugin([]*v1.ValidatingAdmissionPolicy{configMapPolicy("owners", func(s *v1.ValidatingAdmissionPolicySpec) {
		s.Validations = []v1.Validation{{Expression: "has(object.data)"}, {Expression: "object.missing == 'x'"}, {Expression: "object.missing"}}
	})}, []*v1.ValidatingAdmissionPolicyBinding{binding("owners", "owners", v1.Warn)})
	run(t, p, configMapCreate("cm", nil))
	m := p.cfg.Metrics
	var metric dto.Metric
	if err := m.checks.WithLabelValues("owners", "owners", "invalid_error", "warn").Write(&metric); err != nil {
		t.Fatal(err)
	}
	if got := metric.GetCounter().GetValue(); got != 2 {
		t.Fatalf("check_total{warn,invalid_error} = %v, want 2 (a failed validation and an error)", got)
	}
	if err := m.checks.WithLabelValues("owners", "owners", "compile_error", "warn").Write(&metric); err != nil {
		t.Fatal(err)
	}
	if got := metric.GetCounter().GetValue(); got != 1 {
		t.Fatalf("check_total{warn,compile_error} = %v, want 1 (a validation that is not a bool)", got)
	}
}
