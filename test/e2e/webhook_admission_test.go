package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kapi-dev/kapi/internal/webhooktest"
)

// webhookRecording holds kube-apiserver 1.37.1's answers to the webhook
// scenario: the statuses and warnings clients got, the labels of the
// objects written, and the reviews the webhooks received.
const webhookRecording = "testdata/webhooks-oracle.json"

// webhookNamespace stands for the scenario's namespace in the recording.
const webhookNamespace = "h-webhooks"

// webhookAnswer is what one step of the scenario saw.
type webhookAnswer struct {
	Step     string            `json:"step"`
	Status   *metav1.Status    `json:"status,omitempty"`
	Warnings []string          `json:"warnings,omitempty"`
	Labels   map[string]string `json:"labels,omitempty"`
	// Reviews are the reviews the step's webhooks received, in the order
	// of their webhooks' names.
	Reviews []reviewSummary `json:"reviews,omitempty"`
	// Kubectl is kubectl's answer, for the steps run with kubectl.
	Kubectl *kubectlStep `json:"kubectl,omitempty"`
}

// reviewSummary is what a webhook received, less what differs between
// any two runs (uids, times, the user).
type reviewSummary struct {
	Webhook            string            `json:"webhook"`
	APIVersion         string            `json:"apiVersion"`
	Kind               string            `json:"kind"`
	Resource           string            `json:"resource"`
	SubResource        string            `json:"subResource,omitempty"`
	RequestKind        string            `json:"requestKind"`
	RequestResource    string            `json:"requestResource"`
	RequestSubResource string            `json:"requestSubResource,omitempty"`
	Name               string            `json:"name"`
	Namespace          string            `json:"namespace"`
	Operation          string            `json:"operation"`
	DryRun             bool              `json:"dryRun"`
	Options            string            `json:"options"`
	Object             string            `json:"object"`
	OldObject          string            `json:"oldObject"`
	Labels             map[string]string `json:"labels,omitempty"`
}

// The admission webhooks, mutating and validating, as kube-apiserver
// 1.37.1 calls them: a mutating webhook that adds a label (AdmissionReview
// v1 and v1beta1), validating webhooks that refuse, that time out under
// failurePolicy Fail and Ignore, a slow one among several (called in
// parallel, the write stays within its own timeout), invalid answers,
// dry run with sideEffects NoneOnDryRun, matchConditions, reinvocation, deletes,
// with client-go and kubectl. Each answer, each warning and each review
// the webhooks received is compared with kube-apiserver's for the same
// configuration (testdata/webhooks-oracle.json); and the webhook metrics
// have kube-apiserver's names and labels.
//
// With KAPI_WEBHOOK_ORACLE set to the kubeconfig of an oracle, the test
// runs the scenario there and writes the recording instead.
func TestAdmissionWebhooksAsKubeAPIServer(t *testing.T) {
	srv := webhooktest.Start(t)
	if oracle := os.Getenv("KAPI_WEBHOOK_ORACLE"); oracle != "" {
		cfg, err := clientcmd.BuildConfigFromFlags("", oracle)
		if err != nil {
			t.Fatal(err)
		}
		ns := fmt.Sprintf("%s-%d", webhookNamespace, time.Now().Unix())
		answers, metricSeries := runWebhookScenario(t, cfg, oracle, ns, srv)
		rec := webhookRecordingFile{Answers: answers, Metrics: metricSeries}
		data, err := json.MarshalIndent(rec, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		data = []byte(normaliseWebhookText(string(data), ns, srv))
		if err := os.WriteFile(webhookRecording, append(data, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("recorded %d steps in %s", len(answers), webhookRecording)
		return
	}
	var recorded webhookRecordingFile
	data, err := os.ReadFile(webhookRecording)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(normaliseWebhookText(string(data), webhookNamespace, srv)), &recorded); err != nil {
		t.Fatal(err)
	}
	s := startKapi(t)
	answers, metricSeries := runWebhookScenario(t, s.ClientConfig, writeKubeconfig(t, s.ClientConfig), webhookNamespace, srv)
	var got webhookRecordingFile
	data, err = json.Marshal(webhookRecordingFile{Answers: answers, Metrics: metricSeries})
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(normaliseWebhookText(string(data), webhookNamespace, srv)), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Answers) != len(recorded.Answers) {
		t.Fatalf("the scenario ran %d steps, the recording has %d: record it again", len(got.Answers), len(recorded.Answers))
	}
	for i, want := range recorded.Answers {
		if diff := cmp.Diff(want, got.Answers[i]); diff != "" {
			t.Errorf("step %s differs from kube-apiserver's (-oracle +kapi):\n%s", want.Step, diff)
		}
	}
	if diff := cmp.Diff(recorded.Metrics, got.Metrics); diff != "" {
		t.Errorf("webhook metrics differ from kube-apiserver's (-oracle +kapi):\n%s", diff)
	}
}

type webhookRecordingFile struct {
	Answers []webhookAnswer `json:"answers"`
	// Metrics are the webhook metrics' series after the scenario, by name
	// and label names.
	Metrics []string `json:"metrics"`
}

var (
	webhookUIDPattern = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	// kubectl names the file it read in its errors.
	manifestPathPattern = regexp.MustCompile(`/[^"]*/configmap\.yaml`)
)

// normaliseWebhookText replaces what differs between runs: the
// namespace, the webhook server's address, uids, temporary files.
func normaliseWebhookText(s, ns string, srv *webhooktest.Server) string {
	u, _ := url.Parse(srv.URL)
	s = strings.ReplaceAll(s, u.Host, "WEBHOOK")
	s = strings.ReplaceAll(s, ns, webhookNamespace)
	s = manifestPathPattern.ReplaceAllString(s, "configmap.yaml")
	return webhookUIDPattern.ReplaceAllString(s, "UID")
}

// webhookStep is one step: the configurations it installs, then its
// writes.
type webhookStep struct {
	name       string
	mutating   []admissionregistrationv1.MutatingWebhook
	validating []admissionregistrationv1.ValidatingWebhook
	// hpa makes the probe webhooks also match horizontalpodautoscalers,
	// for the steps that write them.
	// run does the step's writes with objects labelled for the step.
	run func(w *webhookWriter) webhookAnswer
}

func runWebhookScenario(t *testing.T, cfg *rest.Config, kubeconfig, ns string, srv *webhooktest.Server) ([]webhookAnswer, []string) {
	ctx := context.Background()
	warnings := &warningCollector{}
	cfg = rest.CopyConfig(cfg)
	cfg.WarningHandler = warnings
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.CoreV1().Namespaces().Delete(context.Background(), ns, metav1.DeleteOptions{}) })

	var answers []webhookAnswer
	for _, step := range webhookSteps(srv) {
		w := &webhookWriter{t: t, ctx: ctx, c: c, ns: ns, step: step.name, warnings: warnings, kubeconfig: kubeconfig, srv: srv}
		cleanup := installWebhooks(t, c, srv, step)
		before := len(srv.Requests(""))
		answer := step.run(w)
		answer.Step = step.name
		answer.Reviews = summariseReviews(srv.Requests("")[before:], step.name)
		answers = append(answers, answer)
		cleanup()
	}
	return answers, webhookMetricSeries(t, c)
}

// installWebhooks creates the step's configurations and waits until the
// server calls them: each has a probe webhook, called for objects
// labelled probe=<step>, which the step's own webhooks never see.
func installWebhooks(t *testing.T, c *kubernetes.Clientset, srv *webhooktest.Server, step webhookStep) func() {
	ctx := context.Background()
	name := "e2e-" + step.name
	probe := func() (admissionregistrationv1.WebhookClientConfig, *metav1.LabelSelector) {
		return admissionregistrationv1.WebhookClientConfig{URL: ptrTo(srv.URL + "/allow"), CABundle: srv.CABundle},
			&metav1.LabelSelector{MatchLabels: map[string]string{"probe": step.name}}
	}
	stepSelector := &metav1.LabelSelector{MatchLabels: map[string]string{"step": step.name}}
	var deletes []func() error
	// Whatever a failed run left behind.
	_ = c.AdmissionregistrationV1().MutatingWebhookConfigurations().Delete(ctx, name, metav1.DeleteOptions{})
	_ = c.AdmissionregistrationV1().ValidatingWebhookConfigurations().Delete(ctx, name, metav1.DeleteOptions{})
	if len(step.mutating) > 0 {
		hooks := slices.Clone(step.mutating)
		for i := range hooks {
			hooks[i].ObjectSelector = stepSelector
		}
		cc, sel := probe()
		hooks = append(hooks, admissionregistrationv1.MutatingWebhook{Name: "probe.e2e.example.com", ClientConfig: cc, ObjectSelector: sel,
			Rules: configMapRules(), SideEffects: ptrTo(admissionregistrationv1.SideEffectClassNone), AdmissionReviewVersions: []string{"v1"}})
		if _, err := c.AdmissionregistrationV1().MutatingWebhookConfigurations().Create(ctx, &admissionregistrationv1.MutatingWebhookConfiguration{
			ObjectMeta: metav1.ObjectMeta{Name: name}, Webhooks: hooks}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		deletes = append(deletes, func() error {
			return c.AdmissionregistrationV1().MutatingWebhookConfigurations().Delete(ctx, name, metav1.DeleteOptions{})
		})
	}
	if len(step.validating) > 0 {
		hooks := slices.Clone(step.validating)
		for i := range hooks {
			hooks[i].ObjectSelector = stepSelector
		}
		cc, sel := probe()
		hooks = append(hooks, admissionregistrationv1.ValidatingWebhook{Name: "probe.e2e.example.com", ClientConfig: cc, ObjectSelector: sel,
			Rules: configMapRules(), SideEffects: ptrTo(admissionregistrationv1.SideEffectClassNone), AdmissionReviewVersions: []string{"v1"}})
		if _, err := c.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(ctx, &admissionregistrationv1.ValidatingWebhookConfiguration{
			ObjectMeta: metav1.ObjectMeta{Name: name}, Webhooks: hooks}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		deletes = append(deletes, func() error {
			return c.AdmissionregistrationV1().ValidatingWebhookConfigurations().Delete(ctx, name, metav1.DeleteOptions{})
		})
	}
	cleanup := func() {
		for _, d := range deletes {
			if err := d(); err != nil && !apierrors.IsNotFound(err) {
				t.Errorf("deleting the configurations of step %s: %v", step.name, err)
			}
		}
	}
	t.Cleanup(cleanup)
	// Both configurations must be live: as many probe calls as
	// configurations, from one dry-run create.
	want := len(deletes)
	deadline := time.Now().Add(30 * time.Second)
	for {
		before := len(srv.Requests("allow"))
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "probe", Labels: map[string]string{"probe": step.name}}}
		if _, err := c.CoreV1().ConfigMaps("default").Create(ctx, cm, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}); err != nil {
			t.Fatalf("probe of step %s: %v", step.name, err)
		}
		probes := 0
		for _, r := range srv.Requests("allow")[before:] {
			if strings.Contains(string(r.Request.Object.Raw), `"probe":"`+step.name+`"`) {
				probes++
			}
		}
		if probes == want {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the configurations of step %s were not called within 30s", step.name)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return cleanup
}

func configMapRules() []admissionregistrationv1.RuleWithOperations {
	return []admissionregistrationv1.RuleWithOperations{{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.OperationAll},
		Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}},
	}}
}

func hpaRules(version string) []admissionregistrationv1.RuleWithOperations {
	return []admissionregistrationv1.RuleWithOperations{{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
		Rule:       admissionregistrationv1.Rule{APIGroups: []string{"autoscaling"}, APIVersions: []string{version}, Resources: []string{"horizontalpodautoscalers"}},
	}}
}

func ptrTo[T any](v T) *T { return &v }

// mutatingHook and validatingHook are webhooks on configmaps at path of
// the test server, with kube-apiserver's defaults spelled out.
func mutatingHook(srv *webhooktest.Server, name, path string, edit func(*admissionregistrationv1.MutatingWebhook)) admissionregistrationv1.MutatingWebhook {
	h := admissionregistrationv1.MutatingWebhook{
		Name:                    name,
		ClientConfig:            admissionregistrationv1.WebhookClientConfig{URL: ptrTo(srv.URL + path), CABundle: srv.CABundle},
		Rules:                   configMapRules(),
		SideEffects:             ptrTo(admissionregistrationv1.SideEffectClassNone),
		AdmissionReviewVersions: []string{"v1"},
	}
	if edit != nil {
		edit(&h)
	}
	return h
}

func validatingHook(srv *webhooktest.Server, name, path string, edit func(*admissionregistrationv1.ValidatingWebhook)) admissionregistrationv1.ValidatingWebhook {
	h := admissionregistrationv1.ValidatingWebhook{
		Name:                    name,
		ClientConfig:            admissionregistrationv1.WebhookClientConfig{URL: ptrTo(srv.URL + path), CABundle: srv.CABundle},
		Rules:                   configMapRules(),
		SideEffects:             ptrTo(admissionregistrationv1.SideEffectClassNone),
		AdmissionReviewVersions: []string{"v1"},
	}
	if edit != nil {
		edit(&h)
	}
	return h
}

func webhookSteps(srv *webhooktest.Server) []webhookStep {
	ignore := func(h *admissionregistrationv1.ValidatingWebhook) {
		h.FailurePolicy = ptrTo(admissionregistrationv1.Ignore)
	}
	oneSecond := func(policy admissionregistrationv1.FailurePolicyType) func(h *admissionregistrationv1.ValidatingWebhook) {
		return func(h *admissionregistrationv1.ValidatingWebhook) {
			h.FailurePolicy = ptrTo(policy)
			h.TimeoutSeconds = ptrTo(int32(1))
		}
	}
	create := func(w *webhookWriter) webhookAnswer { return w.create("cm", nil, false) }
	return []webhookStep{
		{name: "mutating-label", mutating: []admissionregistrationv1.MutatingWebhook{
			mutatingHook(srv, "label.e2e.example.com", "/label/key/team/value/blue/warn/labelled%20by%20the%20webhook", nil)}, run: create},
		{name: "mutating-label-v1beta1", mutating: []admissionregistrationv1.MutatingWebhook{
			mutatingHook(srv, "label.e2e.example.com", "/label/key/team/value/green", func(h *admissionregistrationv1.MutatingWebhook) {
				h.AdmissionReviewVersions = []string{"v1beta1"}
			})}, run: create},
		{name: "validating-deny", validating: []admissionregistrationv1.ValidatingWebhook{
			validatingHook(srv, "deny.e2e.example.com", "/deny/message/not%20in%20this%20namespace/code/403/warn/careful", nil)}, run: create},
		{name: "validating-deny-without-message", validating: []admissionregistrationv1.ValidatingWebhook{
			validatingHook(srv, "deny.e2e.example.com", "/deny", nil)}, run: create},
		{name: "timeout-fail", validating: []admissionregistrationv1.ValidatingWebhook{
			validatingHook(srv, "slow.e2e.example.com", "/slow/delay/5s", oneSecond(admissionregistrationv1.Fail))}, run: create},
		{name: "timeout-ignore", validating: []admissionregistrationv1.ValidatingWebhook{
			validatingHook(srv, "slow.e2e.example.com", "/slow/delay/5s", oneSecond(admissionregistrationv1.Ignore))}, run: create},
		{name: "slow-among-several", validating: []admissionregistrationv1.ValidatingWebhook{
			validatingHook(srv, "a.e2e.example.com", "/slow/delay/2s/warn/a", nil),
			validatingHook(srv, "b.e2e.example.com", "/slow/delay/2s/warn/b", nil),
			validatingHook(srv, "c.e2e.example.com", "/slow/delay/2s/warn/c", nil),
			validatingHook(srv, "d.e2e.example.com", "/allow/warn/d", nil),
		}, run: func(w *webhookWriter) webhookAnswer { return w.createWithin("cm", 5*time.Second) }},
		{name: "bad-uid", validating: []admissionregistrationv1.ValidatingWebhook{
			validatingHook(srv, "bad-uid.e2e.example.com", "/bad-uid", nil)}, run: create},
		{name: "server-error-fail", validating: []admissionregistrationv1.ValidatingWebhook{
			validatingHook(srv, "error.e2e.example.com", "/error", nil)}, run: create},
		{name: "server-error-ignore", validating: []admissionregistrationv1.ValidatingWebhook{
			validatingHook(srv, "error.e2e.example.com", "/error", ignore)}, run: create},
		{name: "dry-run-none-on-dry-run", mutating: []admissionregistrationv1.MutatingWebhook{
			mutatingHook(srv, "label.e2e.example.com", "/label/key/dry/value/run", func(h *admissionregistrationv1.MutatingWebhook) {
				h.SideEffects = ptrTo(admissionregistrationv1.SideEffectClassNoneOnDryRun)
			})}, run: func(w *webhookWriter) webhookAnswer { return w.create("cm", nil, true) }},
		{name: "match-conditions", validating: []admissionregistrationv1.ValidatingWebhook{
			validatingHook(srv, "deny.e2e.example.com", "/deny/message/labelled%20deny", func(h *admissionregistrationv1.ValidatingWebhook) {
				h.MatchConditions = []admissionregistrationv1.MatchCondition{
					{Name: "labelled", Expression: `object.metadata.labels["deny"] == "yes"`},
					{Name: "creates", Expression: `request.operation == "CREATE"`},
				}
			})}, run: func(w *webhookWriter) webhookAnswer {
			a := w.create("denied", map[string]string{"deny": "yes"}, false)
			b := w.create("allowed", map[string]string{"deny": "no"}, false)
			return merge(a, b)
		}},
		{name: "match-conditions-error", validating: []admissionregistrationv1.ValidatingWebhook{
			validatingHook(srv, "deny.e2e.example.com", "/deny", func(h *admissionregistrationv1.ValidatingWebhook) {
				h.MatchConditions = []admissionregistrationv1.MatchCondition{{Name: "missing", Expression: `object.data["missing"] == "x"`}}
			})}, run: create},
		{name: "reinvocation", mutating: []admissionregistrationv1.MutatingWebhook{
			mutatingHook(srv, "a-first.e2e.example.com", "/label/key/first/value/1", func(h *admissionregistrationv1.MutatingWebhook) {
				h.ReinvocationPolicy = ptrTo(admissionregistrationv1.IfNeededReinvocationPolicy)
			}),
			mutatingHook(srv, "b-never.e2e.example.com", "/allow", nil),
			mutatingHook(srv, "c-second.e2e.example.com", "/label/key/second/value/2", nil),
		}, run: create},
		{name: "delete-deny", validating: []admissionregistrationv1.ValidatingWebhook{
			validatingHook(srv, "deny-delete.e2e.example.com", "/deny/message/keep%20it", func(h *admissionregistrationv1.ValidatingWebhook) {
				h.Rules[0].Operations = []admissionregistrationv1.OperationType{admissionregistrationv1.Delete}
			})}, run: func(w *webhookWriter) webhookAnswer {
			a := w.create("cm", nil, false)
			return merge(a, w.delete("cm"))
		}},
		{name: "equivalent-version", mutating: []admissionregistrationv1.MutatingWebhook{
			mutatingHook(srv, "label.e2e.example.com", "/label/key/seen/value/v1", func(h *admissionregistrationv1.MutatingWebhook) {
				h.Rules = hpaRules("v1")
				h.MatchPolicy = ptrTo(admissionregistrationv1.Equivalent)
			})}, run: func(w *webhookWriter) webhookAnswer { return w.createHPA("hpa") }},
		{name: "exact-version", validating: []admissionregistrationv1.ValidatingWebhook{
			validatingHook(srv, "deny.e2e.example.com", "/deny/message/v1%20only", func(h *admissionregistrationv1.ValidatingWebhook) {
				h.Rules = hpaRules("v1")
				h.MatchPolicy = ptrTo(admissionregistrationv1.Exact)
			})}, run: func(w *webhookWriter) webhookAnswer { return w.createHPA("hpa") }},
		{name: "kubectl-deny", validating: []admissionregistrationv1.ValidatingWebhook{
			validatingHook(srv, "deny.e2e.example.com", "/deny/message/no%20kubectl%20today/warn/think%20twice", nil)},
			run: func(w *webhookWriter) webhookAnswer { return w.kubectlCreate("cm") }},
		{name: "kubectl-label", mutating: []admissionregistrationv1.MutatingWebhook{
			mutatingHook(srv, "label.e2e.example.com", "/label/key/by/value/kubectl/warn/labelled", nil)},
			run: func(w *webhookWriter) webhookAnswer { return w.kubectlCreate("cm") }},
	}
}

func merge(answers ...webhookAnswer) webhookAnswer {
	var out webhookAnswer
	for _, a := range answers {
		if a.Status != nil {
			out.Status = a.Status
		}
		out.Warnings = append(out.Warnings, a.Warnings...)
		if a.Labels != nil {
			out.Labels = a.Labels
		}
	}
	return out
}

// webhookWriter does a step's writes.
type webhookWriter struct {
	t          *testing.T
	ctx        context.Context
	c          *kubernetes.Clientset
	ns, step   string
	warnings   *warningCollector
	kubeconfig string
	srv        *webhooktest.Server
}

func (w *webhookWriter) object(name string, labels map[string]string) *corev1.ConfigMap {
	l := map[string]string{"step": w.step}
	for k, v := range labels {
		l[k] = v
	}
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: w.step + "-" + name, Labels: l}, Data: map[string]string{"k": "v"}}
}

func (w *webhookWriter) answer(obj *corev1.ConfigMap, err error) webhookAnswer {
	a := webhookAnswer{Warnings: w.warnings.take()}
	var status apierrors.APIStatus
	switch {
	case errors.As(err, &status):
		s := status.Status()
		a.Status = &s
	case err != nil:
		w.t.Fatalf("step %s: %v", w.step, err)
	case obj != nil:
		a.Labels = obj.Labels
	}
	return a
}

func (w *webhookWriter) create(name string, labels map[string]string, dryRun bool) webhookAnswer {
	opts := metav1.CreateOptions{}
	if dryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	return w.answer(w.c.CoreV1().ConfigMaps(w.ns).Create(w.ctx, w.object(name, labels), opts))
}

// createWithin creates with the request timeout d: the server's, the
// client waits for its answer.
func (w *webhookWriter) createWithin(name string, d time.Duration) webhookAnswer {
	out := &corev1.ConfigMap{}
	err := w.c.CoreV1().RESTClient().Post().Namespace(w.ns).Resource("configmaps").Param("timeout", d.String()).
		Body(w.object(name, nil)).Do(w.ctx).Into(out)
	return w.answer(out, err)
}

// createHPA creates an autoscaling/v2 horizontalpodautoscaler.
func (w *webhookWriter) createHPA(name string) webhookAnswer {
	hpa := &autoscalingv2.HorizontalPodAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Name: w.step + "-" + name, Labels: map[string]string{"step": w.step}},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "d"},
			MinReplicas:    ptrTo(int32(1)), MaxReplicas: 3,
		},
	}
	out, err := w.c.AutoscalingV2().HorizontalPodAutoscalers(w.ns).Create(w.ctx, hpa, metav1.CreateOptions{})
	a := w.answer(nil, err)
	if err == nil {
		a.Labels = out.Labels
	}
	return a
}

func (w *webhookWriter) delete(name string) webhookAnswer {
	err := w.c.CoreV1().ConfigMaps(w.ns).Delete(w.ctx, w.step+"-"+name, metav1.DeleteOptions{})
	return w.answer(nil, err)
}

func (w *webhookWriter) kubectlCreate(name string) webhookAnswer {
	manifest := fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s-%s\n  labels:\n    step: %s\ndata:\n  k: v\n", w.step, name, w.step)
	file := filepath.Join(w.t.TempDir(), "configmap.yaml")
	if err := os.WriteFile(file, []byte(manifest), 0o600); err != nil {
		w.t.Fatal(err)
	}
	args := []string{"-n", w.ns, "create", "-f", file, "-o", "jsonpath={.metadata.labels}"}
	out, err := runKubectl(w.t, w.kubeconfig, args...)
	step := &kubectlStep{Args: append(args[:3:3], "-f", "configmap.yaml", "-o", "jsonpath={.metadata.labels}"), Stdin: manifest, Output: out}
	var ee interface{ ExitCode() int }
	if errors.As(err, &ee) {
		step.ExitCode = ee.ExitCode()
	} else if err != nil {
		w.t.Fatal(err)
	}
	return webhookAnswer{Kubectl: step, Warnings: w.warnings.take()}
}

// warningCollector keeps the warnings client-go receives.
type warningCollector struct {
	mu    sync.Mutex
	texts []string
}

func (c *warningCollector) HandleWarningHeader(code int, agent string, text string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.texts = append(c.texts, text)
}

func (c *warningCollector) take() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.texts
	c.texts = nil
	sort.Strings(out)
	return out
}

// summariseReviews are the reviews of the step's own objects, sorted.
func summariseReviews(reqs []webhooktest.Request, step string) []reviewSummary {
	var out []reviewSummary
	for _, r := range reqs {
		q := r.Request
		obj, labels := objectSummary(q.Object.Raw)
		old, oldLabels := objectSummary(q.OldObject.Raw)
		if labels["step"] != step && oldLabels["step"] != step {
			continue
		}
		gvk := func(g, v, k string) string { return strings.TrimPrefix(g+"/"+v+"/"+k, "/") }
		s := reviewSummary{
			Webhook: r.Path + "/" + r.Query.Encode(), APIVersion: r.APIVersion,
			Kind: gvk(q.Kind.Group, q.Kind.Version, q.Kind.Kind), Resource: gvk(q.Resource.Group, q.Resource.Version, q.Resource.Resource),
			SubResource: q.SubResource, RequestSubResource: q.RequestSubResource,
			Name: q.Name, Namespace: q.Namespace, Operation: string(q.Operation),
			DryRun: q.DryRun != nil && *q.DryRun, Options: string(q.Options.Raw), Object: obj, OldObject: old, Labels: labels,
		}
		if q.RequestKind != nil {
			s.RequestKind = gvk(q.RequestKind.Group, q.RequestKind.Version, q.RequestKind.Kind)
		}
		if q.RequestResource != nil {
			s.RequestResource = gvk(q.RequestResource.Group, q.RequestResource.Version, q.RequestResource.Resource)
		}
		out = append(out, s)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Webhook < out[j].Webhook })
	return out
}

// objectSummary is an object's apiVersion, kind and the names of its
// top-level and metadata fields, and its labels.
func objectSummary(raw []byte) (string, map[string]string) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var o map[string]any
	if err := json.Unmarshal(raw, &o); err != nil {
		return "unparsable: " + err.Error(), nil
	}
	var keys []string
	for k := range o {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var metaKeys []string
	labels := map[string]string{}
	if m, ok := o["metadata"].(map[string]any); ok {
		for k := range m {
			metaKeys = append(metaKeys, k)
		}
		if l, ok := m["labels"].(map[string]any); ok {
			for k, v := range l {
				labels[k] = fmt.Sprint(v)
			}
		}
	}
	sort.Strings(metaKeys)
	return fmt.Sprintf("%v/%v %v metadata%v", o["apiVersion"], o["kind"], keys, metaKeys), labels
}

// webhookMetricSeries are the series of the webhook metrics, by name and
// label names (the values depend on timing).
func webhookMetricSeries(t *testing.T, c *kubernetes.Clientset) []string {
	body, err := c.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	labelName := regexp.MustCompile(`([a-z_]+)="`)
	for _, line := range strings.Split(string(body), "\n") {
		if !strings.HasPrefix(line, "apiserver_admission_webhook_") || strings.Contains(line, "_bucket{") {
			continue
		}
		name, rest, _ := strings.Cut(line, "{")
		var names []string
		for _, m := range labelName.FindAllStringSubmatch(rest, -1) {
			names = append(names, m[1])
		}
		sort.Strings(names)
		seen[name+"{"+strings.Join(names, ",")+"}"] = true
	}
	var out []string
	for s := range seen {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}
