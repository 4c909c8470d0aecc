package objectkind

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestTypedObjectsLoseTheirKindAndUnstructuredOnesKeepIt(t *testing.T) {
	typed := &corev1.ConfigMap{}
	typed.APIVersion, typed.Kind = "v1", "ConfigMap"
	ClearTyped(typed)
	if typed.APIVersion != "" || typed.Kind != "" {
		t.Errorf("typed object kept %q %q", typed.APIVersion, typed.Kind)
	}

	gvk := schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	ClearTyped(u)
	if got := u.GroupVersionKind(); got != gvk {
		t.Errorf("unstructured object has %v, want %v", got, gvk)
	}
}
