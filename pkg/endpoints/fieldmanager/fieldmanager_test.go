package fieldmanager

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/kapi-dev/kapi/internal/required"
	"github.com/kapi-dev/kapi/pkg/api/scheme"
)

func TestManagerName(t *testing.T) {
	long := strings.Repeat("m", 200)
	tests := []struct {
		name, fieldManager, userAgent, want string
	}{
		{"the fieldManager the client gives", "helm", "kubectl/v1.37.1 (linux/amd64) kubernetes/abcdef", "helm"},
		{"else kubectl's product", "", "kubectl/v1.37.1 (linux/amd64) kubernetes/abcdef", "kubectl"},
		{"curl's", "", "curl/8.5.0", "curl"},
		{"a test binary's", "", "e2e.test/v0.0.0 (linux/amd64) kubernetes/$Format", "e2e.test"},
		{"a User-Agent without version", "", "my-controller", "my-controller"},
		{"no User-Agent", "", "", ""},
		{"without what cannot be printed", "", "bad\x00\tname/1.0", "badname"},
		{"cut to 128 bytes", "", long + "/1.0", long[:128]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ManagerName(tt.fieldManager, tt.userAgent); got != tt.want {
				t.Errorf("ManagerName(%q, %q) = %q, want %q", tt.fieldManager, tt.userAgent, got, tt.want)
			}
		})
	}
}

// newBuiltinManager is the field manager of a built-in endpoint, as the
// installer makes it.
func newBuiltinManager(t testing.TB, gvk schema.GroupVersionKind, subresource string, reset map[fieldpath.APIVersion]*fieldpath.Set) *managedfields.FieldManager {
	t.Helper()
	fm, err := New(Config{
		TypeConverter: SchemeTypeConverter(scheme.Scheme, nil),
		Convertor:     scheme.Scheme,
		Defaulter:     scheme.Scheme,
		Creater:       scheme.Scheme,
		Typer:         scheme.Scheme,
		Kind:          gvk,
		Hub:           gvk.GroupVersion(),
		Subresource:   subresource,
		ResetFields:   reset,
	})
	if err != nil {
		t.Fatal(err)
	}
	return fm
}

func readReference(t *testing.T, name string, into any) {
	t.Helper()
	data := required.ReadReference(t, name)
	if err := json.Unmarshal(data, into); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// TestCreatesRecordWhatKubeAPIServerRecords creates the objects that
// kube-apiserver 1.37.1 created with kubectl create, defaulted as decoding
// defaults them, and compares the managedFields entry with the one it
// recorded: the same fields, keyed the same way (containers by name,
// service ports by port and protocol), and no status, which the main
// resource resets.
func TestCreatesRecordWhatKubeAPIServerRecords(t *testing.T) {
	status := func(apiVersion string) map[fieldpath.APIVersion]*fieldpath.Set {
		return map[fieldpath.APIVersion]*fieldpath.Set{fieldpath.APIVersion(apiVersion): fieldpath.NewSet(fieldpath.MakePathOrDie("status"))}
	}
	tests := []struct {
		input      string // under defaulting/
		table, row string // the row of tables/ whose object is the created one
		gvk        schema.GroupVersionKind
		reset      map[fieldpath.APIVersion]*fieldpath.Set
	}{
		{"configmap.input.json", "configmaps.json", "cm1", corev1.SchemeGroupVersion.WithKind("ConfigMap"), nil},
		{"deployment.input.json", "deployments.json", "deploy1", appsv1.SchemeGroupVersion.WithKind("Deployment"), status("apps/v1")},
		{"service-clusterip.input.json", "services.json", "svc1", corev1.SchemeGroupVersion.WithKind("Service"), status("v1")},
		{"service-nodeport.input.json", "services.json", "svc-np", corev1.SchemeGroupVersion.WithKind("Service"), status("v1")},
		{"pod.input.json", "pods.json", "pod1", corev1.SchemeGroupVersion.WithKind("Pod"), status("v1")},
		{"namespace.input.json", "namespaces.json", "defaulting", corev1.SchemeGroupVersion.WithKind("Namespace"), status("v1")},
	}
	for _, tt := range tests {
		t.Run(tt.input, func(t *testing.T) {
			var table metav1.Table
			readReference(t, filepath.Join("tables", tt.table), &table)
			var want []metav1.ManagedFieldsEntry
			for _, row := range table.Rows {
				var obj metav1.PartialObjectMetadata
				if err := json.Unmarshal(row.Object.Raw, &obj); err != nil {
					t.Fatal(err)
				}
				if obj.Name == tt.row {
					want = obj.ManagedFields
				}
			}
			if len(want) != 1 {
				t.Fatalf("row %s of %s has managedFields %v", tt.row, tt.table, want)
			}

			data := required.ReadReference(t, "defaulting", tt.input)
			obj, _, err := scheme.Codecs.UniversalDecoder(tt.gvk.GroupVersion()).Decode(data, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			live, _ := scheme.Scheme.New(tt.gvk)
			fm := newBuiltinManager(t, tt.gvk, "", tt.reset)
			out, err := fm.Update(live, obj, "kubectl-create")
			if err != nil {
				t.Fatal(err)
			}
			got := managedFieldsOf(t, out)
			if diff := cmp.Diff(withoutTimes(want), withoutTimes(got)); diff != "" {
				t.Errorf("managedFields (-kube-apiserver +kapi):\n%s", diff)
			}
		})
	}
}

func managedFieldsOf(t *testing.T, obj runtime.Object) []metav1.ManagedFieldsEntry {
	t.Helper()
	m, err := meta.Accessor(obj)
	if err != nil {
		t.Fatal(err)
	}
	return m.GetManagedFields()
}

// withoutTimes drops the times, and compares fieldsV1 as JSON values.
func withoutTimes(entries []metav1.ManagedFieldsEntry) []map[string]any {
	var out []map[string]any
	for _, e := range entries {
		var fields any
		if e.FieldsV1 != nil {
			_ = json.Unmarshal(e.FieldsV1.Raw, &fields)
		}
		out = append(out, map[string]any{
			"manager": e.Manager, "operation": e.Operation, "apiVersion": e.APIVersion,
			"fieldsType": e.FieldsType, "subresource": e.Subresource, "fieldsV1": fields, "hasTime": e.Time != nil,
		})
	}
	return out
}

// fieldsJSON is the fieldsV1 of manager's entry.
func fieldsJSON(t *testing.T, obj runtime.Object, manager string) string {
	t.Helper()
	for _, e := range managedFieldsOf(t, obj) {
		if e.Manager == manager {
			return string(e.FieldsV1.Raw)
		}
	}
	t.Fatalf("no entry of %s in %v", manager, managedFieldsOf(t, obj))
	return ""
}

// apply applies a YAML-ish JSON object as manager.
func apply(t *testing.T, fm *managedfields.FieldManager, live runtime.Object, patch, manager string, force bool) (runtime.Object, error) {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := json.Unmarshal([]byte(patch), &u.Object); err != nil {
		t.Fatal(err)
	}
	return fm.Apply(live, u, manager, force)
}

// TestListsMergeByTheirKeys: two managers applying different containers,
// ports and env vars of one deployment own their own elements, as the
// list-map markers of k8s.io/api say.
func TestListsMergeByTheirKeys(t *testing.T) {
	gvk := appsv1.SchemeGroupVersion.WithKind("Deployment")
	fm := newBuiltinManager(t, gvk, "", nil)
	const a = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"selector":{"matchLabels":{"app":"d"}},
		"template":{"metadata":{"labels":{"app":"d"}},"spec":{"containers":[{"name":"web","image":"nginx",
		"ports":[{"containerPort":80,"protocol":"TCP"}],"env":[{"name":"A","value":"1"}]}]}}}}`
	const b = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"template":{"spec":{"containers":[
		{"name":"web","ports":[{"containerPort":443,"protocol":"TCP"}],"env":[{"name":"B","value":"2"}]},
		{"name":"sidecar","image":"envoy"}]}}}}`
	obj, err := apply(t, fm, &appsv1.Deployment{}, a, "a", false)
	if err != nil {
		t.Fatal(err)
	}
	obj, err = apply(t, fm, obj, b, "b", false)
	if err != nil {
		t.Fatal(err)
	}
	d := obj.(*appsv1.Deployment)
	var names []string
	for _, c := range d.Spec.Template.Spec.Containers {
		names = append(names, c.Name)
	}
	if got := strings.Join(names, ","); got != "web,sidecar" {
		t.Errorf("containers %s, want web,sidecar", got)
	}
	web := d.Spec.Template.Spec.Containers[0]
	if len(web.Ports) != 2 || len(web.Env) != 2 || web.Image != "nginx" {
		t.Errorf("web container %+v: want both managers' ports and env, and a's image", web)
	}
	// Defaults apply to what apply builds, as to what clients send.
	if web.ImagePullPolicy == "" || d.Spec.Strategy.Type == "" {
		t.Errorf("the applied deployment was not defaulted: %+v", d.Spec)
	}
	for manager, want := range map[string][]string{
		"a": {`"k:{\"name\":\"web\"}"`, `"k:{\"containerPort\":80,\"protocol\":\"TCP\"}"`, `"k:{\"name\":\"A\"}"`},
		"b": {`"k:{\"name\":\"sidecar\"}"`, `"k:{\"containerPort\":443,\"protocol\":\"TCP\"}"`, `"k:{\"name\":\"B\"}"`},
	} {
		fields := fieldsJSON(t, obj, manager)
		for _, w := range want {
			if !strings.Contains(fields, w) {
				t.Errorf("%s's fields %s lack %s", manager, fields, w)
			}
		}
	}

	t.Run("a conflicting value is a 409 naming the owner", func(t *testing.T) {
		_, err := apply(t, fm, obj, `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},
			"spec":{"template":{"spec":{"containers":[{"name":"web","image":"httpd"}]}}}}`, "b", false)
		if !apierrors.IsConflict(err) {
			t.Fatalf("want a conflict, got %v", err)
		}
		want := `Apply failed with 1 conflict: conflict with "a": .spec.template.spec.containers[name="web"].image`
		if err.Error() != want {
			t.Errorf("error %q, want %q", err, want)
		}
		causes := err.(apierrors.APIStatus).Status().Details.Causes
		if len(causes) != 1 || causes[0].Type != metav1.CauseTypeFieldManagerConflict || causes[0].Field != `.spec.template.spec.containers[name="web"].image` {
			t.Errorf("causes %+v", causes)
		}
	})

	t.Run("force takes the field over", func(t *testing.T) {
		out, err := apply(t, fm, obj, `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},
			"spec":{"template":{"spec":{"containers":[{"name":"web","image":"httpd"}]}}}}`, "b", true)
		if err != nil {
			t.Fatal(err)
		}
		if img := out.(*appsv1.Deployment).Spec.Template.Spec.Containers[0].Image; img != "httpd" {
			t.Errorf("image %s", img)
		}
		if strings.Contains(fieldsJSON(t, out, "a"), `"f:image"`) {
			t.Errorf("a still owns the image: %s", fieldsJSON(t, out, "a"))
		}
	})

	t.Run("what a manager no longer applies is removed", func(t *testing.T) {
		out, err := apply(t, fm, obj, `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},
			"spec":{"template":{"spec":{"containers":[{"name":"web","ports":[{"containerPort":443,"protocol":"TCP"}],"env":[{"name":"B","value":"2"}]}]}}}}`, "b", false)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(out.(*appsv1.Deployment).Spec.Template.Spec.Containers); n != 1 {
			t.Errorf("%d containers, want the sidecar gone", n)
		}
	})
}

// TestResetFieldsAreNotOwned: writes through the main resource do not own
// the status, writes through /status own nothing but the status, and
// neither conflicts on what it cannot change.
func TestResetFieldsAreNotOwned(t *testing.T) {
	gvk := appsv1.SchemeGroupVersion.WithKind("Deployment")
	status := map[fieldpath.APIVersion]*fieldpath.Set{"apps/v1": fieldpath.NewSet(fieldpath.MakePathOrDie("status"))}
	spec := map[fieldpath.APIVersion]*fieldpath.Set{"apps/v1": fieldpath.NewSet(fieldpath.MakePathOrDie("spec"), fieldpath.MakePathOrDie("metadata", "labels"))}
	main := newBuiltinManager(t, gvk, "", status)
	statusManager := newBuiltinManager(t, gvk, "status", spec)

	obj, err := apply(t, main, &appsv1.Deployment{}, `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},
		"spec":{"replicas":2},"status":{"replicas":7}}`, "user", false)
	if err != nil {
		t.Fatal(err)
	}
	if fields := fieldsJSON(t, obj, "user"); strings.Contains(fields, "f:status") || !strings.Contains(fields, "f:replicas") {
		t.Errorf("user's fields %s: want spec.replicas and no status", fields)
	}
	obj, err = apply(t, statusManager, obj, `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","labels":{"a":"b"}},
		"spec":{"replicas":3},"status":{"replicas":2}}`, "controller", false)
	if err != nil {
		t.Fatalf("a status apply conflicted on the spec it cannot change: %v", err)
	}
	var entry metav1.ManagedFieldsEntry
	for _, e := range managedFieldsOf(t, obj) {
		if e.Manager == "controller" {
			entry = e
		}
	}
	if entry.Subresource != "status" || entry.Operation != metav1.ManagedFieldsOperationApply {
		t.Errorf("controller's entry %+v: want an Apply of the status subresource", entry)
	}
	if fields := string(entry.FieldsV1.Raw); fields != `{"f:status":{"f:replicas":{}}}` {
		t.Errorf("controller's fields %s: want status.replicas only", fields)
	}
}

// An Event written through events.k8s.io/v1 is stored as a core/v1 Event;
// its writer is recorded in the version it wrote, as kube-apiserver
// records it.
func TestManagedFieldsOfAKindStoredInAnotherGroup(t *testing.T) {
	gvk := schema.GroupVersionKind{Group: "events.k8s.io", Version: "v1", Kind: "Event"}
	fm, err := New(Config{
		TypeConverter: SchemeTypeConverter(scheme.Scheme, nil),
		Convertor:     scheme.Scheme, Defaulter: scheme.Scheme, Creater: scheme.Scheme, Typer: scheme.Scheme,
		Kind: gvk, Hub: corev1.SchemeGroupVersion,
	})
	if err != nil {
		t.Fatal(err)
	}
	event := &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: "e", Namespace: "default"},
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: "p"},
		Reason:         "Started", Action: "Start", ReportingController: "kubelet", ReportingInstance: "node-1",
	}
	out, err := fm.Update(&corev1.Event{}, event, "kubelet")
	if err != nil {
		t.Fatal(err)
	}
	entries := out.(*corev1.Event).ManagedFields
	if len(entries) != 1 || entries[0].APIVersion != "events.k8s.io/v1" || entries[0].Manager != "kubelet" {
		t.Fatalf("managedFields %+v, want one entry of kubelet in events.k8s.io/v1", entries)
	}
	if fields := string(entries[0].FieldsV1.Raw); !strings.Contains(fields, `"f:regarding"`) || !strings.Contains(fields, `"f:reason"`) {
		t.Errorf("fields %s, want those of events.k8s.io/v1 (regarding, reason)", fields)
	}
}
