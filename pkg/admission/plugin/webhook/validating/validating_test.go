package validating

import (
	"context"
	"net/http"
	"strings"
	"testing"

	v1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/internal/webhooktest"
	"github.com/kapi-dev/kapi/pkg/admission"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/webhook"
	"github.com/kapi-dev/kapi/pkg/api/scheme"
	"github.com/kapi-dev/kapi/pkg/endpoints/warning"
)

func ptr[T any](v T) *T { return &v }

func hook(s *webhooktest.Server, name, path string, mutate func(*v1.ValidatingWebhook)) v1.ValidatingWebhook {
	w := v1.ValidatingWebhook{
		Name:                    name,
		ClientConfig:            v1.WebhookClientConfig{URL: ptr(s.URL + path), CABundle: s.CABundle},
		Rules:                   []v1.RuleWithOperations{{Operations: []v1.OperationType{v1.OperationAll}, Rule: v1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}}}},
		FailurePolicy:           ptr(v1.Fail),
		MatchPolicy:             ptr(v1.Equivalent),
		SideEffects:             ptr(v1.SideEffectClassNone),
		TimeoutSeconds:          ptr(int32(10)),
		AdmissionReviewVersions: []string{"v1"},
	}
	if mutate != nil {
		mutate(&w)
	}
	return w
}

func plugin(hooks ...v1.ValidatingWebhook) *Plugin {
	configs := []*v1.ValidatingWebhookConfiguration{{ObjectMeta: metav1.ObjectMeta{Name: "config", ResourceVersion: "1"}, Webhooks: hooks}}
	return New(webhook.Config{
		Source:  webhook.NewSource(func() ([]*v1.ValidatingWebhookConfiguration, error) { return configs, nil }, webhook.ValidatingHooks, nil),
		Matcher: &webhook.Matcher{},
		Clients: webhook.NewClientManager(nil, nil, nil),
		Metrics: webhook.NewMetrics(),
	}, nil)
}

func configMapCreate(labels map[string]string) *admission.Attributes {
	return &admission.Attributes{
		Name: "cm", Namespace: "", Resource: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"},
		Kind: schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, Operation: admission.Create,
		Object:  &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm", Labels: labels}},
		Options: &metav1.CreateOptions{},
		Objects: admission.ObjectInterfaces{Creater: scheme.Scheme, Convertor: scheme.Scheme, Defaulter: scheme.Scheme, Typer: scheme.Scheme},
	}
}

// Validating webhooks are called together: a slow one among several
// holds the write for its own time, not for the sum, and a refusal from
// any refuses the write, with the warnings of all.
func TestParallelCalls(t *testing.T) {
	s := webhooktest.Start(t)
	var hooks []v1.ValidatingWebhook
	for _, name := range []string{"a", "b", "c", "d"} {
		hooks = append(hooks, hook(s, name+".example.com", "/slow/delay/1s/warn/"+name, nil))
	}
	rec := warning.NewRecorder(http.Header{})
	ctx := warning.WithRecorder(context.Background(), rec)
	if err := plugin(hooks...).Validate(ctx, configMapCreate(nil)); err != nil {
		t.Fatal(err)
	}
	// Each call waits a second before it is answered: the four were
	// being answered at once.
	if got := len(s.Requests("slow")); got != 4 || s.MaxInFlight() != 4 {
		t.Fatalf("%d calls, %d at once; want 4 at once", got, s.MaxInFlight())
	}
	if got := rec.Texts(); len(got) != 4 {
		t.Errorf("warnings %q, want one of each webhook", got)
	}

	err := plugin(hook(s, "ok.example.com", "/allow/warn/fine", nil), hook(s, "no.example.com", "/deny/message/no%20way/code/403", nil)).
		Validate(ctx, configMapCreate(nil))
	if err == nil || err.Error() != `admission webhook "no.example.com" denied the request: no way` {
		t.Fatalf("error %v", err)
	}
}

// matchConditions in CEL decide, after the rules and selectors, whether
// a webhook is called; a condition that cannot be evaluated fails the
// write under failurePolicy Fail and skips the webhook under Ignore.
func TestMatchConditions(t *testing.T) {
	s := webhooktest.Start(t)
	deny := func(policy v1.FailurePolicyType, conditions ...v1.MatchCondition) *Plugin {
		return plugin(hook(s, "deny.example.com", "/deny/message/denied", func(w *v1.ValidatingWebhook) {
			w.FailurePolicy = ptr(policy)
			w.MatchConditions = conditions
		}))
	}
	cases := []struct {
		name    string
		plugin  *Plugin
		labels  map[string]string
		wantErr string
	}{
		{name: "true", plugin: deny(v1.Fail, v1.MatchCondition{Name: "labelled", Expression: `has(object.metadata.labels) && object.metadata.labels["deny"] == "yes"`}),
			labels: map[string]string{"deny": "yes"}, wantErr: `admission webhook "deny.example.com" denied the request: denied`},
		{name: "false", plugin: deny(v1.Fail, v1.MatchCondition{Name: "labelled", Expression: `has(object.metadata.labels) && object.metadata.labels["deny"] == "yes"`}),
			labels: map[string]string{"deny": "no"}},
		{name: "request variables", plugin: deny(v1.Fail, v1.MatchCondition{Name: "op", Expression: `request.operation == "CREATE" && request.kind.kind == "ConfigMap" && oldObject == null`}),
			wantErr: `admission webhook "deny.example.com" denied the request: denied`},
		{name: "error, Fail", plugin: deny(v1.Fail, v1.MatchCondition{Name: "missing", Expression: `object.metadata.labels["x"] == "y"`}),
			wantErr: `configmaps "cm" is forbidden: expression 'object.metadata.labels["x"] == "y"' resulted in error: no such key: labels`},
		{name: "error, Ignore", plugin: deny(v1.Ignore, v1.MatchCondition{Name: "missing", Expression: `object.metadata.labels["x"] == "y"`})},
		{name: "false wins over an error", plugin: deny(v1.Fail,
			v1.MatchCondition{Name: "missing", Expression: `object.metadata.labels["x"] == "y"`},
			v1.MatchCondition{Name: "never", Expression: `false`})},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.plugin.Validate(context.Background(), configMapCreate(tc.labels))
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("error %v, want none", err)
			case tc.wantErr != "" && (err == nil || err.Error() != tc.wantErr):
				t.Fatalf("error %v,\nwant %s", err, tc.wantErr)
			}
		})
	}
}

// A validating webhook may not patch.
func TestValidatingWebhookMayNotPatch(t *testing.T) {
	s := webhooktest.Start(t)
	err := plugin(hook(s, "patch.example.com", "/label/key/a/value/b", nil)).Validate(context.Background(), configMapCreate(nil))
	if err == nil || !strings.HasSuffix(err.Error(), `failed calling webhook "patch.example.com": received invalid webhook response: validating webhook may not return response.patch`) {
		t.Fatalf("error %v", err)
	}
}
