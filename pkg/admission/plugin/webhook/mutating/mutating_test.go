package mutating

import (
	"context"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/internal/webhooktest"
	"github.com/kapi-dev/kapi/pkg/admission"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/webhook"
	"github.com/kapi-dev/kapi/pkg/api/scheme"
	"github.com/kapi-dev/kapi/pkg/authentication/user"
	"github.com/kapi-dev/kapi/pkg/endpoints/auditcontext"
	"github.com/kapi-dev/kapi/pkg/endpoints/warning"
)

func ptr[T any](v T) *T { return &v }

func hook(s *webhooktest.Server, name, path string, mutate func(*v1.MutatingWebhook)) v1.MutatingWebhook {
	w := v1.MutatingWebhook{
		Name:                    name,
		ClientConfig:            v1.WebhookClientConfig{URL: ptr(s.URL + path), CABundle: s.CABundle},
		Rules:                   []v1.RuleWithOperations{{Operations: []v1.OperationType{v1.OperationAll}, Rule: v1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}}}},
		FailurePolicy:           ptr(v1.Fail),
		MatchPolicy:             ptr(v1.Equivalent),
		SideEffects:             ptr(v1.SideEffectClassNone),
		TimeoutSeconds:          ptr(int32(10)),
		AdmissionReviewVersions: []string{"v1"},
		ReinvocationPolicy:      ptr(v1.NeverReinvocationPolicy),
	}
	if mutate != nil {
		mutate(&w)
	}
	return w
}

func plugin(hooks ...v1.MutatingWebhook) *Plugin {
	configs := []*v1.MutatingWebhookConfiguration{{ObjectMeta: metav1.ObjectMeta{Name: "config", ResourceVersion: "1"}, Webhooks: hooks}}
	return New(webhook.Config{
		Source:  webhook.NewSource(func() ([]*v1.MutatingWebhookConfiguration, error) { return configs, nil }, webhook.MutatingHooks, nil),
		Matcher: &webhook.Matcher{},
		Clients: webhook.NewClientManager(nil, nil, nil),
		Metrics: webhook.NewMetrics(),
	}, nil)
}

func configMapCreate(dryRun bool) *admission.Attributes {
	return &admission.Attributes{
		Name: "cm", Resource: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"},
		Kind: schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, Operation: admission.Create,
		Object:  &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm"}, Data: map[string]string{"k": "v"}},
		Options: &metav1.CreateOptions{}, DryRun: dryRun,
		User:    &user.DefaultInfo{Name: "alice", Groups: []string{"devs"}},
		Objects: admission.ObjectInterfaces{Creater: scheme.Scheme, Convertor: scheme.Scheme, Defaulter: scheme.Scheme, Typer: scheme.Scheme},
	}
}

// The chain's two runs of the mutating phase, as admission.Chain runs
// them.
func admit(ctx context.Context, p *Plugin, a *admission.Attributes) error {
	chain := admission.NewChain(nil, admission.NamedPlugin{Name: PluginName, Plugin: p})
	return chain.Admit(ctx, a)
}

// A mutating webhook's JSON patch is applied to the object the handler
// holds, whatever the AdmissionReview version; the webhook receives the
// write as kube-apiserver sends it, and its warnings reach the client.
func TestPatchReachesTheObject(t *testing.T) {
	s := webhooktest.Start(t)
	for _, version := range []string{"v1", "v1beta1"} {
		t.Run(version, func(t *testing.T) {
			p := plugin(hook(s, "label.example.com", "/label/key/team/value/blue/warn/labelled%20"+version, func(w *v1.MutatingWebhook) {
				w.AdmissionReviewVersions = []string{version}
			}))
			rec := warning.NewRecorder(http.Header{})
			ctx := warning.WithRecorder(context.Background(), rec)
			a := configMapCreate(false)
			if err := admit(ctx, p, a); err != nil {
				t.Fatal(err)
			}
			if got := a.Object.(*corev1.ConfigMap).Labels["team"]; got != "blue" {
				t.Errorf("label team=%q after the webhook, want blue", got)
			}
			if got := rec.Texts(); len(got) != 1 || got[0] != "labelled "+version {
				t.Errorf("warnings %q", got)
			}
			reqs := s.Requests("label")
			r := reqs[len(reqs)-1]
			if r.APIVersion != "admission.k8s.io/"+version {
				t.Errorf("review version %s", r.APIVersion)
			}
			if r.Request.Kind.Kind != "ConfigMap" || r.Request.Operation != "CREATE" || r.Request.UserInfo.Username != "alice" || *r.Request.DryRun {
				t.Errorf("request %+v", r.Request)
			}
			if !strings.Contains(string(r.Request.Object.Raw), `"kind":"ConfigMap","apiVersion":"v1"`) ||
				!strings.Contains(string(r.Request.Options.Raw), `"kind":"CreateOptions","apiVersion":"meta.k8s.io/v1"`) {
				t.Errorf("object %s, options %s", r.Request.Object.Raw, r.Request.Options.Raw)
			}
		})
	}
}

// A webhook with reinvocationPolicy IfNeeded is called again when a
// webhook after it changed the object; one with Never is not.
func TestReinvocation(t *testing.T) {
	s := webhooktest.Start(t)
	p := plugin(
		hook(s, "first.example.com", "/label/key/first/value/1/warn/first", func(w *v1.MutatingWebhook) {
			w.ReinvocationPolicy = ptr(v1.IfNeededReinvocationPolicy)
		}),
		hook(s, "never.example.com", "/allow/warn/never", nil),
		hook(s, "second.example.com", "/label/key/second/value/2", nil),
	)
	a := configMapCreate(false)
	if err := admit(context.Background(), p, a); err != nil {
		t.Fatal(err)
	}
	labels := a.Object.(*corev1.ConfigMap).Labels
	if labels["first"] != "1" || labels["second"] != "2" {
		t.Errorf("labels %v", labels)
	}
	first := countCalls(s, "label", "first")
	never := len(s.Requests("allow"))
	if first != 2 || never != 1 {
		t.Errorf("first called %d times, never %d times; want 2 and 1", first, never)
	}
}

// countCalls counts the calls to path whose webhook's query set key.
func countCalls(s *webhooktest.Server, path, key string) int {
	n := 0
	for _, r := range s.Requests(path) {
		if r.Query.Get("key") == key {
			n++
		}
	}
	return n
}

// The failures of a webhook, under each failure policy, with
// kube-apiserver's messages.
func TestFailures(t *testing.T) {
	s := webhooktest.Start(t)
	host := strings.TrimPrefix(s.URL, "https://")
	cases := []struct {
		name    string
		path    string
		policy  v1.FailurePolicyType
		timeout int32
		dryRun  bool
		side    v1.SideEffectClass
		want    string
		code    int32
	}{
		{name: "denied", path: "/deny/message/not%20today", policy: v1.Ignore,
			want: `admission webhook "w.example.com" denied the request: not today`, code: 400},
		{name: "denied with a code", path: "/deny/message/nope/code/422", policy: v1.Fail,
			want: `admission webhook "w.example.com" denied the request: nope`, code: 422},
		{name: "denied without explanation", path: "/deny", policy: v1.Fail,
			want: `admission webhook "w.example.com" denied the request without explanation`, code: 400},
		{name: "timeout, Fail", path: "/slow/delay/5s", policy: v1.Fail, timeout: 1,
			want: `Internal error occurred: failed calling webhook "w.example.com": failed to call webhook: Post "https://` + host + `/slow/delay/5s?timeout=1s": context deadline exceeded`, code: 500},
		{name: "timeout, Ignore", path: "/slow/delay/5s", policy: v1.Ignore, timeout: 1},
		{name: "wrong uid, Fail", path: "/bad-uid", policy: v1.Fail,
			want: `Internal error occurred: failed calling webhook "w.example.com": received invalid webhook response: expected response.uid=`, code: 500},
		{name: "server error, Fail", path: "/error", policy: v1.Fail,
			want: `Internal error occurred: failed calling webhook "w.example.com": failed to call webhook: an error on the server ("webhook failed") has prevented the request from succeeding`, code: 500},
		{name: "dry run, side effects Some", path: "/allow", policy: v1.Ignore, dryRun: true, side: v1.SideEffectClassSome,
			want: `admission webhook "w.example.com" does not support dry run`, code: 400},
		{name: "dry run, side effects NoneOnDryRun", path: "/allow", policy: v1.Fail, dryRun: true, side: v1.SideEffectClassNoneOnDryRun},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := plugin(hook(s, "w.example.com", tc.path, func(w *v1.MutatingWebhook) {
				w.FailurePolicy = ptr(tc.policy)
				if tc.timeout != 0 {
					w.TimeoutSeconds = ptr(tc.timeout)
				}
				if tc.side != "" {
					w.SideEffects = ptr(tc.side)
				}
			}))
			err := admit(context.Background(), p, configMapCreate(tc.dryRun))
			if tc.want == "" {
				if err != nil {
					t.Fatalf("error %v, want none", err)
				}
				return
			}
			var status apierrors.APIStatus
			if err == nil || !asStatus(err, &status) {
				t.Fatalf("error %v, want a status", err)
			}
			if !strings.HasPrefix(err.Error(), tc.want) || status.Status().Code != tc.code {
				t.Errorf("error %d %q,\nwant %d %q", status.Status().Code, err, tc.code, tc.want)
			}
		})
	}
}

// A webhook's timeout never outlasts the write's own deadline: the call
// is cut when the write's time is up, and the webhook is told the time
// left (the timeout parameter of its URL), not its own timeoutSeconds.
func TestTimeoutWithinTheRequestDeadline(t *testing.T) {
	s := webhooktest.Start(t)
	host := strings.TrimPrefix(s.URL, "https://")
	p := plugin(hook(s, "slow.example.com", "/slow/delay/30s", func(w *v1.MutatingWebhook) {
		w.TimeoutSeconds = ptr(int32(20))
	}))
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	err := admit(ctx, p, configMapCreate(false))
	// The time left is rounded up to a second: 2s, or 1s on a slow
	// machine; never the webhook's 20s.
	want := regexp.MustCompile(`^Internal error occurred: failed calling webhook "slow.example.com": failed to call webhook: Post "https://` +
		regexp.QuoteMeta(host) + `/slow/delay/30s\?timeout=[12]s": context deadline exceeded$`)
	if err == nil || !want.MatchString(err.Error()) {
		t.Fatalf("error %v,\nwant %s", err, want)
	}

	// Failing open, the write ends there: its time is up.
	p = plugin(hook(s, "slow.example.com", "/slow/delay/30s", func(w *v1.MutatingWebhook) {
		w.TimeoutSeconds = ptr(int32(20))
		w.FailurePolicy = ptr(v1.Ignore)
	}))
	ctx, cancel = context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := admit(ctx, p, configMapCreate(false)); !apierrors.IsTimeout(err) {
		t.Fatalf("error %v, want a timeout", err)
	}
}

func asStatus(err error, into *apierrors.APIStatus) bool {
	s, ok := err.(apierrors.APIStatus)
	*into = s
	return ok
}

// A mutating webhook's call leaves kube-apiserver's audit annotations:
// whether it mutated the object, its patch (at level Request and above),
// the annotations the webhook asked for under its name, and failing
// open.
func TestAuditAnnotations(t *testing.T) {
	s := webhooktest.Start(t)
	p := plugin(
		hook(s, "label.example.com", "/label/key/a/value/b", nil),
		hook(s, "annotate.example.com", "/annotate/key/decision/value/fine", nil),
		hook(s, "broken.example.com", "/error", func(w *v1.MutatingWebhook) { w.FailurePolicy = ptr(v1.Ignore) }),
	)
	audit := auditcontext.New("id")
	audit.Init(auditcontext.LevelRequest, false)
	if err := admit(auditcontext.With(context.Background(), audit), p, configMapCreate(false)); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"mutation.webhook.admission.k8s.io/round_0_index_0":             `{"configuration":"config","webhook":"label.example.com","mutated":true}`,
		"patch.webhook.admission.k8s.io/round_0_index_0":                `{"configuration":"config","webhook":"label.example.com","patch":[{"op":"add","path":"/metadata/labels","value":{}},{"op":"add","path":"/metadata/labels/a","value":"b"}],"patchType":"JSONPatch"}`,
		"mutation.webhook.admission.k8s.io/round_0_index_1":             `{"configuration":"config","webhook":"annotate.example.com","mutated":false}`,
		"annotate.example.com/decision":                                 "fine",
		"mutation.webhook.admission.k8s.io/round_0_index_2":             `{"configuration":"config","webhook":"broken.example.com","mutated":false}`,
		"failed-open.mutation.webhook.admission.k8s.io/round_0_index_2": "broken.example.com",
	}
	if diff := cmp.Diff(want, audit.Recorded().Annotations); diff != "" {
		t.Errorf("annotations (-want +got):\n%s", diff)
	}
}
