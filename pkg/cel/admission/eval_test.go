package admission

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/google/cel-go/common/types"
	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// recordingAuthorizer allows what allow says and records every check.
type recordingAuthorizer struct {
	checks []Check
	allow  func(Check) bool
}

func (r *recordingAuthorizer) Authorize(_ context.Context, c Check) (bool, string, error) {
	r.checks = append(r.checks, c)
	if r.allow(c) {
		return true, "allowed by test", nil
	}
	return false, "denied by test", nil
}

func deployment(replicas int64) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": "web", "namespace": "ns1", "labels": map[string]any{"app": "web"}},
		"spec":     map[string]any{"replicas": replicas},
	}}
}

func input(authz Authorizer) Input {
	return Input{
		Object:    deployment(5),
		OldObject: deployment(3),
		Params:    &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "limits"}, Data: map[string]string{"max": "4"}},
		ParamKind: &metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		Request: &admissionv1.AdmissionRequest{
			Kind:     metav1.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"},
			Resource: metav1.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"},
			Name:     "web", Namespace: "ns1", Operation: admissionv1.Update,
			UserInfo: authenticationUser(),
		},
		Namespace:       &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ns1", Labels: map[string]string{"env": "prod"}}},
		Authorizer:      authz,
		User:            User{Name: "alice", Groups: []string{"devs"}},
		RequestResource: RequestResource{Group: "apps", Resource: "deployments", Namespace: "ns1", Name: "web"},
	}
}

func TestEvaluate(t *testing.T) {
	cases := []struct {
		name, expr string
		kind       Kind
		want       any
		wantErr    string
	}{
		{name: "object", expr: "object.spec.replicas > oldObject.spec.replicas", kind: Validation, want: true},
		{name: "params with their kind", expr: "params.kind + '/' + params.data.max", kind: Message, want: "ConfigMap/4"},
		{name: "request", expr: "request.operation + ' ' + request.resource.resource + ' by ' + request.userInfo.username", kind: Message, want: "UPDATE deployments by alice"},
		{name: "namespaceObject", expr: "namespaceObject.metadata.labels.env == 'prod'", kind: Validation, want: true},
		{name: "runtime error", expr: "object.spec.missing == 1", kind: Validation, wantErr: "expression 'object.spec.missing == 1' resulted in error: no such key: missing"},
		{name: "requestResource allowed", expr: "authorizer.requestResource.check('update').allowed()", kind: Validation, want: true},
		{name: "decision reason", expr: "authorizer.group('').resource('secrets').namespace('ns1').check('get').reason()", kind: AuditAnnotation, want: "denied by test"},
		{name: "service account", expr: "authorizer.serviceAccount('ns1', 'builder').group('apps').resource('deployments').check('create').allowed()", kind: Validation, want: true},
		{name: "path", expr: "authorizer.path('/healthz').check('get').allowed()", kind: Validation, want: false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			az := &recordingAuthorizer{allow: func(c Check) bool {
				return c.Resource == "deployments" && (c.User.Name == "alice" || strings.HasPrefix(c.User.Name, "system:serviceaccount:ns1:"))
			}}
			e := NewStoredCompiler(false, true).Compile(tc.expr, tc.kind)
			if e.Err != nil {
				t.Fatalf("compile: %v", e.Err)
			}
			a, err := NewActivation(context.Background(), input(az))
			if err != nil {
				t.Fatal(err)
			}
			budget := int64(Budget)
			r, fatal := a.Eval(context.Background(), e, &budget)
			if fatal != nil {
				t.Fatal(fatal)
			}
			if tc.wantErr != "" {
				if r.Err == nil || r.Err.Error() != tc.wantErr {
					t.Fatalf("got error %v, want %q", r.Err, tc.wantErr)
				}
				return
			}
			if r.Err != nil {
				t.Fatal(r.Err)
			}
			if r.Value.Value() != tc.want {
				t.Fatalf("got %v, want %v", r.Value.Value(), tc.want)
			}
		})
	}
}

func TestAuthorizerChecks(t *testing.T) {
	az := &recordingAuthorizer{allow: func(Check) bool { return true }}
	e := NewStoredCompiler(false, false).Compile("authorizer.requestResource.check('update').allowed() && authorizer.serviceAccount('ns1', 'sa').group('').resource('pods').subresource('log').name('p').fieldSelector('spec.nodeName=n').check('get').allowed()", Validation)
	a, err := NewActivation(context.Background(), input(az))
	if err != nil {
		t.Fatal(err)
	}
	budget := int64(Budget)
	if r, err := a.Eval(context.Background(), e, &budget); err != nil || r.Value != types.True {
		t.Fatalf("got %v, %v", r, err)
	}
	want := []Check{
		{User: User{Name: "alice", Groups: []string{"devs"}}, Verb: "update", ResourceRequest: true, APIGroup: "apps", Resource: "deployments", Namespace: "ns1", Name: "web"},
		{User: User{Name: "system:serviceaccount:ns1:sa", Groups: []string{"system:serviceaccounts", "system:serviceaccounts:ns1"}, Extra: map[string][]string{}},
			Verb: "get", ResourceRequest: true, Resource: "pods", Subresource: "log", Name: "p", FieldSelector: "spec.nodeName=n"},
	}
	if len(az.checks) != len(want) {
		t.Fatalf("checks %+v, want %+v", az.checks, want)
	}
	for i := range want {
		if got := az.checks[i]; got.User.Name != want[i].User.Name || strings.Join(got.User.Groups, ",") != strings.Join(want[i].User.Groups, ",") ||
			got.Verb != want[i].Verb || got.APIGroup != want[i].APIGroup || got.Resource != want[i].Resource || got.Subresource != want[i].Subresource ||
			got.Namespace != want[i].Namespace || got.Name != want[i].Name || got.FieldSelector != want[i].FieldSelector {
			t.Errorf("check %d: got %+v, want %+v", i, got, want[i])
		}
	}
}

// A variable is evaluated once per activation however many expressions
// read it, and its cost is charged to the expression that read it first.
func TestVariablesLazyOnce(t *testing.T) {
	az := &recordingAuthorizer{allow: func(Check) bool { return true }}
	c := NewStoredCompiler(true, false)
	c.CompileVariable("canUpdate", "authorizer.requestResource.check('update').allowed()")
	c.CompileVariable("unused", "authorizer.path('/x').check('get').allowed()")
	first := c.Compile("variables.canUpdate", Validation)
	second := c.Compile("variables.canUpdate && variables.canUpdate", Validation)
	in := input(az)
	in.Variables = c.Variables()
	a, err := NewActivation(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	budget := int64(Budget)
	for _, e := range []*Expression{first, second} {
		if r, err := a.Eval(context.Background(), e, &budget); err != nil || r.Value != types.True {
			t.Fatalf("%s: got %v, %v", e.Text, r, err)
		}
	}
	if len(az.checks) != 1 {
		t.Fatalf("the authorizer was asked %d times, want once", len(az.checks))
	}
	if spent := Budget - budget; spent < 350000 {
		t.Fatalf("spent %d, want at least the check's 350000", spent)
	}
}

func TestVariableErrors(t *testing.T) {
	c := NewStoredCompiler(true, false)
	c.CompileVariable("bad", "object.spec.nope")
	e := c.Compile("variables.bad == 1", Validation)
	in := input(nil)
	in.Variables = c.Variables()
	a, _ := NewActivation(context.Background(), in)
	budget := int64(Budget)
	r, err := a.Eval(context.Background(), e, &budget)
	want := `expression 'variables.bad == 1' resulted in error: composited variable "bad" fails to evaluate: no such key: nope`
	if err != nil || r.Err == nil || r.Err.Error() != want {
		t.Fatalf("got %v, %v; want %q", r.Err, err, want)
	}
}

func TestCostLimits(t *testing.T) {
	big := make([]any, 200)
	for i := range big {
		big[i] = int64(i)
	}
	cases := []struct {
		name      string
		expr      string
		budget    int64
		wantErr   string
		wantFatal string
	}{
		{name: "one expression over the per-call limit", budget: Budget,
			expr:    "object.list.all(x, object.list.all(y, object.list.all(z, true)))",
			wantErr: "expression 'object.list.all(x, object.list.all(y, object.list.all(z, true)))' resulted in error: operation cancelled: actual cost limit exceeded"},
		{name: "the write's budget spent", budget: 100, expr: "object.list.all(x, x >= 0)", wantFatal: OutOfBudget},
		{name: "within both", budget: 10000, expr: "object.list.all(x, x >= 0)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := input(nil)
			in.Object = &unstructured.Unstructured{Object: map[string]any{"list": big}}
			a, _ := NewActivation(context.Background(), in)
			e := NewStoredCompiler(false, false).Compile(tc.expr, Validation)
			budget := tc.budget
			r, fatal := a.Eval(context.Background(), e, &budget)
			switch {
			case tc.wantFatal != "":
				if fatal == nil || fatal.Error() != tc.wantFatal {
					t.Fatalf("got fatal %v, want %q", fatal, tc.wantFatal)
				}
			case tc.wantErr != "":
				if fatal != nil || r.Err == nil || r.Err.Error() != tc.wantErr {
					t.Fatalf("got %v / %v, want %q", r.Err, fatal, tc.wantErr)
				}
			default:
				if fatal != nil || r.Err != nil || r.Value != types.True || budget >= tc.budget {
					t.Fatalf("got %v %v %v, budget %d", r.Value, r.Err, fatal, budget)
				}
			}
		})
	}
}

func authenticationUser() authenticationv1.UserInfo {
	return authenticationv1.UserInfo{Username: "alice", Groups: []string{"devs"}}
}

// The activations of one write that share Values see the same converted
// object, request and namespace, converted once; without Values each
// activation converts its own, and a different object is converted
// again.
func TestValuesConvertAWritesObjectsOnce(t *testing.T) {
	ctx := context.Background()
	in := input(nil)
	in.Namespace = &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ns1"}}
	values := NewValues()
	in.Values = values
	first, err := NewActivation(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	second, err := NewActivation(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"object", "request", "namespaceObject"} {
		if !sameMap(t, first, second, name) {
			t.Errorf("%s: converted again for the second activation of the write", name)
		}
	}

	in.Values = nil
	third, err := NewActivation(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if sameMap(t, first, third, "object") {
		t.Error("object: shared without Values")
	}
	in.Values, in.Object = values, deployment(7)
	fourth, err := NewActivation(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if sameMap(t, first, fourth, "object") {
		t.Error("object: another object got the first one's value")
	}
}

func sameMap(t *testing.T, a, b *Activation, name string) bool {
	t.Helper()
	va, _ := a.ResolveName(name)
	vb, _ := b.ResolveName(name)
	ma, okA := va.(map[string]any)
	mb, okB := vb.(map[string]any)
	if !okA || !okB {
		t.Fatalf("%s: not maps: %T, %T", name, va, vb)
	}
	return reflect.ValueOf(ma).UnsafePointer() == reflect.ValueOf(mb).UnsafePointer()
}
