package e2e

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/pkg/testserver"
)

func startKapi(t *testing.T) *testserver.Server {
	t.Helper()
	return testserver.Start(t, testserver.Options{})
}

func clientset(t *testing.T, cfg *rest.Config) *kubernetes.Clientset {
	t.Helper()
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestSystemNamespacesExistAfterStart(t *testing.T) {
	s := startKapi(t)
	c := clientset(t, s.ClientConfig)
	ctx := context.Background()
	want := map[string]bool{"default": false, "kube-system": false, "kube-public": false, "kube-node-lease": false}
	list, err := c.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, ns := range list.Items {
		if _, ok := want[ns.Name]; ok {
			want[ns.Name] = true
		}
		if ns.Status.Phase != corev1.NamespaceActive || ns.Labels["kubernetes.io/metadata.name"] != ns.Name {
			t.Errorf("namespace %s: phase %q labels %v", ns.Name, ns.Status.Phase, ns.Labels)
		}
	}
	for name, found := range want {
		if !found {
			t.Errorf("namespace %s is missing", name)
		}
	}
}

func TestConfigMapLifecycle(t *testing.T) {
	s := startKapi(t)
	c := clientset(t, s.ClientConfig)
	ctx := context.Background()
	cms := c.CoreV1().ConfigMaps("default")

	created, err := cms.Create(ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "app", Labels: map[string]string{"tier": "web"}},
		Data:       map[string]string{"k": "v"},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if created.UID == "" || created.ResourceVersion == "" || created.CreationTimestamp.IsZero() {
		t.Fatalf("server-owned metadata missing: %+v", created.ObjectMeta)
	}

	_, err = cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "app"}}, metav1.CreateOptions{})
	if !apierrors.IsAlreadyExists(err) {
		t.Fatalf("duplicate create: want AlreadyExists, got %v", err)
	}

	got, err := cms.Get(ctx, "app", metav1.GetOptions{})
	if err != nil || got.Data["k"] != "v" {
		t.Fatalf("get: %v %v", got, err)
	}

	// A stale resourceVersion is a conflict.
	stale := got.DeepCopy()
	got.Data["k"] = "v2"
	updated, err := cms.Update(ctx, got, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	stale.Data["k"] = "v3"
	if _, err := cms.Update(ctx, stale, metav1.UpdateOptions{}); !apierrors.IsConflict(err) {
		t.Fatalf("stale update: want Conflict, got %v", err)
	}

	for _, p := range []struct {
		typ   types.PatchType
		patch string
		want  string
	}{
		{types.MergePatchType, `{"data":{"k":"merge"}}`, "merge"},
		{types.StrategicMergePatchType, `{"data":{"k":"strategic"}}`, "strategic"},
		{types.JSONPatchType, `[{"op":"replace","path":"/data/k","value":"json"}]`, "json"},
	} {
		out, err := cms.Patch(ctx, "app", p.typ, []byte(p.patch), metav1.PatchOptions{})
		if err != nil {
			t.Fatalf("%s: %v", p.typ, err)
		}
		if out.Data["k"] != p.want {
			t.Errorf("%s: data.k = %q, want %q", p.typ, out.Data["k"], p.want)
		}
	}

	// dryRun changes nothing.
	if _, err := cms.Patch(ctx, "app", types.MergePatchType, []byte(`{"data":{"k":"dry"}}`), metav1.PatchOptions{DryRun: []string{metav1.DryRunAll}}); err != nil {
		t.Fatal(err)
	}
	if got, _ := cms.Get(ctx, "app", metav1.GetOptions{}); got.Data["k"] != "json" {
		t.Errorf("dry run patch was stored: %q", got.Data["k"])
	}

	list, err := cms.List(ctx, metav1.ListOptions{LabelSelector: "tier=web"})
	if err != nil || len(list.Items) != 1 {
		t.Fatalf("list by label: %v %v", list, err)
	}
	if list.ResourceVersion == "" {
		t.Error("list has no resourceVersion")
	}

	if err := cms.Delete(ctx, "app", metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: ptr.To(types.UID("wrong"))}}); !apierrors.IsConflict(err) {
		t.Fatalf("delete with a wrong uid: want Conflict, got %v", err)
	}
	if err := cms.Delete(ctx, "app", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cms.Get(ctx, "app", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("after delete: want NotFound, got %v", err)
	}
	_ = updated
}

func TestFinalizersHoldDeletion(t *testing.T) {
	s := startKapi(t)
	c := clientset(t, s.ClientConfig)
	ctx := context.Background()
	cms := c.CoreV1().ConfigMaps("default")
	if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "held", Finalizers: []string{"example.com/hold"}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := cms.Delete(ctx, "held", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	got, err := cms.Get(ctx, "held", metav1.GetOptions{})
	if err != nil || got.DeletionTimestamp == nil {
		t.Fatalf("object held by a finalizer should remain with a deletionTimestamp: %v %v", got, err)
	}
	got.Finalizers = nil
	if _, err := cms.Update(ctx, got, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cms.Get(ctx, "held", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("removing the last finalizer should delete the object, got %v", err)
	}
}

func TestGenerateNameAndNamespaceLifecycle(t *testing.T) {
	s := startKapi(t)
	c := clientset(t, s.ClientConfig)
	ctx := context.Background()
	cm, err := c.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: "gen-"}}, metav1.CreateOptions{})
	if err != nil || !strings.HasPrefix(cm.Name, "gen-") || len(cm.Name) != len("gen-")+5 {
		t.Fatalf("generateName: %v %v", cm, err)
	}
	_, err = c.CoreV1().ConfigMaps("missing").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "x"}}, metav1.CreateOptions{})
	if !apierrors.IsNotFound(err) {
		t.Fatalf("create in a missing namespace: want NotFound, got %v", err)
	}
}

func TestWatchSeesChangesInOrder(t *testing.T) {
	s := startKapi(t)
	c := clientset(t, s.ClientConfig)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cms := c.CoreV1().ConfigMaps("default")
	list, err := cms.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := cms.Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "w"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cms.Patch(ctx, "w", types.MergePatchType, []byte(`{"data":{"a":"b"}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := cms.Delete(ctx, "w", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []watch.EventType{watch.Added, watch.Modified, watch.Deleted} {
		select {
		case ev := <-w.ResultChan():
			if ev.Type != want {
				t.Fatalf("event %s, want %s", ev.Type, want)
			}
			if cm, ok := ev.Object.(*corev1.ConfigMap); !ok || cm.Name != "w" {
				t.Fatalf("event object %#v", ev.Object)
			}
		case <-ctx.Done():
			t.Fatalf("no %s event", want)
		}
	}
}

func TestInformerSyncsAndReceivesEvents(t *testing.T) {
	s := startKapi(t)
	c := clientset(t, s.ClientConfig)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	factory := informers.NewSharedInformerFactoryWithOptions(c, 0, informers.WithNamespace("default"))
	inf := factory.Core().V1().ConfigMaps().Informer()
	added := make(chan string, 10)
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj interface{}) { added <- obj.(*corev1.ConfigMap).Name },
	}); err != nil {
		t.Fatal(err)
	}
	factory.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		t.Fatal("informer did not sync")
	}
	if _, err := c.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "seen"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for {
		select {
		case name := <-added:
			if name == "seen" {
				return
			}
		case <-ctx.Done():
			t.Fatal("informer did not see the new configmap")
		}
	}
}

func TestProtobufClient(t *testing.T) {
	s := startKapi(t)
	cfg := rest.CopyConfig(s.ClientConfig)
	cfg.ContentType = runtime.ContentTypeProtobuf
	cfg.AcceptContentTypes = runtime.ContentTypeProtobuf
	c := clientset(t, cfg)
	ctx := context.Background()
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](2),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: "nginx:1.27"}}},
			},
		},
	}
	out, err := c.AppsV1().Deployments("default").Create(ctx, d, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if out.Generation != 1 || out.Spec.Template.Spec.Containers[0].ImagePullPolicy != corev1.PullIfNotPresent {
		t.Errorf("deployment not defaulted: generation %d, pull policy %q", out.Generation, out.Spec.Template.Spec.Containers[0].ImagePullPolicy)
	}
	scale, err := c.AppsV1().Deployments("default").GetScale(ctx, "web", metav1.GetOptions{})
	if err != nil || scale.Spec.Replicas != 2 || scale.Status.Selector != "app=web" {
		t.Fatalf("scale: %+v %v", scale, err)
	}
	scale.Spec.Replicas = 5
	if _, err := c.AppsV1().Deployments("default").UpdateScale(ctx, "web", scale, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	got, err := c.AppsV1().Deployments("default").Get(ctx, "web", metav1.GetOptions{})
	if err != nil || *got.Spec.Replicas != 5 || got.Generation != 2 {
		t.Fatalf("after scaling: %v %v", got, err)
	}
}

func TestDynamicClientAndDiscovery(t *testing.T) {
	s := startKapi(t)
	dyn, err := dynamic.NewForConfig(s.ClientConfig)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	leases := dyn.Resource(schema.GroupVersionResource{Group: "coordination.k8s.io", Version: "v1", Resource: "leases"}).Namespace("kube-node-lease")
	list, err := leases.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if list.GetAPIVersion() != "coordination.k8s.io/v1" || list.GetKind() != "LeaseList" {
		t.Errorf("list is %s %s", list.GetAPIVersion(), list.GetKind())
	}

	c := clientset(t, s.ClientConfig)
	groups, resources, err := c.Discovery().ServerGroupsAndResources()
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, g := range groups {
		names[g.Name] = true
	}
	for _, g := range []string{"", "apps", "coordination.k8s.io", "events.k8s.io"} {
		if !names[g] {
			t.Errorf("group %q missing from discovery", g)
		}
	}
	found := false
	for _, rl := range resources {
		if rl.GroupVersion != "apps/v1" {
			continue
		}
		for _, r := range rl.APIResources {
			if r.Name == "deployments/scale" && r.Group == "autoscaling" && r.Kind == "Scale" {
				found = true
			}
		}
	}
	if !found {
		t.Error("deployments/scale is not advertised as autoscaling/v1 Scale")
	}
}

// TestErrorsAreStatuses checks the status codes and reasons clients get for
// bad requests, against those recorded from kube-apiserver.
func TestErrorsAreStatuses(t *testing.T) {
	s := startKapi(t)
	client, err := rest.HTTPClientFor(s.ClientConfig)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, method, path, contentType, body string
		code                                  int
		reason                                metav1.StatusReason
	}{
		{"malformed json", "POST", "/api/v1/namespaces/default/configmaps", "application/json", `{"apiVersion":"v1","kind":"Con`, 400, metav1.StatusReasonBadRequest},
		{"invalid name", "POST", "/api/v1/namespaces/default/configmaps", "application/json", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"Invalid_Name!"}}`, 422, metav1.StatusReasonInvalid},
		{"kind mismatch", "POST", "/api/v1/namespaces/default/configmaps", "application/json", `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"}}`, 400, metav1.StatusReasonBadRequest},
		{"namespace mismatch", "POST", "/api/v1/namespaces/default/configmaps", "application/json", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"other"}}`, 400, metav1.StatusReasonBadRequest},
		{"unknown field strict", "POST", "/api/v1/namespaces/default/configmaps?fieldValidation=Strict", "application/json", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"bogus":1}`, 400, metav1.StatusReasonBadRequest},
		{"unsupported media type", "POST", "/api/v1/namespaces/default/configmaps", "application/xml", `<x/>`, 415, metav1.StatusReasonUnsupportedMediaType},
		{"unsupported patch type", "PATCH", "/api/v1/namespaces/default/configmaps/a", "application/json", `{}`, 415, metav1.StatusReasonUnsupportedMediaType},
		{"method not allowed", "POST", "/api/v1/namespaces/default/configmaps/a", "application/json", `{}`, 405, metav1.StatusReasonMethodNotAllowed},
		{"unknown resource", "GET", "/api/v1/namespaces/default/foos", "", "", 404, metav1.StatusReasonNotFound},
		{"missing object", "GET", "/api/v1/namespaces/default/configmaps/none", "", "", 404, metav1.StatusReasonNotFound},
		{"bad label selector", "GET", "/api/v1/namespaces/default/configmaps?labelSelector=a%20in%20(", "", "", 400, metav1.StatusReasonBadRequest},
		{"unknown field selector", "GET", "/api/v1/namespaces/default/configmaps?fieldSelector=spec.foo%3Dbar", "", "", 400, metav1.StatusReasonBadRequest},
		{"body too large", "POST", "/api/v1/namespaces/default/configmaps", "application/json", strings.Repeat(" ", 3*1024*1024+1), 413, metav1.StatusReasonRequestEntityTooLarge},
		{"deeply nested", "POST", "/api/v1/namespaces/default/configmaps", "application/json", strings.Repeat("[", 100000), 400, metav1.StatusReasonBadRequest},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(tc.method, s.URL+tc.path, strings.NewReader(tc.body))
			if tc.contentType != "" {
				req.Header.Set("Content-Type", tc.contentType)
			}
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			var st metav1.Status
			if err := json.Unmarshal(body, &st); err != nil {
				t.Fatalf("body is not a Status: %s", body)
			}
			if resp.StatusCode != tc.code || int(st.Code) != tc.code || st.Reason != tc.reason || st.Kind != "Status" {
				t.Errorf("got %d %d %s: %s; want %d %s", resp.StatusCode, st.Code, st.Reason, st.Message, tc.code, tc.reason)
			}
		})
	}
	// The server is still healthy after all of that.
	resp, err := client.Get(s.URL + "/readyz")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("readyz after bad input: %v %v", resp, err)
	}
	resp.Body.Close()
}

// TestAnonymousIsConfinedToHealth checks that a zero-config kapi serves
// health to anyone and nothing else to anonymous clients.
func TestAnonymousIsConfinedToHealth(t *testing.T) {
	s := startKapi(t)
	anon := rest.AnonymousClientConfig(s.ClientConfig)
	client, err := rest.HTTPClientFor(anon)
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]int{"/healthz": 200, "/readyz": 200, "/livez": 200, "/version": 200, "/api/v1/namespaces": 403, "/apis": 403} {
		resp, err := client.Get(s.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("anonymous GET %s: %d, want %d", path, resp.StatusCode, want)
		}
	}
	req, _ := http.NewRequest("POST", s.URL+"/api/v1/namespaces", strings.NewReader(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"x"}}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("anonymous create: %d, want 403", resp.StatusCode)
	}
}
