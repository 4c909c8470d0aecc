package handlers

import (
	"bytes"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
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
