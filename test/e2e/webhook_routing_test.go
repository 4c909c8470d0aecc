package e2e

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/pkg/app"
	"github.com/kapi-dev/kapi/pkg/testserver"
)

// webhookRoutingRecording holds kube-apiserver 1.37.1's answers, run with
// --enable-aggregator-routing, to the routing scenario.
const webhookRoutingRecording = "testdata/webhook-routing-oracle.json"

// webhookRoutingNamespace stands for the scenario's namespace.
const webhookRoutingNamespace = "h-routing"

// routingAnswer is the answer to one step's write.
type routingAnswer struct {
	Step   string         `json:"step"`
	Status *metav1.Status `json:"status,omitempty"`
}

// With --enable-aggregator-routing, kube-apiserver calls a webhook named
// by a service at one of the ready endpoints of the service's
// EndpointSlices that serve the service port named, not at its cluster
// IP: a service without EndpointSlices, with only endpoints that are not
// ready, or whose slices serve another port name, has no endpoint to call;
// a service without the port, an ExternalName service and a missing
// service are refused. Each answer (the webhook's failure, under
// failurePolicy Fail) is compared with kube-apiserver's
// (testdata/webhook-routing-oracle.json). Without the flag each of these
// writes would be sent to the cluster IP instead.
//
// With KAPI_WEBHOOK_ROUTING_ORACLE set to a private oracle's directory
// (and KAPI_ORACLE_SCRIPTS, ORACLE_PORT, ORACLE_ETCD_PORT as for
// TestImagePolicyWebhookAsKubeAPIServer), the test starts that oracle with
// the flag, runs the scenario there and writes the recording.
func TestWebhookServicesThroughEndpointsAsKubeAPIServer(t *testing.T) {
	const flag = "--enable-aggregator-routing=true"
	if oracle := os.Getenv("KAPI_WEBHOOK_ROUTING_ORACLE"); oracle != "" {
		cfg, stop := startPrivateOracle(t, oracle, flag)
		defer stop()
		ns := fmt.Sprintf("%s-%d", webhookRoutingNamespace, time.Now().Unix())
		answers := runRoutingScenario(t, cfg, ns)
		data, err := json.MarshalIndent(answers, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(webhookRoutingRecording, append(data, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("recorded %d steps in %s", len(answers), webhookRoutingRecording)
		return
	}
	var want []routingAnswer
	data, err := os.ReadFile(webhookRoutingRecording)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	s := testserver.Start(t, testserver.Options{Admission: app.AdmissionConfig{EnableAggregatorRouting: true}})
	got := runRoutingScenario(t, s.ClientConfig, webhookRoutingNamespace)
	if len(got) != len(want) {
		t.Fatalf("the scenario ran %d steps, the recording has %d: record it again", len(got), len(want))
	}
	for i := range want {
		if diff := gocmp.Diff(want[i], got[i]); diff != "" {
			t.Errorf("step %s differs from kube-apiserver's (-oracle +kapi):\n%s", want[i].Step, diff)
		}
	}
}

func runRoutingScenario(t *testing.T, cfg *rest.Config, ns string) []routingAnswer {
	ctx := context.Background()
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.CoreV1().Namespaces().Delete(context.Background(), ns, metav1.DeleteOptions{}) })
	mustCreate := func(_ any, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	mustCreate(c.CoreV1().Services(ns).Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "hook"}, Spec: corev1.ServiceSpec{
		Ports: []corev1.ServicePort{{Name: "https", Port: 443, TargetPort: intstr.FromInt32(8443)}}}}, metav1.CreateOptions{}))
	mustCreate(c.CoreV1().Services(ns).Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "external"}, Spec: corev1.ServiceSpec{
		Type: corev1.ServiceTypeExternalName, ExternalName: "hook.example.invalid"}}, metav1.CreateOptions{}))
	slice := func(portName string, ready bool) *discoveryv1.EndpointSlice {
		return &discoveryv1.EndpointSlice{
			ObjectMeta:  metav1.ObjectMeta{Name: "hook-1", Labels: map[string]string{discoveryv1.LabelServiceName: "hook"}},
			AddressType: discoveryv1.AddressTypeIPv4,
			Ports:       []discoveryv1.EndpointPort{{Name: ptr.To(portName), Port: ptr.To[int32](8443), Protocol: ptr.To(corev1.ProtocolTCP)}},
			Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{"192.0.2.10"}, Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(ready)}}},
		}
	}

	steps := []struct {
		name      string
		namespace string
		service   string
		path      string
		port      int32
		before    func()
	}{
		{name: "no-endpointslices", service: "hook", port: 443},
		{name: "endpoint-not-ready", service: "hook", port: 443, before: func() {
			mustCreate(c.DiscoveryV1().EndpointSlices(ns).Create(ctx, slice("https", false), metav1.CreateOptions{}))
		}},
		{name: "other-port-name", service: "hook", port: 443, before: func() {
			s, err := c.DiscoveryV1().EndpointSlices(ns).Get(ctx, "hook-1", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			want := slice("metrics", true)
			s.Ports, s.Endpoints = want.Ports, want.Endpoints
			mustCreate(c.DiscoveryV1().EndpointSlices(ns).Update(ctx, s, metav1.UpdateOptions{}))
		}},
		{name: "no-service-port", service: "hook", port: 8443},
		{name: "external-name", service: "external", port: 443},
		{name: "missing-service", service: "missing", port: 443},
		// The kubernetes service is the server itself, called at its own
		// address; its /readyz answers no AdmissionReview.
		{name: "kubernetes-service-is-this-server", namespace: "default", service: "kubernetes", path: "/readyz", port: 443},
	}
	var answers []routingAnswer
	for _, step := range steps {
		if step.before != nil {
			step.before()
		}
		hookName := step.name + ".e2e.example.com"
		config := &admissionregistrationv1.ValidatingWebhookConfiguration{
			ObjectMeta: metav1.ObjectMeta{Name: "e2e-routing-" + ns + "-" + step.name},
			Webhooks: []admissionregistrationv1.ValidatingWebhook{{
				Name: hookName,
				ClientConfig: admissionregistrationv1.WebhookClientConfig{Service: &admissionregistrationv1.ServiceReference{
					Namespace: cmp.Or(step.namespace, ns), Name: step.service, Path: ptr.To(cmp.Or(step.path, "/check")), Port: ptr.To(step.port)},
					CABundle: cfg.CAData},
				Rules:                   configMapRules(),
				ObjectSelector:          &metav1.LabelSelector{MatchLabels: map[string]string{"e2e-routing": ns, "step": step.name}},
				FailurePolicy:           ptr.To(admissionregistrationv1.Fail),
				TimeoutSeconds:          ptr.To[int32](2),
				SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
				AdmissionReviewVersions: []string{"v1"},
			}},
		}
		mustCreate(c.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(ctx, config, metav1.CreateOptions{}))
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: step.name, Labels: map[string]string{"e2e-routing": ns, "step": step.name}}}
		// The configuration is live once a dry run calls its webhook.
		deadline := time.Now().Add(30 * time.Second)
		for {
			_, err := c.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
			if err != nil && strings.Contains(err.Error(), `"`+hookName+`"`) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("step %s: the webhook was not called within 30s (last answer: %v)", step.name, err)
			}
			time.Sleep(50 * time.Millisecond)
		}
		a := routingAnswer{Step: step.name}
		if _, err := c.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
			status, ok := err.(apierrors.APIStatus)
			if !ok {
				t.Fatalf("step %s: %v", step.name, err)
			}
			a.Status = ptr.To(status.Status())
		}
		answers = append(answers, a)
		if err := c.AdmissionregistrationV1().ValidatingWebhookConfigurations().Delete(ctx, config.Name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	data, err := json.Marshal(answers)
	if err != nil {
		t.Fatal(err)
	}
	var out []routingAnswer
	if err := json.Unmarshal([]byte(strings.ReplaceAll(string(data), ns, webhookRoutingNamespace)), &out); err != nil {
		t.Fatal(err)
	}
	return out
}
