package scheduling_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	schedulingv1 "k8s.io/api/scheduling/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/pkg/apis/internal/reference"
	"github.com/kapi-dev/kapi/pkg/apis/scheduling"
)

// A PriorityClass defaults as kube-apiserver's did (defaulting/
// priorityclass), except for what the server sets and the generation,
// which the registry's strategy sets.
func TestDefaultsMatchReference(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := schedulingv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := scheduling.AddDefaults(scheme); err != nil {
		t.Fatal(err)
	}
	input, output, err := reference.Defaulting("priorityclass")
	if err != nil {
		t.Fatal(err)
	}
	pc := &schedulingv1.PriorityClass{}
	if err := json.Unmarshal(input, pc); err != nil {
		t.Fatal(err)
	}
	scheme.Default(pc)
	got, err := reference.ToJSONMap(pc)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{}
	if err := json.Unmarshal(output, &want); err != nil {
		t.Fatal(err)
	}
	for _, m := range []map[string]any{got, want} {
		reference.RemoveFields(m, "metadata.creationTimestamp", "metadata.resourceVersion", "metadata.uid", "metadata.generation")
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("defaulted PriorityClass differs from kube-apiserver's (-want +got):\n%s", diff)
	}
}

// The system PriorityClasses pass the reserved-name rule, and only they
// (test/e2e compares them with kube-apiserver's objects).
func TestSystemPriorityClasses(t *testing.T) {
	for _, pc := range scheduling.SystemPriorityClasses() {
		scheduling.SetDefaultsPriorityClass(pc)
		if errs := scheduling.ValidatePriorityClass(pc); len(errs) != 0 {
			t.Errorf("%s: %v", pc.Name, errs)
		}
		if !scheduling.IsSystemPriorityClass(pc.Name) {
			t.Errorf("%s is not a system class", pc.Name)
		}
	}
	if scheduling.IsSystemPriorityClass("system-other") {
		t.Error("system-other is a system class")
	}
}
