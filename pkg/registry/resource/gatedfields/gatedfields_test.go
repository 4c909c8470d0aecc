package gatedfields

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/pkg/features"
)

// A misspelt gate would be off for ever and drop its fields.
func TestEveryGateAskedAboutIsOneKubeAPIServerKnows(t *testing.T) {
	for _, name := range Gates {
		if _, ok := features.Lookup(name); !ok {
			t.Errorf("%s: unknown to kube-apiserver", name)
		}
	}
}

func mustParse(t *testing.T, flag string) features.Gates {
	t.Helper()
	g, err := features.Parse([]string{flag})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// listSlice has a device with a scalar and a list attribute.
func listSlice() *resourcev1.ResourceSlice {
	return &resourcev1.ResourceSlice{Spec: resourcev1.ResourceSliceSpec{
		Driver: "gpu.example.com",
		Devices: []resourcev1.Device{{
			Name: "d0",
			Attributes: map[resourcev1.QualifiedName]resourcev1.DeviceAttribute{
				"model": {StringValue: ptr.To("a100")},
				"tags":  {StringValues: []string{"x", "y"}},
			},
		}},
	}}
}

func TestListAttributesAreDroppedWithTheGateOff(t *testing.T) {
	s := listSlice()
	Slice(features.Gates{}, s, nil)
	if got := s.Spec.Devices[0].Attributes["tags"]; got.StringValues != nil {
		t.Errorf("tags kept with DRAListTypeAttributes off: %+v", got)
	}
	if got := s.Spec.Devices[0].Attributes["model"]; got.StringValue == nil || *got.StringValue != "a100" {
		t.Errorf("scalar attribute lost: %+v", got)
	}
}

func TestListAttributesAreKeptWithTheGateOn(t *testing.T) {
	s := listSlice()
	Slice(mustParse(t, "DRAListTypeAttributes=true"), s, nil)
	if !equality.Semantic.DeepEqual(s, listSlice()) {
		t.Errorf("with DRAListTypeAttributes=true the slice changed: %+v", s.Spec.Devices[0].Attributes)
	}
}

func TestAnUpdateKeepsTheFeaturesTheOldObjectUses(t *testing.T) {
	old := listSlice()
	updated := listSlice()
	updated.Spec.Devices[0].Attributes["more"] = resourcev1.DeviceAttribute{IntValues: []int64{1}}
	updated.Spec.PartitionTypeAttribute = ptr.To(resourcev1.FullyQualifiedName("gpu.example.com/type"))
	Slice(features.Gates{}, updated, old)
	if updated.Spec.Devices[0].Attributes["more"].IntValues == nil {
		t.Error("a list attribute was dropped although the old slice has list attributes")
	}
	if updated.Spec.PartitionTypeAttribute != nil {
		t.Error("partitionTypeAttribute was kept although the old slice does not use it")
	}
}

func TestEveryAlphaFieldOfASliceIsDroppedByDefault(t *testing.T) {
	s := &resourcev1.ResourceSlice{Spec: resourcev1.ResourceSliceSpec{
		PartitionTypeAttribute: ptr.To(resourcev1.FullyQualifiedName("gpu.example.com/type")),
		SkipNodeOperations:     []resourcev1.SkipNodeOperation{resourcev1.SkipNodeOperationAll},
		Devices: []resourcev1.Device{{
			Name:                     "d0",
			ConsumesCounters:         []resourcev1.DeviceCounterConsumption{{CounterSet: "cs", CompatibilityGroups: []string{"g"}}},
			NodeAllocatableResources: map[corev1.ResourceName]resourcev1.NodeAllocatableResource{"memory": {}},
		}},
	}}
	Slice(features.Gates{}, s, nil)
	d := s.Spec.Devices[0]
	if s.Spec.PartitionTypeAttribute != nil || s.Spec.SkipNodeOperations != nil || d.ConsumesCounters[0].CompatibilityGroups != nil || d.NodeAllocatableResources != nil {
		t.Errorf("alpha fields kept: %+v", s.Spec)
	}
	if d.ConsumesCounters[0].CounterSet != "cs" {
		t.Error("a beta field (consumesCounters, DRAPartitionableDevices on by default) was dropped")
	}
}

func TestDerivedAttributesOfAClaimFollowTheirGate(t *testing.T) {
	spec := func() *resourcev1.ResourceClaimSpec {
		return &resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{Requests: []resourcev1.DeviceRequest{
			{Name: "a", Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: "c", DerivedAttributes: []resourcev1.DeviceDerivedAttribute{{}}}},
			{Name: "b", FirstAvailable: []resourcev1.DeviceSubRequest{{Name: "s", DeviceClassName: "c", DerivedAttributes: []resourcev1.DeviceDerivedAttribute{{}}}}},
		}}}
	}
	off := spec()
	ClaimSpec(features.Gates{}, off, nil)
	if off.Devices.Requests[0].Exactly.DerivedAttributes != nil || off.Devices.Requests[1].FirstAvailable[0].DerivedAttributes != nil {
		t.Error("derivedAttributes kept with DRADerivedAttributes off")
	}
	on := spec()
	ClaimSpec(mustParse(t, "DRADerivedAttributes=true"), on, nil)
	if !equality.Semantic.DeepEqual(on, spec()) {
		t.Error("derivedAttributes dropped with DRADerivedAttributes on")
	}
}

func TestSkipNodeOperationsOfAnAllocationFollowTheirGate(t *testing.T) {
	status := func() *resourcev1.ResourceClaimStatus {
		return &resourcev1.ResourceClaimStatus{Allocation: &resourcev1.AllocationResult{Devices: resourcev1.DeviceAllocationResult{
			Results: []resourcev1.DeviceRequestAllocationResult{{Request: "a", Driver: "d", Pool: "p", Device: "d0", SkipNodeOperations: []resourcev1.SkipNodeOperation{resourcev1.SkipNodeOperationAll}}},
		}}}
	}
	off := status()
	ClaimStatus(features.Gates{}, off, &resourcev1.ResourceClaimStatus{})
	if off.Allocation.Devices.Results[0].SkipNodeOperations != nil {
		t.Error("skipNodeOperations kept with DRAOptionalNodeOperations off")
	}
	kept := status()
	ClaimStatus(features.Gates{}, kept, status())
	if kept.Allocation.Devices.Results[0].SkipNodeOperations == nil {
		t.Error("skipNodeOperations dropped although the old status uses them")
	}
}
