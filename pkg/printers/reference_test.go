package printers

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/kapi-dev/kapi/internal/required"
)

// TestReferenceTables renders the objects kube-apiserver rendered in
// tables/*.json (rebuilt from the objects it returned elsewhere, and at
// the second it rendered them), lets includeObject act on the rows as the
// HTTP handler does, and expects the very same Table.
func TestReferenceTables(t *testing.T) {
	tests := []struct {
		file          string
		renderedAt    string
		includeObject metav1.IncludeObjectPolicy
		obj           func(t *testing.T) runtime.Object
		// noManagedFields: the objects come from kubectl create -o json,
		// which leaves managedFields out.
		noManagedFields bool
	}{{
		file:       "pods.json",
		renderedAt: "2026-11-22T03:42:03Z",
		obj: func(t *testing.T) runtime.Object {
			return &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "253"}, Items: referencePods(t)}
		},
	}, {
		file:       "pods-all-namespaces.json",
		renderedAt: "2026-11-22T03:42:03Z",
		obj: func(t *testing.T) runtime.Object {
			return &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "254"}, Items: referencePods(t)}
		},
	}, {
		file:          "pods-includeObject-Object.json",
		renderedAt:    "2026-11-22T03:42:03Z",
		includeObject: metav1.IncludeObject,
		obj: func(t *testing.T) runtime.Object {
			return &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "254"}, Items: referencePods(t)}
		},
	}, {
		file:       "pod-single.json",
		renderedAt: "2026-11-22T03:42:03Z",
		obj: func(t *testing.T) runtime.Object {
			return &referencePods(t)[0]
		},
	}, {
		file:            "deployments.json",
		noManagedFields: true,
		renderedAt:      "2026-11-22T03:42:03Z",
		obj: func(t *testing.T) runtime.Object {
			return &appsv1.DeploymentList{
				ListMeta: metav1.ListMeta{ResourceVersion: "253"},
				Items:    []appsv1.Deployment{readJSON[appsv1.Deployment](t, "defaulting/deployment.output.json")},
			}
		},
	}, {
		file:            "services.json",
		noManagedFields: true,
		renderedAt:      "2026-11-22T03:42:03Z",
		obj: func(t *testing.T) runtime.Object {
			return &corev1.ServiceList{
				ListMeta: metav1.ListMeta{ResourceVersion: "253"},
				Items: []corev1.Service{
					readJSON[corev1.Service](t, "defaulting/service-nodeport.output.json"),
					readJSON[corev1.Service](t, "defaulting/service-clusterip.output.json"),
				},
			}
		},
	}, {
		file:            "nodes.json",
		noManagedFields: true,
		renderedAt:      "2026-11-22T03:42:03Z",
		obj: func(t *testing.T) runtime.Object {
			return &corev1.NodeList{
				ListMeta: metav1.ListMeta{ResourceVersion: "254"},
				Items:    []corev1.Node{readJSON[corev1.Node](t, "defaulting/node.output.json")},
			}
		},
	}, {
		file:            "configmaps.json",
		noManagedFields: true,
		renderedAt:      "2026-11-22T03:42:04Z",
		obj: func(t *testing.T) runtime.Object {
			return &corev1.ConfigMapList{
				ListMeta: metav1.ListMeta{ResourceVersion: "254"},
				Items:    []corev1.ConfigMap{readJSON[corev1.ConfigMap](t, "defaulting/configmap.output.json")},
			}
		},
	}, {
		file:            "namespaces.json",
		noManagedFields: true,
		renderedAt:      "2026-11-22T03:42:04Z",
		obj: func(t *testing.T) runtime.Object {
			// The namespaces of a fresh server, and the one the
			// defaulting corpus created, in name order.
			var list corev1.NamespaceList
			if err := yaml.Unmarshal(readFile(t, "bootstrap/namespaces.yaml"), &list); err != nil {
				t.Fatal(err)
			}
			list.Items = append(list.Items, readJSON[corev1.Namespace](t, "defaulting/namespace.output.json"))
			slices.SortFunc(list.Items, func(a, b corev1.Namespace) int { return strings.Compare(a.Name, b.Name) })
			list.ResourceVersion = "256"
			return &list
		},
	}}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			want := readFile(t, filepath.Join("tables", tt.file))
			c := New(WithClock(fixedClock(t, tt.renderedAt)))

			table, err := c.ConvertToTable(context.Background(), tt.obj(t), &metav1.TableOptions{})
			if err != nil {
				t.Fatal(err)
			}

			got := encodeAsServed(t, table, tt.includeObject)
			if tt.noManagedFields {
				want = withoutManagedFields(t, want)
			}
			compareJSON(t, want, got)
		})
	}
}

// TestReferenceEmptyList: kube-apiserver lists no rows as an empty array,
// not null, under the full column definitions.
func TestReferenceEmptyList(t *testing.T) {
	raw := readFile(t, "tables/pods-empty-namespace.raw.txt")
	_, body, ok := bytes.Cut(raw, []byte("\r\n\r\n"))
	if !ok {
		t.Fatal("no body after the headers")
	}

	table, err := New().ConvertToTable(context.Background(), &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "256"}}, nil)
	if err != nil {
		t.Fatal(err)
	}

	compareJSON(t, body, encodeAsServed(t, table, metav1.IncludeMetadata))
}

// encodeAsServed does what the HTTP handler and the encoder do to a Table
// before it is written: apply includeObject to the rows (Metadata when
// unset) and set the Table's kind and apiVersion.
func encodeAsServed(t *testing.T, table *metav1.Table, includeObject metav1.IncludeObjectPolicy) []byte {
	t.Helper()
	for i := range table.Rows {
		obj := &table.Rows[i].Object
		switch includeObject {
		case metav1.IncludeNone:
			obj.Object = nil
		case metav1.IncludeObject:
			// The reference objects are all v1 Pods.
			obj.Object.GetObjectKind().SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Pod"))
		default:
			m, err := meta.Accessor(obj.Object)
			if err != nil {
				t.Fatal(err)
			}
			partial := meta.AsPartialObjectMetadata(m)
			partial.GetObjectKind().SetGroupVersionKind(metav1.SchemeGroupVersion.WithKind("PartialObjectMetadata"))
			obj.Object = partial
		}
	}
	table.GetObjectKind().SetGroupVersionKind(metav1.SchemeGroupVersion.WithKind("Table"))
	b, err := json.Marshal(table)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// compareJSON compares two JSON documents by meaning, not by layout.
func compareJSON(t *testing.T, want, got []byte) {
	t.Helper()
	var w, g any
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatalf("reference: %v", err)
	}
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("got: %v", err)
	}
	if diff := cmp.Diff(w, g); diff != "" {
		t.Errorf("Table differs from kube-apiserver's (-want +got):\n%s", diff)
	}
}

// withoutManagedFields removes managedFields from the metadata of the
// objects of a Table.
func withoutManagedFields(t *testing.T, table []byte) []byte {
	t.Helper()
	var whole map[string]any
	if err := json.Unmarshal(table, &whole); err != nil {
		t.Fatal(err)
	}
	rows, _ := whole["rows"].([]any)
	for _, r := range rows {
		object, _ := r.(map[string]any)["object"].(map[string]any)
		metadata, _ := object["metadata"].(map[string]any)
		delete(metadata, "managedFields")
	}
	b, err := json.Marshal(whole)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// referencePods are the two pods of the reference tables, as
// includeObject=Object recorded them.
func referencePods(t *testing.T) []corev1.Pod {
	t.Helper()
	var table struct {
		Rows []struct {
			Object corev1.Pod `json:"object"`
		} `json:"rows"`
	}
	if err := json.Unmarshal(readFile(t, "tables/pods-includeObject-Object.json"), &table); err != nil {
		t.Fatal(err)
	}
	var pods []corev1.Pod
	for _, r := range table.Rows {
		r.Object.TypeMeta = metav1.TypeMeta{} // as decoded into a typed object by the server
		pods = append(pods, r.Object)
	}
	return pods
}

func readJSON[T any](t *testing.T, name string) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(readFile(t, name), &v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return v
}

// readFile reads a file of the reference, or skips the test when the
// reference is not there.
func readFile(t *testing.T, name string) []byte {
	t.Helper()
	return required.ReadReference(t, name)
}

// fixedClock is a clock stopped at an RFC 3339 time.
func fixedClock(t *testing.T, at string) func() time.Time {
	t.Helper()
	now, err := time.Parse(time.RFC3339, at)
	if err != nil {
		t.Fatal(err)
	}
	return func() time.Time { return now }
}
