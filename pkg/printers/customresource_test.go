package printers

import (
	"context"
	"reflect"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestCustomResourceColumns(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	obj := &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "example.com/v1", "kind": "Widget",
		"metadata": map[string]interface{}{"name": "w", "creationTimestamp": "2026-11-22T11:00:00Z", "resourceVersion": "7"},
		"spec": map[string]interface{}{
			"size": int64(3), "ratio": 1.5, "ready": true, "color": "blue",
			"tags": []interface{}{"a", "b"}, "since": "2026-11-22T11:58:00Z",
		},
	}}
	tests := []struct {
		name    string
		columns []apiextensionsv1.CustomResourceColumnDefinition
		headers []string
		cells   []interface{}
	}{{
		name:    "no columns shows the age",
		headers: []string{"Name", "Age"},
		cells:   []interface{}{"w", "60m"},
	}, {
		name: "each type as kube-apiserver renders it",
		columns: []apiextensionsv1.CustomResourceColumnDefinition{
			{Name: "Size", Type: "integer", JSONPath: ".spec.size"},
			{Name: "Ratio", Type: "number", JSONPath: ".spec.ratio"},
			{Name: "Ready", Type: "boolean", JSONPath: ".spec.ready"},
			{Name: "Color", Type: "string", JSONPath: ".spec.color"},
			{Name: "Tags", Type: "string", JSONPath: ".spec.tags"},
			{Name: "Since", Type: "date", JSONPath: ".spec.since"},
		},
		headers: []string{"Name", "Size", "Ratio", "Ready", "Color", "Tags", "Since"},
		cells:   []interface{}{"w", int64(3), 1.5, true, "blue", `["a","b"]`, "2m"},
	}, {
		name: "missing and mistyped values are empty cells",
		columns: []apiextensionsv1.CustomResourceColumnDefinition{
			{Name: "Missing", Type: "string", JSONPath: ".status.phase"},
			{Name: "NotANumber", Type: "integer", JSONPath: ".spec.color"},
		},
		headers: []string{"Name", "Missing", "NotANumber"},
		cells:   []interface{}{"w", nil, nil},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := NewCustomResourceColumns(tt.columns)
			if err != nil {
				t.Fatal(err)
			}
			c.now = func() time.Time { return now }
			table, err := c.ConvertToTable(context.Background(), obj, &metav1.TableOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var headers []string
			for _, h := range table.ColumnDefinitions {
				headers = append(headers, h.Name)
			}
			if !reflect.DeepEqual(headers, tt.headers) {
				t.Errorf("headers %v, want %v", headers, tt.headers)
			}
			if len(table.Rows) != 1 || !reflect.DeepEqual(table.Rows[0].Cells, tt.cells) {
				t.Errorf("cells %#v, want %#v", table.Rows[0].Cells, tt.cells)
			}
			if table.ResourceVersion != "7" {
				t.Errorf("resourceVersion %q", table.ResourceVersion)
			}
		})
	}
	if _, err := NewCustomResourceColumns([]apiextensionsv1.CustomResourceColumnDefinition{{Name: "Bad", Type: "string", JSONPath: ".spec[["}}); err == nil {
		t.Error("a JSON path that does not parse was accepted")
	}
}
