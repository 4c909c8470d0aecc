package handlers

import (
	"bytes"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/pkg/api/scheme"
)

// lists are the lists a streamed response must encode exactly as the
// serializers do: empty, one item, many items, large items, and list
// metadata with a continue token and a remaining count.
func lists() map[string]runtime.Object {
	many := &corev1.ConfigMapList{ListMeta: metav1.ListMeta{ResourceVersion: "42", Continue: "abc", RemainingItemCount: ptr.To[int64](7)}}
	for i := 0; i < 300; i++ {
		many.Items = append(many.Items, corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%03d", i), Namespace: "default", ResourceVersion: fmt.Sprint(i + 1), Labels: map[string]string{"i": fmt.Sprint(i)}},
			Data:       map[string]string{"k": string(bytes.Repeat([]byte{'x'}, i*37))},
		})
	}
	pods := &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "9"}, Items: []corev1.Pod{{
		ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns", Annotations: map[string]string{"a": "b"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx",
			Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m")}}}}},
		Status: corev1.PodStatus{Phase: corev1.PodPending},
	}}}
	big := &corev1.SecretList{Items: []corev1.Secret{{ObjectMeta: metav1.ObjectMeta{Name: "big"}, Data: map[string][]byte{"k": bytes.Repeat([]byte{1}, 1<<20)}}}}
	return map[string]runtime.Object{
		"empty":     &corev1.ConfigMapList{ListMeta: metav1.ListMeta{ResourceVersion: "1"}, Items: []corev1.ConfigMap{}},
		"many":      many,
		"pods":      pods,
		"1MiB item": big,
	}
}

func TestStreamedListsAreByteIdentical(t *testing.T) {
	for _, mediaType := range []string{runtime.ContentTypeJSON, runtime.ContentTypeProtobuf} {
		info, ok := runtime.SerializerInfoForMediaType(scheme.Codecs.SupportedMediaTypes(), mediaType)
		if !ok {
			t.Fatalf("no serializer for %s", mediaType)
		}
		stream := streamingWriterFor(mediaType, false)
		for name, list := range lists() {
			t.Run(mediaType+"/"+name, func(t *testing.T) {
				gvks, _, err := scheme.Scheme.ObjectKinds(list)
				if err != nil {
					t.Fatal(err)
				}
				want, err := runtime.Encode(scheme.Codecs.EncoderForVersion(info.Serializer, corev1.SchemeGroupVersion), list.DeepCopyObject())
				if err != nil {
					t.Fatal(err)
				}
				var got bytes.Buffer
				handled, err := stream(&got, list, gvks[0])
				if err != nil || !handled {
					t.Fatalf("handled=%v err=%v", handled, err)
				}
				if !bytes.Equal(got.Bytes(), want) {
					t.Errorf("streamed %d bytes differ from the serializer's %d", got.Len(), len(want))
				}
			})
		}
	}
}

func TestPrettyOutputIsNotStreamed(t *testing.T) {
	if streamingWriterFor(runtime.ContentTypeJSON, true) != nil {
		t.Error("pretty JSON should go through the serializer")
	}
	if streamingWriterFor("application/yaml", false) != nil {
		t.Error("YAML has no streaming writer")
	}
}

// unstructuredLists are lists of custom resources a streamed response must
// encode exactly as their JSON serializer does.
func unstructuredLists() map[string]*unstructured.UnstructuredList {
	item := func(name string, spec map[string]any) unstructured.Unstructured {
		return unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "example.com/v1", "kind": "Widget",
			"metadata": map[string]any{"name": name, "namespace": "default", "resourceVersion": "3", "labels": map[string]any{"z": "1", "a": "2"}},
			"spec":     spec,
		}}
	}
	head := func(meta map[string]any) map[string]any {
		return map[string]any{"apiVersion": "example.com/v1", "kind": "WidgetList", "metadata": meta}
	}
	many := &unstructured.UnstructuredList{Object: head(map[string]any{"resourceVersion": "42", "continue": "abc", "remainingItemCount": int64(7)})}
	for i := 0; i < 300; i++ {
		many.Items = append(many.Items, item(fmt.Sprintf("w-%03d", i), map[string]any{
			"size": int64(i), "ratio": float64(i) / 7, "on": i%2 == 0, "none": nil,
			"text":  string(bytes.Repeat([]byte{'x'}, i*13)),
			"list":  []any{"a", int64(1), map[string]any{"b": []any{}}},
			"empty": map[string]any{},
		}))
	}
	return map[string]*unstructured.UnstructuredList{
		"empty":           {Object: head(map[string]any{"resourceVersion": "1"})},
		"many":            many,
		"escaped strings": {Object: head(map[string]any{"resourceVersion": "2"}), Items: []unstructured.Unstructured{item("w", map[string]any{"html": "<a href=\"x\">&</a>", "unicode": "é\u2028\u00a0", "ctl": "\x01\t"})}},
		// A field of the list other than its metadata sorts among them.
		"extra list field": {Object: map[string]any{"apiVersion": "example.com/v1", "kind": "WidgetList", "metadata": map[string]any{}, "aaa": "first", "zzz": []any{int64(1)}},
			Items: []unstructured.Unstructured{item("w", map[string]any{})}},
	}
}

func TestStreamedUnstructuredListsAreByteIdentical(t *testing.T) {
	serializer := json.NewSerializerWithOptions(json.DefaultMetaFactory, scheme.Scheme, scheme.Scheme, json.SerializerOptions{})
	stream := streamingWriterFor(runtime.ContentTypeJSON, false)
	for name, list := range unstructuredLists() {
		t.Run(name, func(t *testing.T) {
			want, err := runtime.Encode(serializer, list.DeepCopy())
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			handled, err := stream(&got, list, list.GroupVersionKind())
			if err != nil || !handled {
				t.Fatalf("handled=%v err=%v", handled, err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Errorf("streamed bytes differ from the serializer's:\n got %.300s\nwant %.300s", got.Bytes(), want)
			}
		})
	}
}

func TestUnstructuredListsOfAnotherVersionAreNotStreamed(t *testing.T) {
	v1 := schema.GroupVersion{Group: "example.com", Version: "v1"}
	list := unstructuredLists()["many"]
	if !streamable(list, v1) {
		t.Fatal("a list whose items are all in the addressed version should stream")
	}
	list.Items[17].SetAPIVersion("example.com/v2")
	if streamable(list, v1) {
		t.Error("a list with an item in another version must be converted, not streamed")
	}
}
