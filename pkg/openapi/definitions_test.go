package openapi

import (
	"reflect"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Definitions are what server-side apply's type converter reads: the
// closure of the given types, each registered type with all its kinds.
func TestDefinitionsForTheTypeConverter(t *testing.T) {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{appsv1.AddToScheme, autoscalingv1.AddToScheme} {
		if err := add(s); err != nil {
			t.Fatal(err)
		}
	}
	metav1.AddToGroupVersion(s, appsv1.SchemeGroupVersion)
	defs, err := Definitions(s, &appsv1.Deployment{}, &autoscalingv1.Scale{})
	if err != nil {
		t.Fatal(err)
	}

	kinds := map[string][]any{
		"io.k8s.api.apps.v1.Deployment":   {map[string]any{"group": "apps", "version": "v1", "kind": "Deployment"}},
		"io.k8s.api.autoscaling.v1.Scale": {map[string]any{"group": "autoscaling", "version": "v1", "kind": "Scale"}},
		// Not a kind: no extension.
		"io.k8s.api.core.v1.Container":                    nil,
		"io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta": nil,
	}
	for name, want := range kinds {
		d, ok := defs[name]
		if !ok {
			t.Errorf("%s is not in the closure", name)
			continue
		}
		got, _ := d.Extensions["x-kubernetes-group-version-kind"].([]any)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: x-kubernetes-group-version-kind %v, want %v", name, got, want)
		}
	}
	if _, ok := defs["io.k8s.api.core.v1.Pod"]; ok {
		t.Error("the closure of a Deployment has Pod, which it does not refer to")
	}

	containers := defs["io.k8s.api.core.v1.PodSpec"].Properties["containers"]
	if containers.Extensions["x-kubernetes-list-type"] != "map" || !reflect.DeepEqual(containers.Extensions["x-kubernetes-list-map-keys"], []any{"name"}) {
		t.Errorf("PodSpec.containers extensions %v: want a list map keyed by name", containers.Extensions)
	}

	if _, err := Definitions(s, nil); err == nil {
		t.Error("a nil object was accepted")
	}
}
