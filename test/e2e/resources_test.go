package e2e

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
)

// TestNamespaceDeletionWaitsForFinalize follows kube-apiserver: without a
// namespace controller a deleted namespace stays Terminating, refuses new
// content, and goes once /finalize empties spec.finalizers.
func TestNamespaceDeletionWaitsForFinalize(t *testing.T) {
	s := startKapi(t)
	c := clientset(t, s.ClientConfig)
	ctx := context.Background()
	ns, err := c.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "doomed"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ns.Spec.Finalizers) != 1 || ns.Spec.Finalizers[0] != corev1.FinalizerKubernetes {
		t.Fatalf("spec.finalizers = %v", ns.Spec.Finalizers)
	}
	if err := c.CoreV1().Namespaces().Delete(ctx, "doomed", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	ns, err = c.CoreV1().Namespaces().Get(ctx, "doomed", metav1.GetOptions{})
	if err != nil || ns.Status.Phase != corev1.NamespaceTerminating || ns.DeletionTimestamp == nil {
		t.Fatalf("after delete: %+v %v", ns, err)
	}
	_, err = c.CoreV1().ConfigMaps("doomed").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "late"}}, metav1.CreateOptions{})
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "because it is being terminated") {
		t.Fatalf("create in a terminating namespace: want Forbidden, got %v", err)
	}
	ns.Spec.Finalizers = nil
	if _, err := c.CoreV1().Namespaces().Finalize(ctx, ns, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CoreV1().Namespaces().Get(ctx, "doomed", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("after finalize: want NotFound, got %v", err)
	}
	if err := c.CoreV1().Namespaces().Delete(ctx, "kube-system", metav1.DeleteOptions{}); !apierrors.IsForbidden(err) {
		t.Fatalf("deleting kube-system: want Forbidden, got %v", err)
	}
}

// TestPodBindingAndGracefulDeletion: an unscheduled pod goes at once, a
// bound one waits out its grace period with a deletionTimestamp.
func TestPodBindingAndGracefulDeletion(t *testing.T) {
	s := startKapi(t)
	c := clientset(t, s.ClientConfig)
	ctx := context.Background()
	// The pods run as the namespace's default service account, which kube's
	// controller manager would create.
	if _, err := c.CoreV1().ServiceAccounts("default").Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	pods := c.CoreV1().Pods("default")
	newPod := func(name string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}
	}
	created, err := pods.Create(ctx, newPod("bound"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if created.Status.Phase != corev1.PodPending || created.Status.QOSClass != corev1.PodQOSBestEffort {
		t.Errorf("status = %+v", created.Status)
	}
	if err := pods.Bind(ctx, &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: "bound"}, Target: corev1.ObjectReference{Kind: "Node", Name: "node-1"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	err = pods.Bind(ctx, &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: "bound"}, Target: corev1.ObjectReference{Kind: "Node", Name: "node-2"}}, metav1.CreateOptions{})
	if !apierrors.IsConflict(err) {
		t.Fatalf("second binding: want Conflict, got %v", err)
	}
	if err := pods.Delete(ctx, "bound", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	got, err := pods.Get(ctx, "bound", metav1.GetOptions{})
	if err != nil || got.DeletionTimestamp == nil || got.DeletionGracePeriodSeconds == nil || *got.DeletionGracePeriodSeconds != 30 {
		t.Fatalf("bound pod after delete: %+v %v", got, err)
	}
	if err := pods.Delete(ctx, "bound", metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}); err != nil {
		t.Fatal(err)
	}
	if _, err := pods.Get(ctx, "bound", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("after a delete with grace 0: %v", err)
	}

	if _, err := pods.Create(ctx, newPod("unbound"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := pods.Delete(ctx, "unbound", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := pods.Get(ctx, "unbound", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("an unscheduled pod should go at once: %v", err)
	}

	list, err := pods.List(ctx, metav1.ListOptions{FieldSelector: "status.phase=Pending,spec.nodeName="})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 0 {
		t.Errorf("field selector matched %d pods", len(list.Items))
	}
}

// TestEventsServedInBothAPIs: an event written through events.k8s.io/v1
// is read back through core/v1, and the other way round.
func TestEventsServedInBothAPIs(t *testing.T) {
	s := startKapi(t)
	c := clientset(t, s.ClientConfig)
	ctx := context.Background()
	now := metav1.NowMicro()
	_, err := c.EventsV1().Events("default").Create(ctx, &eventsv1.Event{
		ObjectMeta:          metav1.ObjectMeta{Name: "e1"},
		EventTime:           now,
		ReportingController: "example.com/controller",
		ReportingInstance:   "controller-1",
		Action:              "Reconcile",
		Reason:              "Synced",
		Regarding:           corev1.ObjectReference{Kind: "ConfigMap", Namespace: "default", Name: "app"},
		Note:                "all good",
		Type:                corev1.EventTypeNormal,
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	core, err := c.CoreV1().Events("default").Get(ctx, "e1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if core.Message != "all good" || core.InvolvedObject.Name != "app" || core.ReportingController != "example.com/controller" {
		t.Errorf("core/v1 view: %+v", core)
	}
	list, err := c.CoreV1().Events("default").List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.name=app,reason=Synced"})
	if err != nil || len(list.Items) != 1 {
		t.Fatalf("field-selected core list: %v %v", list, err)
	}
	evs, err := c.EventsV1().Events("default").List(ctx, metav1.ListOptions{})
	if err != nil || len(evs.Items) != 1 || evs.Items[0].Note != "all good" {
		t.Fatalf("events.k8s.io list: %v %v", evs, err)
	}
}

// TestServiceClusterIPs: every service gets its own IP from the range;
// asking for a taken one is kube-apiserver's 422.
func TestServiceClusterIPs(t *testing.T) {
	s := startKapi(t)
	c := clientset(t, s.ClientConfig)
	ctx := context.Background()
	seen := map[string]bool{"10.96.0.1": true}
	for _, name := range []string{"a", "b", "c", "d"} {
		svc, err := c.CoreV1().Services("default").Create(ctx, &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec:       corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80, TargetPort: intstr.FromInt32(8080)}}},
		}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ip := svc.Spec.ClusterIP
		if seen[ip] || !strings.HasPrefix(ip, "10.") || len(svc.Spec.ClusterIPs) != 1 || svc.Spec.IPFamilies[0] != corev1.IPv4Protocol {
			t.Errorf("service %s: clusterIP %s clusterIPs %v families %v", name, ip, svc.Spec.ClusterIPs, svc.Spec.IPFamilies)
		}
		seen[ip] = true
	}
	_, err := c.CoreV1().Services("default").Create(ctx, &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "taken"},
		Spec:       corev1.ServiceSpec{ClusterIP: "10.96.0.1", Ports: []corev1.ServicePort{{Port: 80}}},
	}, metav1.CreateOptions{})
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "provided IP is already allocated") {
		t.Fatalf("taken IP: %v", err)
	}
}

// TestRepresentations: YAML in and out, metadata-only lists, and the
// unknown-field warning of the default fieldValidation.
func TestRepresentations(t *testing.T) {
	s := startKapi(t)
	client, err := rest.HTTPClientFor(s.ClientConfig)
	if err != nil {
		t.Fatal(err)
	}
	do := func(method, path, contentType, accept, body string) (*http.Response, string) {
		req, _ := http.NewRequest(method, s.URL+path, strings.NewReader(body))
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		if accept != "" {
			req.Header.Set("Accept", accept)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	resp, body := do("POST", "/api/v1/namespaces/default/configmaps", "application/yaml", "application/yaml",
		"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: yml\ndata:\n  k: v\nbogus: 1\n")
	if resp.StatusCode != 201 || !strings.Contains(body, "kind: ConfigMap") || !strings.Contains(body, "k: v") {
		t.Fatalf("yaml create: %d %s", resp.StatusCode, body)
	}
	if w := resp.Header.Get("Warning"); !strings.Contains(w, `unknown field \"bogus\"`) {
		t.Errorf("Warning header = %q", w)
	}
	resp, body = do("GET", "/api/v1/namespaces/default/configmaps", "", "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1", "")
	if resp.StatusCode != 200 || !strings.Contains(body, `"kind":"PartialObjectMetadataList"`) || strings.Contains(body, `"data"`) {
		t.Fatalf("metadata list: %d %s", resp.StatusCode, body)
	}
	resp, body = do("GET", "/api/v1/namespaces/default/configmaps/yml", "", "application/json;as=Table;g=meta.k8s.io;v=v1", "")
	if resp.StatusCode != 200 || !strings.Contains(body, `"kind":"Table"`) || !strings.Contains(body, `"name":"Data"`) {
		t.Fatalf("table: %d %s", resp.StatusCode, body)
	}
	resp, _ = do("POST", "/api/v1/namespaces/default/configmaps?dryRun=All", "application/json", "",
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"dry"}}`)
	if resp.StatusCode != 201 {
		t.Fatalf("dry-run create: %d", resp.StatusCode)
	}
	if resp, _ := do("GET", "/api/v1/namespaces/default/configmaps/dry", "", "", ""); resp.StatusCode != 404 {
		t.Errorf("a dry-run create was stored: %d", resp.StatusCode)
	}
	resp, body = do("GET", "/metrics", "", "", "")
	if resp.StatusCode != 200 || !strings.Contains(body, "apiserver_request_total{") {
		t.Errorf("metrics: %d", resp.StatusCode)
	}
}
