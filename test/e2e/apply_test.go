package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"
)

// managedFieldsSummary is what a test compares of managedFields entries:
// everything but the time. (The field manager leaves the time out of the
// entry of a manager whose write changed nothing, such as an apply of the
// values others set, and of a new manager of the scale subresource.)
type managedFieldsSummary struct {
	Manager, Operation, APIVersion, Subresource, FieldsV1 string
}

// summarize summarizes entries, which are sorted as kube-apiserver sorts
// them: applies first, then by time, then by manager.
func summarize(t *testing.T, entries []metav1.ManagedFieldsEntry) []managedFieldsSummary {
	t.Helper()
	var out []managedFieldsSummary
	for _, e := range entries {
		if e.FieldsType != "FieldsV1" || e.FieldsV1 == nil {
			t.Errorf("entry of %s has fieldsType %q, fieldsV1 %v", e.Manager, e.FieldsType, e.FieldsV1)
			continue
		}
		out = append(out, managedFieldsSummary{e.Manager, string(e.Operation), e.APIVersion, e.Subresource, string(e.FieldsV1.Raw)})
	}
	return out
}

// timed fails unless every entry has a time.
func timed(t *testing.T, entries []metav1.ManagedFieldsEntry) {
	t.Helper()
	for _, e := range entries {
		if e.Time == nil || e.Time.IsZero() {
			t.Errorf("entry of %s has no time", e.Manager)
		}
	}
}

// withUserAgent is a copy of cfg whose clients send userAgent.
func withUserAgent(cfg *rest.Config, userAgent string) *rest.Config {
	c := rest.CopyConfig(cfg)
	c.UserAgent = userAgent
	return c
}

// TestManagedFieldsOfWrites: every create, update and patch records its
// writer, named by the fieldManager option or else by the product of the
// client's User-Agent, as kube-apiserver records it.
func TestManagedFieldsOfWrites(t *testing.T) {
	s := startKapi(t)
	ctx := context.Background()
	c := clientset(t, withUserAgent(s.ClientConfig, "my-tool/1.2.3 (linux/amd64) kubernetes/abcdef"))
	cms := c.CoreV1().ConfigMaps("default")

	cm, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm"}, Data: map[string]string{"a": "1"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []managedFieldsSummary{{"my-tool", "Update", "v1", "", `{"f:data":{".":{},"f:a":{}}}`}}
	if got := summarize(t, cm.ManagedFields); !slices.Equal(got, want) {
		t.Errorf("after create: %+v, want %+v", got, want)
	}
	timed(t, cm.ManagedFields)

	cm.Data["b"] = "2"
	cm, err = cms.Update(ctx, cm, metav1.UpdateOptions{FieldManager: "updater"})
	if err != nil {
		t.Fatal(err)
	}
	want = append(want, managedFieldsSummary{"updater", "Update", "v1", "", `{"f:data":{"f:b":{}}}`})
	if got := summarize(t, cm.ManagedFields); !slices.Equal(got, want) {
		t.Errorf("after update: %+v, want %+v", got, want)
	}

	cm, err = cms.Patch(ctx, "cm", types.MergePatchType, []byte(`{"data":{"c":"3"}}`), metav1.PatchOptions{FieldManager: "patcher"})
	if err != nil {
		t.Fatal(err)
	}
	// Entries of one second are sorted by manager.
	want = []managedFieldsSummary{want[0], {"patcher", "Update", "v1", "", `{"f:data":{"f:c":{}}}`}, want[1]}
	if got := summarize(t, cm.ManagedFields); !slices.Equal(got, want) {
		t.Errorf("after patch: %+v, want %+v", got, want)
	}

	t.Run("a list of one empty entry resets them", func(t *testing.T) {
		// (An empty list would be left out of the JSON.)
		cm.ManagedFields = []metav1.ManagedFieldsEntry{{}}
		out, err := cms.Update(ctx, cm, metav1.UpdateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(out.ManagedFields) != 0 {
			t.Errorf("managedFields %+v after a reset that changed nothing", out.ManagedFields)
		}
	})

	t.Run("the fieldManager is validated", func(t *testing.T) {
		_, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "bad"}}, metav1.CreateOptions{FieldManager: "bad\x01manager"})
		if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), `CreateOptions.meta.k8s.io "" is invalid: fieldManager: Invalid value: "bad\x01manager": invalid character U+0001`) {
			t.Errorf("got %v", err)
		}
	})

	t.Run("a custom resource posted by curl, as kube-apiserver recorded it", func(t *testing.T) {
		createCRD(t, apiextensionsClient(t, s.ClientConfig), referenceCRD(t))
		var ref unstructured.Unstructured
		if err := json.Unmarshal(referenceFile(t, "defaulting/customresource.output.json"), &ref.Object); err != nil {
			t.Fatal(err)
		}
		body := referenceFile(t, "defaulting/customresource.input.json")
		rc := clientset(t, withUserAgent(s.ClientConfig, "curl/8.5.0")).CoreV1().RESTClient()
		if _, err := rc.Post().AbsPath("/api/v1/namespaces").Body([]byte(`{"metadata":{"name":"defaulting"}}`)).DoRaw(ctx); err != nil {
			t.Fatal(err)
		}
		raw, err := rc.Post().AbsPath("/apis/example.com/v1/namespaces/defaulting/widgets").Body(body).DoRaw(ctx)
		if err != nil {
			t.Fatalf("%v: %s", err, raw)
		}
		var got unstructured.Unstructured
		if err := json.Unmarshal(raw, &got.Object); err != nil {
			t.Fatal(err)
		}
		if g, w := summarize(t, got.GetManagedFields()), summarize(t, ref.GetManagedFields()); !slices.Equal(g, w) {
			t.Errorf("managedFields %+v, kube-apiserver's %+v", g, w)
		}
	})
}

// TestServerSideApplyConfigMap: apply creates, updates what its manager
// owns, reports a conflict with another manager's value, and force takes
// the field over.
func TestServerSideApplyConfigMap(t *testing.T) {
	s := startKapi(t)
	ctx := context.Background()
	c := clientset(t, s.ClientConfig)
	cms := c.CoreV1().ConfigMaps("default")
	applyCM := func(manager, data string, force bool, dryRun ...string) (*corev1.ConfigMap, error) {
		patch := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"},"data":` + data + `}`
		return cms.Patch(ctx, "cm", types.ApplyPatchType, []byte(patch), metav1.PatchOptions{FieldManager: manager, Force: ptr.To(force), DryRun: dryRun})
	}

	t.Run("a dry run creates nothing", func(t *testing.T) {
		if _, err := applyCM("alice", `{"a":"1"}`, false, metav1.DryRunAll); err != nil {
			t.Fatal(err)
		}
		if _, err := cms.Get(ctx, "cm", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Fatalf("after a dry-run apply: %v", err)
		}
	})

	t.Run("apply creates with 201", func(t *testing.T) {
		var code int
		res := c.CoreV1().RESTClient().Patch(types.ApplyPatchType).Namespace("default").Resource("configmaps").Name("cm").
			Param("fieldManager", "alice").Body([]byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"},"data":{"a":"1","b":"2"}}`)).
			Do(ctx).StatusCode(&code)
		if err := res.Error(); err != nil || code != http.StatusCreated {
			t.Fatalf("code %d, %v", code, err)
		}
	})

	t.Run("the same manager changes its own fields", func(t *testing.T) {
		cm, err := applyCM("alice", `{"a":"10","b":"2"}`, false)
		if err != nil {
			t.Fatal(err)
		}
		want := []managedFieldsSummary{{"alice", "Apply", "v1", "", `{"f:data":{"f:a":{},"f:b":{}}}`}}
		if got := summarize(t, cm.ManagedFields); !slices.Equal(got, want) || cm.Data["a"] != "10" {
			t.Errorf("data %v, managedFields %+v, want %+v", cm.Data, got, want)
		}
	})

	t.Run("another manager's value conflicts", func(t *testing.T) {
		_, err := applyCM("bob", `{"a":"20","c":"3"}`, false)
		if !apierrors.IsConflict(err) {
			t.Fatalf("want a 409, got %v", err)
		}
		if err.Error() != `Apply failed with 1 conflict: conflict with "alice": .data.a` {
			t.Errorf("message %q", err)
		}
		causes := err.(apierrors.APIStatus).Status().Details.Causes
		if len(causes) != 1 || causes[0].Type != metav1.CauseTypeFieldManagerConflict || causes[0].Message != `conflict with "alice"` || causes[0].Field != ".data.a" {
			t.Errorf("causes %+v", causes)
		}
	})

	t.Run("the same value is shared, not a conflict", func(t *testing.T) {
		cm, err := applyCM("bob", `{"a":"10"}`, false)
		if err != nil {
			t.Fatal(err)
		}
		// bob's write changed nothing: his entry has no time, and comes
		// first.
		want := []managedFieldsSummary{
			{"bob", "Apply", "v1", "", `{"f:data":{"f:a":{}}}`},
			{"alice", "Apply", "v1", "", `{"f:data":{"f:a":{},"f:b":{}}}`},
		}
		if got := summarize(t, cm.ManagedFields); !slices.Equal(got, want) {
			t.Errorf("managedFields %+v, want %+v", got, want)
		}
	})

	t.Run("force takes the field over", func(t *testing.T) {
		cm, err := applyCM("bob", `{"a":"20"}`, true)
		if err != nil {
			t.Fatal(err)
		}
		want := []managedFieldsSummary{
			{"alice", "Apply", "v1", "", `{"f:data":{"f:b":{}}}`},
			{"bob", "Apply", "v1", "", `{"f:data":{"f:a":{}}}`},
		}
		if got := summarize(t, cm.ManagedFields); !slices.Equal(got, want) || cm.Data["a"] != "20" {
			t.Errorf("data %v, managedFields %+v, want %+v", cm.Data, got, want)
		}
	})

	t.Run("what a manager stops applying goes", func(t *testing.T) {
		cm, err := applyCM("alice", `{}`, false)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := cm.Data["b"]; ok || cm.Data["a"] != "20" {
			t.Errorf("data %v: want b removed, bob's a kept", cm.Data)
		}
	})

	t.Run("errors", func(t *testing.T) {
		tests := []struct {
			name     string
			object   string // the name in the URL; "cm" if empty
			patch    string
			opts     metav1.PatchOptions
			wantCode int32
			wantMsg  string
		}{
			{"apply needs a field manager", "", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"}}`, metav1.PatchOptions{}, http.StatusUnprocessableEntity,
				`PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch`},
			{"force is for apply only", "", `{}`, metav1.PatchOptions{Force: ptr.To(true)}, http.StatusUnprocessableEntity,
				`PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch`},
			{"the kind must be the one addressed", "", `{"apiVersion":"v2","kind":"ConfigMap","metadata":{"name":"cm"}}`, metav1.PatchOptions{FieldManager: "x"}, http.StatusBadRequest,
				"invalid object type: /v2, Kind=ConfigMap"},
			{"managedFields may not be applied", "", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","managedFields":[{"manager":"x"}]}}`, metav1.PatchOptions{FieldManager: "x"}, http.StatusBadRequest,
				"metadata.managedFields must be nil"},
			{"a uid names an existing object", "other", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"other","uid":"1234"}}`, metav1.PatchOptions{FieldManager: "x"}, http.StatusConflict,
				`Operation cannot be fulfilled on configmaps "other": uid mismatch: the provided object specified uid 1234, and no existing object was found`},
			// kube-apiserver answers 500 (kubernetes/kubernetes#139253),
			// and so does kapi.
			{"an unknown field fails", "", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"},"bogus":1}`, metav1.PatchOptions{FieldManager: "x"}, http.StatusInternalServerError,
				"failed to create typed patch object (/cm; /v1, Kind=ConfigMap): .bogus: field not declared in schema"},
			{"the name must be the URL's", "", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"other"}}`, metav1.PatchOptions{FieldManager: "x"}, http.StatusBadRequest,
				"the name of the object (other) does not match the name on the URL (cm)"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				pt := types.ApplyPatchType
				if tt.opts.Force != nil {
					pt = types.MergePatchType
				}
				name := tt.object
				if name == "" {
					name = "cm"
				}
				_, err := cms.Patch(ctx, name, pt, []byte(tt.patch), tt.opts)
				st, ok := err.(apierrors.APIStatus)
				if !ok {
					t.Fatalf("got %v", err)
				}
				if st.Status().Code != tt.wantCode || st.Status().Message != tt.wantMsg {
					t.Errorf("got %d %q, want %d %q", st.Status().Code, st.Status().Message, tt.wantCode, tt.wantMsg)
				}
			})
		}
	})
}

const deploymentApply = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{
	"replicas":2,"selector":{"matchLabels":{"app":"web"}},
	"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"nginx:1"}]}}}}`

// TestServerSideApplyDeployment: containers merge by name, so that two
// managers own a container each; the scale subresource and the status
// subresource record their own writers.
func TestServerSideApplyDeployment(t *testing.T) {
	s := startKapi(t)
	ctx := context.Background()
	c := clientset(t, s.ClientConfig)
	deployments := c.AppsV1().Deployments("default")
	applyDeployment := func(manager, patch string, force bool) (*appsv1.Deployment, error) {
		return deployments.Patch(ctx, "web", types.ApplyPatchType, []byte(patch), metav1.PatchOptions{FieldManager: manager, Force: ptr.To(force)})
	}
	if _, err := applyDeployment("team", deploymentApply, false); err != nil {
		t.Fatal(err)
	}
	const sidecar = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"template":{"spec":{
		"containers":[{"name":"proxy","image":"envoy:1"}]}}}}`
	d, err := applyDeployment("mesh", sidecar, false)
	if err != nil {
		t.Fatal(err)
	}
	containers := d.Spec.Template.Spec.Containers
	if len(containers) != 2 || containers[0].Name != "web" || containers[1].Name != "proxy" || containers[0].ImagePullPolicy == "" {
		t.Fatalf("containers %+v: want web then proxy, defaulted", containers)
	}

	t.Run("a conflict names the container", func(t *testing.T) {
		_, err := applyDeployment("mesh", `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"template":{"spec":{
			"containers":[{"name":"proxy","image":"envoy:1"},{"name":"web","image":"nginx:2"}]}}}}`, false)
		if !apierrors.IsConflict(err) || err.Error() != `Apply failed with 1 conflict: conflict with "team": .spec.template.spec.containers[name="web"].image` {
			t.Fatalf("got %v", err)
		}
	})

	t.Run("force takes it over", func(t *testing.T) {
		d, err := applyDeployment("mesh", `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"template":{"spec":{
			"containers":[{"name":"proxy","image":"envoy:1"},{"name":"web","image":"nginx:2"}]}}}}`, true)
		if err != nil {
			t.Fatal(err)
		}
		// The order is the last applier's.
		if c := d.Spec.Template.Spec.Containers; len(c) != 2 || c[1].Name != "web" || c[1].Image != "nginx:2" {
			t.Errorf("containers %+v", c)
		}
		// team still owns the web container's name and the rest of its spec.
		if _, err := applyDeployment("team", deploymentApply, false); !apierrors.IsConflict(err) {
			t.Errorf("team applying its old image: %v, want a conflict with mesh", err)
		}
	})

	t.Run("scale records its writer on the deployment", func(t *testing.T) {
		_, err := deployments.UpdateScale(ctx, "web", &autoscalingv1.Scale{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
			Spec: autoscalingv1.ScaleSpec{Replicas: 5}}, metav1.UpdateOptions{FieldManager: "autoscaler"})
		if err != nil {
			t.Fatal(err)
		}
		d, err := deployments.Get(ctx, "web", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var found bool
		for _, e := range summarize(t, d.ManagedFields) {
			if e.Manager == "autoscaler" {
				found = true
				if e.Subresource != "scale" || e.APIVersion != "apps/v1" || e.FieldsV1 != `{"f:spec":{"f:replicas":{}}}` {
					t.Errorf("autoscaler's entry %+v", e)
				}
			}
			if e.Manager == "team" && strings.Contains(e.FieldsV1, `"f:replicas"`) {
				t.Errorf("team still owns the replicas: %+v", e)
			}
		}
		if !found || *d.Spec.Replicas != 5 {
			t.Errorf("replicas %d, managedFields %+v", *d.Spec.Replicas, d.ManagedFields)
		}
	})

	t.Run("status apply owns the status only", func(t *testing.T) {
		d, err := deployments.Patch(ctx, "web", types.ApplyPatchType, []byte(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},
			"spec":{"replicas":1},"status":{"observedGeneration":1,"replicas":2}}`), metav1.PatchOptions{FieldManager: "controller"}, "status")
		if err != nil {
			t.Fatalf("a status apply conflicted on what it cannot change: %v", err)
		}
		if *d.Spec.Replicas != 5 || d.Status.Replicas != 2 {
			t.Errorf("spec.replicas %d, status.replicas %d", *d.Spec.Replicas, d.Status.Replicas)
		}
		for _, e := range summarize(t, d.ManagedFields) {
			if e.Manager == "controller" && (e.Subresource != "status" || e.FieldsV1 != `{"f:status":{"f:observedGeneration":{},"f:replicas":{}}}`) {
				t.Errorf("controller's entry %+v", e)
			}
		}
	})
}

// TestServerSideApplyCustomResource applies custom resources of the
// reference widgets CRD: defaults of the schema apply, conflicts and force
// work as for built-in kinds, and /status is applied apart.
func TestServerSideApplyCustomResource(t *testing.T) {
	s := startKapi(t)
	ctx := context.Background()
	createCRD(t, apiextensionsClient(t, s.ClientConfig), referenceCRD(t))
	ws := dynamicClient(t, s.ClientConfig).Resource(widgets).Namespace("default")
	applyWidget := func(manager, spec string, force bool, subresources ...string) (*unstructured.Unstructured, error) {
		patch := `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},` + spec + `}`
		return ws.Patch(ctx, "w", types.ApplyPatchType, []byte(patch), metav1.PatchOptions{FieldManager: manager, Force: ptr.To(force)}, subresources...)
	}

	w, err := applyWidget("alice", `"spec":{"name":"w1","size":5}`, false)
	if err != nil {
		t.Fatal(err)
	}
	if color, _, _ := unstructured.NestedString(w.Object, "spec", "color"); color != "blue" {
		t.Errorf("spec.color %q, want the schema's default", color)
	}
	want := []managedFieldsSummary{{"alice", "Apply", "example.com/v1", "", `{"f:spec":{"f:name":{},"f:size":{}}}`}}
	if got := summarize(t, w.GetManagedFields()); !slices.Equal(got, want) {
		t.Errorf("managedFields %+v, want %+v", got, want)
	}

	if _, err := applyWidget("bob", `"spec":{"size":6}`, false); !apierrors.IsConflict(err) ||
		err.Error() != `Apply failed with 1 conflict: conflict with "alice": .spec.size` {
		t.Errorf("got %v, want a conflict on .spec.size", err)
	}
	w, err = applyWidget("bob", `"spec":{"size":6}`, true)
	if err != nil {
		t.Fatal(err)
	}
	if size, _, _ := unstructured.NestedInt64(w.Object, "spec", "size"); size != 6 {
		t.Errorf("size %d after force", size)
	}

	w, err = applyWidget("controller", `"spec":{"size":1},"status":{"ready":true}`, false, "status")
	if err != nil {
		t.Fatalf("status apply: %v", err)
	}
	ready, _, _ := unstructured.NestedBool(w.Object, "status", "ready")
	size, _, _ := unstructured.NestedInt64(w.Object, "spec", "size")
	if !ready || size != 6 {
		t.Errorf("status.ready %v, spec.size %d", ready, size)
	}
	got := summarize(t, w.GetManagedFields())
	if last := got[len(got)-1]; last != (managedFieldsSummary{"controller", "Apply", "example.com/v1", "status", `{"f:status":{"f:ready":{}}}`}) {
		t.Errorf("controller's entry %+v", last)
	}

	// kube-apiserver answers 500 to it, with no reason
	// (kubernetes/kubernetes#139253).
	_, err = applyWidget("alice", `"spec":{"bogus":1}`, false)
	if st, ok := err.(apierrors.APIStatus); !ok || st.Status().Code != http.StatusInternalServerError || st.Status().Reason != metav1.StatusReasonUnknown ||
		!strings.Contains(err.Error(), ".spec.bogus: field not declared in schema") {
		t.Errorf("an unknown field: %v", err)
	}
}

// TestKubectlApplyServerSideCRDs installs the real-world CRDs with
// kubectl apply --server-side: the prometheus-operator ones are too large
// for the last-applied annotation of client-side apply.
func TestKubectlApplyServerSideCRDs(t *testing.T) {
	p := startKapiBinary(t, t.TempDir())
	files := sharedCRDs(t)
	args := []string{"apply", "--server-side"}
	for _, f := range files {
		args = append(args, "-f", f)
	}
	out := p.mustKubectl(t, "", args...)
	if got := strings.Count(out, " serverside-applied"); got != len(files) {
		t.Fatalf("applied %d CRDs of %d:\n%s", got, len(files), out)
	}
	p.mustKubectl(t, "", "wait", "--for", "condition=Established", "crd", "--all", "--timeout=60s")

	out = p.mustKubectl(t, "", "get", "crd", "prometheuses.monitoring.coreos.com", "-o", "jsonpath={.metadata.managedFields[*].manager}/{.metadata.managedFields[*].operation}")
	if out != "kubectl/Apply" {
		t.Errorf("managers/operations %q, want kubectl/Apply", out)
	}

	// Applying again changes nothing and conflicts with nothing, not even
	// with the status the server writes.
	out = p.mustKubectl(t, "", args...)
	if got := strings.Count(out, " serverside-applied"); got != len(files) {
		t.Errorf("re-applied %d CRDs of %d:\n%s", got, len(files), out)
	}

	samples := filepath.Join(repoRoot(t), "..", "shared", "crds", "prometheus-operator", "samples")
	p.mustKubectl(t, "", "apply", "--server-side", "-f", samples)
	out = p.mustKubectl(t, "", "get", "servicemonitor", "example-app", "-o", "jsonpath={.metadata.managedFields[0].manager}")
	if out != "kubectl" {
		t.Errorf("servicemonitor manager %q", out)
	}
	out, err := p.kubectl(t, "apiVersion: monitoring.coreos.com/v1\nkind: ServiceMonitor\nmetadata: {name: example-app}\nspec:\n  selector:\n    matchLabels: {app: other}\n",
		"apply", "--server-side", "--field-manager", "intruder", "-f", "-")
	if err == nil || !strings.Contains(out, "conflict") {
		t.Errorf("a conflicting apply by another manager: %v\n%s", err, out)
	}
}

// TestServerSideApplyCustomResourceScale: the scale subresource of a custom
// resource takes applies of autoscaling/v1 Scale, and its writers own the
// replicas of the custom resource.
func TestServerSideApplyCustomResourceScale(t *testing.T) {
	s := startKapi(t)
	ctx := context.Background()
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.Unmarshal([]byte(replicaSetsCRD), crd); err != nil {
		t.Fatal(err)
	}
	createCRD(t, apiextensionsClient(t, s.ClientConfig), crd)
	pools := dynamicClient(t, s.ClientConfig).Resource(schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "pools"})
	_, err := pools.Patch(ctx, "gold", types.ApplyPatchType, []byte(`{"apiVersion":"example.com/v1","kind":"Pool","metadata":{"name":"gold"},
		"spec":{"replicas":1,"tier":"gold"}}`), metav1.PatchOptions{FieldManager: "team"})
	if err != nil {
		t.Fatal(err)
	}
	scale := []byte(`{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"gold"},"spec":{"replicas":3}}`)
	if _, err := pools.Patch(ctx, "gold", types.ApplyPatchType, scale, metav1.PatchOptions{FieldManager: "autoscaler"}, "scale"); !apierrors.IsConflict(err) ||
		err.Error() != `Apply failed with 1 conflict: conflict with "team": .spec.replicas` {
		t.Fatalf("scaling what team applied: %v, want a conflict on .spec.replicas", err)
	}
	out, err := pools.Patch(ctx, "gold", types.ApplyPatchType, scale, metav1.PatchOptions{FieldManager: "autoscaler", Force: ptr.To(true)}, "scale")
	if err != nil {
		t.Fatal(err)
	}
	if out.GetKind() != "Scale" {
		t.Errorf("the scale subresource answered a %s", out.GetKind())
	}
	pool, err := pools.Get(ctx, "gold", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// The scale subresource's new manager has no time yet, and comes first.
	want := []managedFieldsSummary{
		{"autoscaler", "Apply", "example.com/v1", "scale", `{"f:spec":{"f:replicas":{}}}`},
		{"team", "Apply", "example.com/v1", "", `{"f:spec":{"f:tier":{}}}`},
	}
	if got := summarize(t, pool.GetManagedFields()); !slices.Equal(got, want) {
		t.Errorf("managedFields %+v, want %+v", got, want)
	}
	if replicas, _, _ := unstructured.NestedInt64(pool.Object, "spec", "replicas"); replicas != 3 {
		t.Errorf("replicas %d", replicas)
	}
}
