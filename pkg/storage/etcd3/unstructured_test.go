package etcd3_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/pkg/storage"
	"github.com/kapi-dev/kapi/pkg/storage/etcd3"
)

// Custom resources are stored as JSON and handled as unstructured objects.
func TestCustomResourcesAsJSON(t *testing.T) {
	prefix := fmt.Sprintf("/test%d/registry", prefixes.Add(1))
	s := etcd3.New(shared.Client(), unstructured.UnstructuredJSONScheme,
		func() runtime.Object { return &unstructured.Unstructured{} },
		func() runtime.Object { return &unstructured.UnstructuredList{} },
		prefix, schema.GroupResource{Group: "example.com", Resource: "widgets"})
	ctx := context.Background()

	w := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"name": "w1", "namespace": "ns"},
		"spec":     map[string]any{"size": int64(3)},
	}}
	out := &unstructured.Unstructured{}
	if err := s.Create(ctx, "/example.com/widgets/ns/w1", w, out); err != nil {
		t.Fatal(err)
	}
	if out.GetResourceVersion() == "" || out.GetName() != "w1" {
		t.Errorf("created %v", out.Object)
	}

	resp, err := shared.Client().Get(ctx, prefix+"/example.com/widgets/ns/w1")
	if err != nil || len(resp.Kvs) != 1 {
		t.Fatalf("raw read: %v, %v", resp, err)
	}
	var stored map[string]any
	if err := json.Unmarshal(resp.Kvs[0].Value, &stored); err != nil {
		t.Fatalf("stored value is not JSON: %v", err)
	}
	if stored["kind"] != "Widget" {
		t.Errorf("stored %v", stored)
	}

	list := &unstructured.UnstructuredList{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "WidgetList"}}
	if err := s.GetList(ctx, "/example.com/widgets", storage.ListOptions{Recursive: true, Predicate: storage.Everything}, list); err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 1 || list.Items[0].GetAPIVersion() != "example.com/v1" || list.Items[0].GetResourceVersion() != out.GetResourceVersion() {
		t.Errorf("list = %+v", list.Items)
	}

	updated := &unstructured.Unstructured{}
	err = s.GuaranteedUpdate(ctx, "/example.com/widgets/ns/w1", updated, false, nil,
		func(cur runtime.Object, _ storage.ResponseMeta) (runtime.Object, error) {
			u := cur.(*unstructured.Unstructured)
			return u, unstructured.SetNestedField(u.Object, int64(4), "spec", "size")
		})
	if err != nil {
		t.Fatal(err)
	}
	if size, _, _ := unstructured.NestedInt64(updated.Object, "spec", "size"); size != 4 {
		t.Errorf("updated %v", updated.Object)
	}
}
