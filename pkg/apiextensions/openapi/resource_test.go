package openapi

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/kapi-dev/kapi/internal/required"
	kapiopenapi "github.com/kapi-dev/kapi/pkg/openapi"
)

func readReference(t *testing.T, name string, into any) {
	t.Helper()
	data := required.ReadReference(t, name)
	if err := json.Unmarshal(data, into); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

func TestResource(t *testing.T) {
	crd := crdWithSchema(t, "type: object")
	crd.Spec.Names.ListKind = ""
	crd.Spec.Scope = apiextensionsv1.ClusterScoped
	crd.Spec.Versions[0].Subresources = &apiextensionsv1.CustomResourceSubresources{
		Status: &apiextensionsv1.CustomResourceSubresourceStatus{},
		Scale:  &apiextensionsv1.CustomResourceSubresourceScale{SpecReplicasPath: ".spec.replicas", StatusReplicasPath: ".status.replicas"},
	}
	r, err := Resource(crd, "v1")
	if err != nil {
		t.Fatal(err)
	}
	gv := schema.GroupVersion{Group: "stable.example.com", Version: "v1"}
	if r.Schema == nil || r.Schema.V2 == nil || r.Schema.V3 == nil {
		t.Fatalf("no definitions: %+v", r.Schema)
	}
	r.Schema = nil
	want := kapiopenapi.Resource{
		GVK: gv.WithKind("CronTab"), ListGVK: gv.WithKind("CronTabList"), Resource: "crontabs",
		Verbs: []string{"delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"},
		Subresources: []kapiopenapi.Subresource{
			{Name: "status", GVK: gv.WithKind("CronTab"), Verbs: []string{"get", "patch", "update"}},
			{Name: "scale", GVK: schema.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"}, Verbs: []string{"get", "patch", "update"}},
		},
	}
	if diff := cmp.Diff(want, r); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if _, err := Resource(crd, "v2"); err == nil {
		t.Error("a version the CRD does not have is described")
	}
}

// The CRD of the reference recordings, widgets.example.com, is published
// with the verbs its discovery lists, and the defaults of its schema in
// v3 only.
func TestReferenceCRDIsPublished(t *testing.T) {
	var crd apiextensionsv1.CustomResourceDefinition
	readReference(t, "defaulting/customresourcedefinition.input.json", &crd)
	var discovery metav1.APIResourceList
	readReference(t, "discovery/crd-example.com_v1.json", &discovery)

	r, err := Resource(&crd, "v1")
	if err != nil {
		t.Fatal(err)
	}
	verbs := map[string][]string{}
	for _, ar := range discovery.APIResources {
		verbs[ar.Name] = ar.Verbs
	}
	if diff := cmp.Diff(verbs["widgets"], []string(r.Verbs)); diff != "" {
		t.Errorf("verbs of widgets (-discovery +published):\n%s", diff)
	}
	if len(r.Subresources) != 1 || r.Subresources[0].Name != "status" || !cmp.Equal(verbs["widgets/status"], r.Subresources[0].Verbs) {
		t.Errorf("subresources %+v, discovery has widgets/status %v", r.Subresources, verbs["widgets/status"])
	}

	s := kapiopenapi.NewService(kapiopenapi.Config{Info: kapiopenapi.Info{Title: "Kubernetes", Version: "1.37"}, Scheme: scheme.Scheme})
	if err := s.Update(append(append([]kapiopenapi.Resource(nil), builtins...), r)); err != nil {
		t.Fatal(err)
	}
	fetch := func(path string) map[string]any {
		w := httptest.NewRecorder()
		s.ServeHTTP(w, httptest.NewRequest("GET", path, nil))
		if w.Code != http.StatusOK {
			t.Fatalf("GET %s: %d", path, w.Code)
		}
		var doc map[string]any
		if err := json.Unmarshal(w.Body.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		return doc
	}
	v3 := fetch("/openapi/v3/apis/example.com/v1")
	v2 := fetch("/openapi/v2")

	wantPaths := []string{
		"/apis/example.com/v1/namespaces/{namespace}/widgets",
		"/apis/example.com/v1/namespaces/{namespace}/widgets/{name}",
		"/apis/example.com/v1/namespaces/{namespace}/widgets/{name}/status",
		"/apis/example.com/v1/widgets",
	}
	if got := sortedKeys(v3["paths"].(map[string]any)); !cmp.Equal(got, wantPaths) {
		t.Errorf("v3 paths %v, want %v", got, wantPaths)
	}
	for _, path := range wantPaths {
		if v2["paths"].(map[string]any)[path] == nil {
			t.Errorf("v2 has no %s", path)
		}
	}

	size := func(doc map[string]any, definitions ...string) any {
		var defs any = doc
		for _, key := range definitions {
			defs = defs.(map[string]any)[key]
		}
		return defs.(map[string]any)["com.example.v1.Widget"].(map[string]any)["properties"].(map[string]any)["spec"].(map[string]any)["properties"].(map[string]any)["size"]
	}
	if diff := cmp.Diff(map[string]any{"type": "integer", "default": 3.0}, size(v3, "components", "schemas")); diff != "" {
		t.Errorf("v3 spec.size (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]any{"type": "integer"}, size(v2, "definitions")); diff != "" {
		t.Errorf("v2 spec.size (-want +got):\n%s", diff)
	}
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
