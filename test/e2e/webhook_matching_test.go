package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/internal/webhooktest"
)

// webhookMatchingRecording holds kube-apiserver 1.37.1's answers to the
// matching scenario.
const webhookMatchingRecording = "testdata/webhook-matching-oracle.json"

// matchingAnswer is what one step saw: the errors of its writes (nil for
// a success) and the warnings, and the reviews the webhooks received.
type matchingAnswer struct {
	Step     string           `json:"step"`
	Statuses []*metav1.Status `json:"statuses"`
	Warnings []string         `json:"warnings,omitempty"`
	// Calls counts the reviews the webhooks received, Reviews are those
	// of the step's labelled objects.
	Calls   int             `json:"calls"`
	Reviews []reviewSummary `json:"reviews,omitempty"`
	// Labels are those of the object the step's first write created.
	Labels map[string]string `json:"labels,omitempty"`
}

// Which webhooks kube-apiserver 1.37.1 calls, beyond the rules' own
// resources: with matchPolicy Equivalent, a write through core/v1 events
// calls the webhooks registered for events.k8s.io/v1 events (the same
// objects, in the same storage) with the event converted to that version,
// and the reverse, while matchPolicy Exact does not; and no webhook sees
// the reviews of authentication and authorization (tokenreviews,
// subjectaccessreviews and the rest), even one whose rules name them,
// while the configmaps its rules also name are refused. Each write's
// answer, warnings and the reviews the webhooks received are compared
// with kube-apiserver's (testdata/webhook-matching-oracle.json).
//
// With KAPI_WEBHOOK_MATCHING_ORACLE set to the kubeconfig of an oracle
// with its default plugins, the test runs there and writes the recording.
// Its webhooks select only the objects the test labels.
func TestWebhookMatchingAsKubeAPIServer(t *testing.T) {
	srv := webhooktest.Start(t)
	if oracle := os.Getenv("KAPI_WEBHOOK_MATCHING_ORACLE"); oracle != "" {
		cfg, err := clientcmd.BuildConfigFromFlags("", oracle)
		if err != nil {
			t.Fatal(err)
		}
		ns := fmt.Sprintf("%s-%d", webhookNamespace, time.Now().Unix())
		answers := runMatchingScenario(t, cfg, ns, srv)
		data, err := json.MarshalIndent(answers, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(webhookMatchingRecording, append(data, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("recorded %d steps in %s", len(answers), webhookMatchingRecording)
		return
	}
	var want []matchingAnswer
	data, err := os.ReadFile(webhookMatchingRecording)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(normaliseWebhookText(string(data), webhookNamespace, srv)), &want); err != nil {
		t.Fatal(err)
	}
	s := startKapi(t)
	got := runMatchingScenario(t, s.ClientConfig, webhookNamespace, srv)
	if len(got) != len(want) {
		t.Fatalf("the scenario ran %d steps, the recording has %d: record it again", len(got), len(want))
	}
	for i := range want {
		if diff := cmp.Diff(want[i], got[i]); diff != "" {
			t.Errorf("step %s differs from kube-apiserver's (-oracle +kapi):\n%s", want[i].Step, diff)
		}
	}
}

func runMatchingScenario(t *testing.T, cfg *rest.Config, ns string, srv *webhooktest.Server) []matchingAnswer {
	ctx := context.Background()
	warnings := &warningCollector{}
	cfg = rest.CopyConfig(cfg)
	cfg.WarningHandler = warnings
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	selector := &metav1.LabelSelector{MatchLabels: map[string]string{"e2e-matching": ns}}
	if _, err := c.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: selector.MatchLabels}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.CoreV1().Namespaces().Delete(context.Background(), ns, metav1.DeleteOptions{}) })

	rule := func(group, version string, resources ...string) admissionregistrationv1.RuleWithOperations {
		return admissionregistrationv1.RuleWithOperations{
			Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
			Rule:       admissionregistrationv1.Rule{APIGroups: []string{group}, APIVersions: []string{version}, Resources: resources},
		}
	}
	// The event webhooks select only the objects labelled with this
	// run's namespace, as the oracle may be shared. The reviews of the
	// authorization API cannot carry labels: that webhook selects this
	// run's namespace, which the cluster-scoped reviews do not have and
	// so all match, and the configmaps of the namespace; kube-apiserver
	// sends it none of the reviews.
	hook := func(name, path string, policy admissionregistrationv1.MatchPolicyType, rules ...admissionregistrationv1.RuleWithOperations) admissionregistrationv1.ValidatingWebhook {
		return validatingHook(srv, name+".e2e.example.com", path, func(h *admissionregistrationv1.ValidatingWebhook) {
			h.Rules, h.MatchPolicy = rules, ptr.To(policy)
			if strings.HasPrefix(path, "/deny") {
				h.NamespaceSelector = selector
			} else {
				h.ObjectSelector = selector
			}
		})
	}
	config := &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "e2e-matching-" + ns},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{
			hook("events-equivalent", "/allow/warn/events-equivalent", admissionregistrationv1.Equivalent, rule("events.k8s.io", "v1", "events")),
			hook("core-equivalent", "/allow/warn/core-equivalent", admissionregistrationv1.Equivalent, rule("", "v1", "events")),
			hook("events-exact", "/allow/warn/events-exact", admissionregistrationv1.Exact, rule("events.k8s.io", "v1", "events")),
			hook("reviews", "/deny/message/reviews", admissionregistrationv1.Equivalent,
				rule("authentication.k8s.io", "*", "tokenreviews", "selfsubjectreviews"),
				rule("authorization.k8s.io", "*", "subjectaccessreviews", "localsubjectaccessreviews", "selfsubjectaccessreviews", "selfsubjectrulesreviews"),
				rule("", "v1", "configmaps")),
		},
	}
	if _, err := c.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(ctx, config, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.AdmissionregistrationV1().ValidatingWebhookConfigurations().Delete(context.Background(), config.Name, metav1.DeleteOptions{}); err != nil {
			t.Errorf("deleting the webhooks: %v", err)
		}
	})
	// A mutating webhook registered for events.k8s.io/v1 labels the
	// events written through either API: its patch, made to the
	// events.k8s.io form, is carried back to the event stored.
	mutating := &admissionregistrationv1.MutatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "e2e-matching-" + ns},
		Webhooks: []admissionregistrationv1.MutatingWebhook{mutatingHook(srv, "events-label.e2e.example.com", "/label/key/mutated/value/yes", func(h *admissionregistrationv1.MutatingWebhook) {
			h.Rules, h.MatchPolicy, h.ObjectSelector = []admissionregistrationv1.RuleWithOperations{rule("events.k8s.io", "v1", "events")}, ptr.To(admissionregistrationv1.Equivalent), selector
		})},
	}
	if _, err := c.AdmissionregistrationV1().MutatingWebhookConfigurations().Create(ctx, mutating, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.AdmissionregistrationV1().MutatingWebhookConfigurations().Delete(context.Background(), mutating.Name, metav1.DeleteOptions{}); err != nil {
			t.Errorf("deleting the webhooks: %v", err)
		}
	})
	labels := func(step string) map[string]string { return map[string]string{"e2e-matching": ns, "step": step} }
	meta := func(name, step string) metav1.ObjectMeta { return metav1.ObjectMeta{Name: name, Labels: labels(step)} }

	// The configuration is live once the configmaps it names are refused.
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, err := c.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: meta("probe", "probe")}, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the webhooks were not called within 30s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	// And the mutating one once it labels a dry-run event.
	for {
		ev, err := c.EventsV1().Events(ns).Create(ctx, &eventsv1.Event{ObjectMeta: meta("probe", "probe"), Regarding: corev1.ObjectReference{Kind: "Pod", Namespace: ns, Name: "p"},
			Reason: "Probe", Type: corev1.EventTypeNormal, Action: "Probe", EventTime: metav1.NowMicro(), ReportingController: "example.com/e2e", ReportingInstance: "e2e-1"},
			metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err != nil {
			t.Fatal(err)
		}
		if ev.Labels["mutated"] == "yes" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the webhooks were not called within 30s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	warnings.take()

	eventTime := metav1.NewMicroTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	regarding := corev1.ObjectReference{Kind: "Pod", Namespace: ns, Name: "p", APIVersion: "v1"}
	var created map[string]string
	steps := []struct {
		name   string
		writes []func(step string) error
	}{
		{"core-event", []func(string) error{func(step string) error {
			ev, err := c.CoreV1().Events(ns).Create(ctx, &corev1.Event{ObjectMeta: meta("core", step), InvolvedObject: regarding,
				Reason: "Tested", Message: "through core/v1", Type: corev1.EventTypeNormal, Source: corev1.EventSource{Component: "e2e"},
				FirstTimestamp: metav1.NewTime(eventTime.Time), LastTimestamp: metav1.NewTime(eventTime.Time), Count: 1}, metav1.CreateOptions{})
			if err == nil {
				created = ev.Labels
			}
			return err
		}}},
		{"events-event", []func(string) error{func(step string) error {
			ev, err := c.EventsV1().Events(ns).Create(ctx, &eventsv1.Event{ObjectMeta: meta("events", step), Regarding: regarding,
				Reason: "Tested", Note: "through events.k8s.io/v1", Type: corev1.EventTypeNormal, Action: "Test",
				EventTime: eventTime, ReportingController: "example.com/e2e", ReportingInstance: "e2e-1"}, metav1.CreateOptions{})
			if err == nil {
				created = ev.Labels
			}
			return err
		}}},
		{"reviews", []func(string) error{
			func(step string) error {
				_, err := c.AuthenticationV1().TokenReviews().Create(ctx, &authenticationv1.TokenReview{ObjectMeta: meta("", step),
					Spec: authenticationv1.TokenReviewSpec{Token: "not-a-token"}}, metav1.CreateOptions{})
				return err
			},
			func(step string) error {
				_, err := c.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{ObjectMeta: meta("", step)}, metav1.CreateOptions{})
				return err
			},
			func(step string) error {
				_, err := c.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authorizationv1.SubjectAccessReview{
					Spec: authorizationv1.SubjectAccessReviewSpec{User: "alice", ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: "get", Resource: "pods"}}}, metav1.CreateOptions{})
				return err
			},
			func(step string) error {
				_, err := c.AuthorizationV1().LocalSubjectAccessReviews(ns).Create(ctx, &authorizationv1.LocalSubjectAccessReview{
					Spec: authorizationv1.SubjectAccessReviewSpec{User: "alice", ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: ns, Verb: "get", Resource: "pods"}}}, metav1.CreateOptions{})
				return err
			},
			func(step string) error {
				_, err := c.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, &authorizationv1.SelfSubjectAccessReview{
					Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: "get", Resource: "pods"}}}, metav1.CreateOptions{})
				return err
			},
			func(step string) error {
				_, err := c.AuthorizationV1().SelfSubjectRulesReviews().Create(ctx, &authorizationv1.SelfSubjectRulesReview{
					Spec: authorizationv1.SelfSubjectRulesReviewSpec{Namespace: ns}}, metav1.CreateOptions{})
				return err
			},
			// The same webhook refuses the configmaps its rules also name.
			func(step string) error {
				_, err := c.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: meta("refused", step)}, metav1.CreateOptions{})
				return err
			},
		}},
	}
	var answers []matchingAnswer
	for _, step := range steps {
		before := len(srv.Requests(""))
		a := matchingAnswer{Step: step.name}
		created = nil
		for _, write := range step.writes {
			var st *metav1.Status
			if err := write(step.name); err != nil {
				status, ok := err.(apierrors.APIStatus)
				if !ok {
					t.Fatalf("step %s: %v", step.name, err)
				}
				st = ptr.To(status.Status())
			}
			a.Statuses = append(a.Statuses, st)
		}
		a.Warnings = warnings.take()
		a.Calls = len(srv.Requests("")[before:])
		a.Labels = created
		a.Reviews = summariseReviews(srv.Requests("")[before:], step.name)
		answers = append(answers, a)
	}
	data, err := json.Marshal(answers)
	if err != nil {
		t.Fatal(err)
	}
	var out []matchingAnswer
	if err := json.Unmarshal([]byte(normaliseWebhookText(string(data), ns, srv)), &out); err != nil {
		t.Fatal(err)
	}
	for _, a := range out {
		for _, st := range a.Statuses {
			if st != nil {
				st.ListMeta = metav1.ListMeta{}
			}
		}
		for i := range a.Reviews {
			// The labels hold the run's namespace; the step is the part
			// that tells the writes apart.
			a.Reviews[i].Labels = map[string]string{"step": a.Reviews[i].Labels["step"], "mutated": a.Reviews[i].Labels["mutated"]}
		}
		if a.Labels != nil {
			a.Labels["e2e-matching"] = "NS"
		}
	}
	return out
}
