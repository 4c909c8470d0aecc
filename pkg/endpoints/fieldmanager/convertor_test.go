package fieldmanager

import (
	"testing"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/pkg/api/scheme"
)

// The field manager's conversions to the version an object is in are
// shallow copies without managedFields, which leave the object alone.
func TestVersionedCopies(t *testing.T) {
	widget := schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}
	c := versionedCopies{next: scheme.Scheme, typer: scheme.Scheme, creater: scheme.Scheme, unstructuredKind: widget}
	managed := []metav1.ManagedFieldsEntry{{Manager: "m", Operation: metav1.ManagedFieldsOperationUpdate}}

	t.Run("a typed object in its version", func(t *testing.T) {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm", ManagedFields: managed}, Data: map[string]string{"a": "1"}}
		out, err := c.ConvertToVersion(cm, corev1.SchemeGroupVersion)
		if err != nil {
			t.Fatal(err)
		}
		got := out.(*corev1.ConfigMap)
		if got == cm || got.ManagedFields != nil || got.Data["a"] != "1" || got.Kind != "ConfigMap" || got.APIVersion != "v1" {
			t.Errorf("copy %+v", got)
		}
		if len(cm.ManagedFields) != 1 || cm.Kind != "" {
			t.Errorf("the original changed: %+v", cm)
		}
	})

	t.Run("a typed object of a kind the target does not have goes to the scheme", func(t *testing.T) {
		_, err := c.ConvertToVersion(&corev1.ConfigMap{}, schema.GroupVersion{Group: "apps", Version: "v1"})
		if err == nil {
			t.Error("converted a ConfigMap to apps/v1")
		}
	})

	t.Run("a custom resource in its version", func(t *testing.T) {
		u := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"size": int64(1)}}}
		u.SetGroupVersionKind(widget)
		u.SetName("w")
		u.SetManagedFields(managed)
		out, err := c.ConvertToVersion(u, widget.GroupVersion())
		if err != nil {
			t.Fatal(err)
		}
		got := out.(*unstructured.Unstructured)
		if got.GetManagedFields() != nil || got.GetName() != "w" || got.GroupVersionKind() != widget {
			t.Errorf("copy %v", got.Object)
		}
		if len(u.GetManagedFields()) != 1 {
			t.Errorf("the original changed: %v", u.Object)
		}
	})

	t.Run("an unstructured object of a typed kind becomes typed", func(t *testing.T) {
		// Whatever next does with unstructured objects: the codecs of
		// custom resources take them all for custom resources.
		c := c
		c.next = crCodecs{}
		u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "autoscaling/v1", "kind": "Scale",
			"metadata": map[string]any{"name": "w"}, "spec": map[string]any{"replicas": int64(3)}}}
		out, err := c.ConvertToVersion(u, autoscalingv1.SchemeGroupVersion)
		if err != nil {
			t.Fatal(err)
		}
		if s, ok := out.(*autoscalingv1.Scale); !ok || s.Spec.Replicas != 3 || s.Kind != "Scale" {
			t.Errorf("got %T %+v", out, out)
		}
	})
}

var _ runtime.ObjectConvertor = versionedCopies{}

// crCodecs converts unstructured objects as custom resources.
type crCodecs struct{ runtime.ObjectConvertor }

func (crCodecs) ConvertToVersion(in runtime.Object, _ runtime.GroupVersioner) (runtime.Object, error) {
	return in, nil
}
