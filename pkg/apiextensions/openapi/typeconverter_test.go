package openapi

import (
	"encoding/json"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"

	"github.com/kapi-dev/kapi/pkg/endpoints/fieldmanager"
)

// TestCustomResourcesOfACRD: the type converter of a CRD knows its
// versions, their list-map keys, and the Scale of its scale subresource.
func TestCustomResourcesOfACRD(t *testing.T) {
	crd := widgetsCRD(t)
	tc := TypeConverter(crd, nil)
	for _, version := range []string{"v1"} {
		gvk := schema.GroupVersionKind{Group: "example.com", Version: version, Kind: "Widget"}
		fm, err := fieldmanager.New(fieldmanager.Config{TypeConverter: tc, Convertor: unstructuredConvertor{}, Defaulter: runtime.NewScheme(),
			Creater: unstructuredCreater{}, Kind: gvk, Hub: gvk.GroupVersion()})
		if err != nil {
			t.Fatal(err)
		}
		live := &unstructured.Unstructured{}
		live.SetGroupVersionKind(gvk)
		obj, err := apply(t, fm, live, `{"apiVersion":"example.com/`+version+`","kind":"Widget","metadata":{"name":"w"},"spec":{"name":"w1","size":3}}`, "me", false)
		if err != nil {
			t.Fatal(err)
		}
		if got := fieldsJSON(t, obj, "me"); got != `{"f:spec":{"f:name":{},"f:size":{}}}` {
			t.Errorf("fields %s", got)
		}
		_, err = apply(t, fm, obj, `{"apiVersion":"example.com/`+version+`","kind":"Widget","metadata":{"name":"w"},"spec":{"bogus":1}}`, "me", false)
		if err == nil || !strings.Contains(err.Error(), ".spec.bogus: field not declared in schema") {
			t.Errorf("an unknown field: %v", err)
		}
	}
	scale, err := tc.ObjectToTyped(&unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "autoscaling/v1", "kind": "Scale", "metadata": map[string]any{"name": "w"}, "spec": map[string]any{"replicas": int64(2)}}})
	if err != nil || scale == nil {
		t.Errorf("the Scale of the scale subresource: %v", err)
	}
}

// widgetsCRD is the CustomResourceDefinition kube-apiserver was sent for
// its defaulting, with a list-map and a scale subresource.
func widgetsCRD(t *testing.T) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	crd := &apiextensionsv1.CustomResourceDefinition{}
	readReference(t, "defaulting/customresourcedefinition.input.json", crd)
	return crd
}

// unstructuredConvertor and unstructuredCreater stand for the codecs of a
// CRD with one version.
type unstructuredConvertor struct{ runtime.ObjectConvertor }

func (unstructuredConvertor) ConvertToVersion(in runtime.Object, gv runtime.GroupVersioner) (runtime.Object, error) {
	u := in.(*unstructured.Unstructured).DeepCopy()
	if target, ok := gv.KindForGroupVersionKinds([]schema.GroupVersionKind{u.GroupVersionKind()}); ok {
		u.SetGroupVersionKind(target)
	}
	return u, nil
}

type unstructuredCreater struct{}

func (unstructuredCreater) New(gvk schema.GroupVersionKind) (runtime.Object, error) {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	return u, nil
}

// fieldsJSON is the fieldsV1 of manager's entry.
func fieldsJSON(t *testing.T, obj runtime.Object, manager string) string {
	t.Helper()
	m, err := meta.Accessor(obj)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range m.GetManagedFields() {
		if e.Manager == manager {
			return string(e.FieldsV1.Raw)
		}
	}
	t.Fatalf("no entry of %s in %v", manager, m.GetManagedFields())
	return ""
}

// apply applies a JSON object as manager.
func apply(t *testing.T, fm *managedfields.FieldManager, live runtime.Object, patch, manager string, force bool) (runtime.Object, error) {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := json.Unmarshal([]byte(patch), &u.Object); err != nil {
		t.Fatal(err)
	}
	return fm.Apply(live, u, manager, force)
}
