package resource

import (
	"testing"

	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// What kube-apiserver stored before is not judged again when an update
// leaves it as it was: a selector that compiled in an older environment,
// or a capacity policy from before the rules tightened, must not make
// every later update of the object fail. The corpus cannot show this (the
// oracle refuses to store such objects), so these tests write the rules
// down: unchanged passes, changed is judged.

func class(expression string) *resourcev1.DeviceClass {
	return &resourcev1.DeviceClass{
		ObjectMeta: metav1.ObjectMeta{Name: "gpu.example.com", ResourceVersion: "1"},
		Spec: resourcev1.DeviceClassSpec{Selectors: []resourcev1.DeviceSelector{
			{CEL: &resourcev1.CELDeviceSelector{Expression: expression}},
		}},
	}
}

func TestStoredSelectorsAreNotCompiledAgain(t *testing.T) {
	old := class("device.gone == 'x'")
	unchanged := old.DeepCopy()
	unchanged.Labels = map[string]string{"a": "b"}
	if errs := ValidateDeviceClassUpdate(unchanged, old); len(errs) != 0 {
		t.Errorf("an update leaving a stored selector as it was: %v, want no errors", errs)
	}
	changed := class("device.gone == 'y'")
	errs := ValidateDeviceClassUpdate(changed, old)
	if len(errs) != 1 || errs[0].Field != "spec.selectors[0].cel.expression" || errs[0].Detail == "" {
		t.Errorf("an update changing the selector: %v, want its compilation error", errs)
	}
}

func TestSelectorsOfNewClassesCompile(t *testing.T) {
	for expression, wantErr := range map[string]bool{
		"device.driver == 'dra.example.com'":                                          false,
		"device.capacity['dra.example.com'].memory.isLessThan(quantity('1Gi'))":       false,
		"device.attributes['dra.example.com'].version.isGreaterThan(semver('1.0.0'))": false,
		"device.allowMultipleAllocations":                                             false,
		"device.gone":                                                                 true,
		"device.driver + 1":                                                           true,
	} {
		errs := ValidateDeviceClass(class(expression))
		if (len(errs) > 0) != wantErr {
			t.Errorf("%q: errors %v, want errors: %v", expression, errs, wantErr)
		}
	}
}

func slice(capacity map[resourcev1.QualifiedName]resourcev1.DeviceCapacity) *resourcev1.ResourceSlice {
	return &resourcev1.ResourceSlice{
		ObjectMeta: metav1.ObjectMeta{Name: "slice", ResourceVersion: "1"},
		Spec: resourcev1.ResourceSliceSpec{
			Driver:   "dra.example.com",
			Pool:     resourcev1.ResourcePool{Name: "pool", ResourceSliceCount: 1},
			AllNodes: ptr.To(true),
			Devices:  []resourcev1.Device{{Name: "dev-0", Capacity: capacity}},
		},
	}
}

func TestStoredCapacityIsNotJudgedAgain(t *testing.T) {
	policy := map[resourcev1.QualifiedName]resourcev1.DeviceCapacity{"memory": {
		Value:         resource.MustParse("1Gi"),
		RequestPolicy: &resourcev1.CapacityRequestPolicy{Default: ptr.To(resource.MustParse("1Mi"))},
	}}
	old := slice(policy)
	unchanged := old.DeepCopy()
	unchanged.Spec.Pool.Generation = 1
	if errs := ValidateResourceSliceUpdate(unchanged, old); len(errs) != 0 {
		t.Errorf("an update leaving a stored capacity as it was: %v, want no errors", errs)
	}
	if errs := ValidateResourceSlice(old); len(errs) != 1 || errs[0].Detail != "allowMultipleAllocations must be true" {
		t.Errorf("a new slice with a request policy on a device allocated once: %v, want it forbidden", errs)
	}
}
