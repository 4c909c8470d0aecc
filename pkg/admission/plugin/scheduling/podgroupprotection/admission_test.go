package podgroupprotection

import (
	"context"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/pkg/admission"
)

// With the GenericWorkload gate a PodGroup gets the finalizer, once;
// without it (1.37's default) nothing changes.
func TestPodGroupProtection(t *testing.T) {
	podGroups := schema.GroupVersionResource{Group: "scheduling.k8s.io", Version: "v1alpha2", Resource: "podgroups"}
	tests := []struct {
		name       string
		gate       bool
		finalizers []string
		want       []string
	}{
		{name: "gate on", gate: true, want: []string{Finalizer}},
		{name: "already there", gate: true, finalizers: []string{"a", Finalizer}, want: []string{"a", Finalizer}},
		{name: "gate off", want: nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pg := &unstructured.Unstructured{Object: map[string]any{"kind": "PodGroup"}}
			pg.SetFinalizers(tc.finalizers)
			a := &admission.Attributes{Resource: podGroups, Operation: admission.Create, Object: pg}
			if err := New(tc.gate).Admit(context.Background(), a); err != nil {
				t.Fatal(err)
			}
			if got := pg.GetFinalizers(); !slices.Equal(got, tc.want) {
				t.Errorf("finalizers = %q, want %q", got, tc.want)
			}
		})
	}
}
