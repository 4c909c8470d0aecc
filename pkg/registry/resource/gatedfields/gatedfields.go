// Package gatedfields drops from resource.k8s.io objects the fields whose
// feature gate is off, as kube-apiserver's registry does before it
// validates a write.
//
// Each field of resource.k8s.io/v1 that belongs to a feature carries its
// gate (+featureGate= in k8s.io/api's types). When the gate is off, a
// write loses the feature's fields, silently: the object is stored as if
// the client had not sent them, and validation sees it that way (a device
// attribute that had only a list value is then empty, and invalid). Only
// if the object being updated already uses a feature (it was written
// while the gate was on) does the update keep that feature's fields, so
// that turning a gate off never loses data nor blocks updates. "Uses" is
// judged feature by feature over the whole old object (or the old status,
// for a /status write).
//
// The features are listed as package gated's, which drops them as it
// does the gated fields of every other group.
//
// Gates that are locked on in kube-apiserver 1.37 (DRAAdminAccess,
// DRAPrioritizedList, DRAExtendedResource, DRAResourceClaimDeviceStatus)
// can never be off, so their fields are never dropped.
package gatedfields

import (
	resourcev1 "k8s.io/api/resource/v1"

	"github.com/kapi-dev/kapi/pkg/features"
	"github.com/kapi-dev/kapi/pkg/registry/gated"
)

// The gates of resource.k8s.io/v1 fields that --feature-gates can turn
// off.
const (
	DRAPartitionableDevices      = "DRAPartitionableDevices"
	DRAPartitionableDevicesType  = "DRAPartitionableDevicesType"
	DRADeviceCompatibilityGroups = "DRADeviceCompatibilityGroups"
	DRAOptionalNodeOperations    = "DRAOptionalNodeOperations"
	DRADeviceTaints              = "DRADeviceTaints"
	DRADeviceBindingConditions   = "DRADeviceBindingConditions"
	DRAResourceClaimDeviceStatus = "DRAResourceClaimDeviceStatus"
	DRAConsumableCapacity        = "DRAConsumableCapacity"
	DRANodeAllocatableResources  = "DRANodeAllocatableResources"
	DRAListTypeAttributes        = "DRAListTypeAttributes"
	DRADerivedAttributes         = "DRADerivedAttributes"
)

// Gates names every gate this package asks about, for a test that each is
// one kube-apiserver knows.
var Gates = []string{
	DRAPartitionableDevices, DRAPartitionableDevicesType, DRADeviceCompatibilityGroups,
	DRAOptionalNodeOperations, DRADeviceTaints, DRADeviceBindingConditions,
	DRAResourceClaimDeviceStatus, DRAConsumableCapacity, DRANodeAllocatableResources,
	DRAListTypeAttributes, DRADerivedAttributes,
}

// Slice drops the disabled fields of a ResourceSlice; old is nil on
// create.
func Slice(g features.Gates, s, old *resourcev1.ResourceSlice) {
	var oldSpec *resourcev1.ResourceSliceSpec
	if old != nil {
		oldSpec = &old.Spec
	}
	gated.Drop(g, sliceFeatures, &s.Spec, oldSpec)
}

// anyDevice reports whether f holds for a device of the spec.
func anyDevice(s *resourcev1.ResourceSliceSpec, f func(*resourcev1.Device) bool) bool {
	for i := range s.Devices {
		if f(&s.Devices[i]) {
			return true
		}
	}
	return false
}

func eachDevice(s *resourcev1.ResourceSliceSpec, f func(*resourcev1.Device)) {
	for i := range s.Devices {
		f(&s.Devices[i])
	}
}

var sliceFeatures = []gated.Feature[*resourcev1.ResourceSliceSpec]{
	{
		Gate: DRAPartitionableDevices,
		Used: func(s *resourcev1.ResourceSliceSpec) bool {
			return len(s.SharedCounters) > 0 || s.PerDeviceNodeSelection != nil || anyDevice(s, func(d *resourcev1.Device) bool {
				return len(d.ConsumesCounters) > 0 || d.NodeName != nil || d.NodeSelector != nil || d.AllNodes != nil
			})
		},
		Drop: func(s *resourcev1.ResourceSliceSpec) {
			s.SharedCounters, s.PerDeviceNodeSelection = nil, nil
			eachDevice(s, func(d *resourcev1.Device) {
				d.ConsumesCounters, d.NodeName, d.NodeSelector, d.AllNodes = nil, nil, nil, nil
			})
		},
	},
	{
		Gate: DRAPartitionableDevicesType,
		Used: func(s *resourcev1.ResourceSliceSpec) bool { return s.PartitionTypeAttribute != nil },
		Drop: func(s *resourcev1.ResourceSliceSpec) { s.PartitionTypeAttribute = nil },
	},
	{
		Gate: DRAOptionalNodeOperations,
		Used: func(s *resourcev1.ResourceSliceSpec) bool { return len(s.SkipNodeOperations) > 0 },
		Drop: func(s *resourcev1.ResourceSliceSpec) { s.SkipNodeOperations = nil },
	},
	{
		Gate: DRADeviceCompatibilityGroups,
		Used: func(s *resourcev1.ResourceSliceSpec) bool {
			return anyDevice(s, func(d *resourcev1.Device) bool {
				for _, c := range d.ConsumesCounters {
					if len(c.CompatibilityGroups) > 0 {
						return true
					}
				}
				return false
			})
		},
		Drop: func(s *resourcev1.ResourceSliceSpec) {
			eachDevice(s, func(d *resourcev1.Device) {
				for i := range d.ConsumesCounters {
					d.ConsumesCounters[i].CompatibilityGroups = nil
				}
			})
		},
	},
	{
		Gate: DRADeviceTaints,
		Used: func(s *resourcev1.ResourceSliceSpec) bool {
			return anyDevice(s, func(d *resourcev1.Device) bool { return len(d.Taints) > 0 })
		},
		Drop: func(s *resourcev1.ResourceSliceSpec) { eachDevice(s, func(d *resourcev1.Device) { d.Taints = nil }) },
	},
	{
		Gate: DRADeviceBindingConditions, AlsoNeeds: []string{DRAResourceClaimDeviceStatus},
		Used: func(s *resourcev1.ResourceSliceSpec) bool {
			return anyDevice(s, func(d *resourcev1.Device) bool {
				return len(d.BindingConditions) > 0 || len(d.BindingFailureConditions) > 0 || d.BindsToNode != nil
			})
		},
		Drop: func(s *resourcev1.ResourceSliceSpec) {
			eachDevice(s, func(d *resourcev1.Device) {
				d.BindingConditions, d.BindingFailureConditions, d.BindsToNode = nil, nil, nil
			})
		},
	},
	{
		Gate: DRAConsumableCapacity,
		Used: func(s *resourcev1.ResourceSliceSpec) bool {
			return anyDevice(s, func(d *resourcev1.Device) bool {
				if d.AllowMultipleAllocations != nil {
					return true
				}
				for _, c := range d.Capacity {
					if c.RequestPolicy != nil {
						return true
					}
				}
				return false
			})
		},
		Drop: func(s *resourcev1.ResourceSliceSpec) {
			eachDevice(s, func(d *resourcev1.Device) {
				d.AllowMultipleAllocations = nil
				for name, c := range d.Capacity {
					if c.RequestPolicy != nil {
						c.RequestPolicy = nil
						d.Capacity[name] = c
					}
				}
			})
		},
	},
	{
		Gate: DRANodeAllocatableResources,
		Used: func(s *resourcev1.ResourceSliceSpec) bool {
			return anyDevice(s, func(d *resourcev1.Device) bool { return len(d.NodeAllocatableResources) > 0 })
		},
		Drop: func(s *resourcev1.ResourceSliceSpec) {
			eachDevice(s, func(d *resourcev1.Device) { d.NodeAllocatableResources = nil })
		},
	},
	{
		Gate: DRAListTypeAttributes,
		Used: func(s *resourcev1.ResourceSliceSpec) bool {
			return anyDevice(s, func(d *resourcev1.Device) bool {
				for _, a := range d.Attributes {
					if a.IntValues != nil || a.BoolValues != nil || a.StringValues != nil || a.VersionValues != nil {
						return true
					}
				}
				return false
			})
		},
		Drop: func(s *resourcev1.ResourceSliceSpec) {
			eachDevice(s, func(d *resourcev1.Device) {
				for name, a := range d.Attributes {
					if a.IntValues != nil || a.BoolValues != nil || a.StringValues != nil || a.VersionValues != nil {
						a.IntValues, a.BoolValues, a.StringValues, a.VersionValues = nil, nil, nil, nil
						d.Attributes[name] = a
					}
				}
			})
		},
	},
}

// ClaimSpec drops the disabled fields of the spec of a ResourceClaim or
// of a ResourceClaimTemplate's claims; old is nil on create.
func ClaimSpec(g features.Gates, spec, old *resourcev1.ResourceClaimSpec) {
	gated.Drop(g, claimSpecFeatures, spec, old)
}

// anyRequest reports whether f holds for a request of the spec, exact or
// one of the alternatives of a prioritized list. f receives the fields
// the two kinds share.
func anyRequest(s *resourcev1.ResourceClaimSpec, f func(requestFields) bool) bool {
	found := false
	eachRequest(s, func(r requestFields) {
		found = found || f(r)
	})
	return found
}

// requestFields points at the gated fields an ExactDeviceRequest and a
// DeviceSubRequest both have.
type requestFields struct {
	tolerations       *[]resourcev1.DeviceToleration
	capacity          **resourcev1.CapacityRequirements
	derivedAttributes *[]resourcev1.DeviceDerivedAttribute
}

func eachRequest(s *resourcev1.ResourceClaimSpec, f func(requestFields)) {
	for i := range s.Devices.Requests {
		r := &s.Devices.Requests[i]
		if e := r.Exactly; e != nil {
			f(requestFields{&e.Tolerations, &e.Capacity, &e.DerivedAttributes})
		}
		for j := range r.FirstAvailable {
			sub := &r.FirstAvailable[j]
			f(requestFields{&sub.Tolerations, &sub.Capacity, &sub.DerivedAttributes})
		}
	}
}

var claimSpecFeatures = []gated.Feature[*resourcev1.ResourceClaimSpec]{
	{
		Gate: DRADeviceTaints,
		Used: func(s *resourcev1.ResourceClaimSpec) bool {
			return anyRequest(s, func(r requestFields) bool { return len(*r.tolerations) > 0 })
		},
		Drop: func(s *resourcev1.ResourceClaimSpec) { eachRequest(s, func(r requestFields) { *r.tolerations = nil }) },
	},
	{
		Gate: DRAConsumableCapacity,
		Used: func(s *resourcev1.ResourceClaimSpec) bool {
			for _, c := range s.Devices.Constraints {
				if c.DistinctAttribute != nil {
					return true
				}
			}
			return anyRequest(s, func(r requestFields) bool { return *r.capacity != nil })
		},
		Drop: func(s *resourcev1.ResourceClaimSpec) {
			for i := range s.Devices.Constraints {
				s.Devices.Constraints[i].DistinctAttribute = nil
			}
			eachRequest(s, func(r requestFields) { *r.capacity = nil })
		},
	},
	{
		Gate: DRADerivedAttributes,
		Used: func(s *resourcev1.ResourceClaimSpec) bool {
			return anyRequest(s, func(r requestFields) bool { return len(*r.derivedAttributes) > 0 })
		},
		Drop: func(s *resourcev1.ResourceClaimSpec) {
			eachRequest(s, func(r requestFields) { *r.derivedAttributes = nil })
		},
	},
}

// ClaimStatus drops the disabled fields of a ResourceClaim's status; old
// is nil on create (when the status is cleared anyway).
func ClaimStatus(g features.Gates, status, old *resourcev1.ResourceClaimStatus) {
	gated.Drop(g, claimStatusFeatures, status, old)
}

func anyResult(s *resourcev1.ResourceClaimStatus, f func(*resourcev1.DeviceRequestAllocationResult) bool) bool {
	if s.Allocation == nil {
		return false
	}
	for i := range s.Allocation.Devices.Results {
		if f(&s.Allocation.Devices.Results[i]) {
			return true
		}
	}
	return false
}

func eachResult(s *resourcev1.ResourceClaimStatus, f func(*resourcev1.DeviceRequestAllocationResult)) {
	if s.Allocation == nil {
		return
	}
	for i := range s.Allocation.Devices.Results {
		f(&s.Allocation.Devices.Results[i])
	}
}

var claimStatusFeatures = []gated.Feature[*resourcev1.ResourceClaimStatus]{
	{
		Gate: DRADeviceTaints,
		Used: func(s *resourcev1.ResourceClaimStatus) bool {
			return anyResult(s, func(r *resourcev1.DeviceRequestAllocationResult) bool { return len(r.Tolerations) > 0 })
		},
		Drop: func(s *resourcev1.ResourceClaimStatus) {
			eachResult(s, func(r *resourcev1.DeviceRequestAllocationResult) { r.Tolerations = nil })
		},
	},
	{
		Gate: DRADeviceBindingConditions, AlsoNeeds: []string{DRAResourceClaimDeviceStatus},
		Used: func(s *resourcev1.ResourceClaimStatus) bool {
			return s.Allocation != nil && s.Allocation.AllocationTimestamp != nil ||
				anyResult(s, func(r *resourcev1.DeviceRequestAllocationResult) bool {
					return len(r.BindingConditions) > 0 || len(r.BindingFailureConditions) > 0
				})
		},
		Drop: func(s *resourcev1.ResourceClaimStatus) {
			if s.Allocation != nil {
				s.Allocation.AllocationTimestamp = nil
			}
			eachResult(s, func(r *resourcev1.DeviceRequestAllocationResult) {
				r.BindingConditions, r.BindingFailureConditions = nil, nil
			})
		},
	},
	{
		Gate: DRAConsumableCapacity,
		Used: func(s *resourcev1.ResourceClaimStatus) bool {
			for _, d := range s.Devices {
				if d.ShareID != nil {
					return true
				}
			}
			return anyResult(s, func(r *resourcev1.DeviceRequestAllocationResult) bool {
				return r.ShareID != nil || len(r.ConsumedCapacity) > 0
			})
		},
		Drop: func(s *resourcev1.ResourceClaimStatus) {
			for i := range s.Devices {
				s.Devices[i].ShareID = nil
			}
			eachResult(s, func(r *resourcev1.DeviceRequestAllocationResult) { r.ShareID, r.ConsumedCapacity = nil, nil })
		},
	},
	{
		Gate: DRAOptionalNodeOperations,
		Used: func(s *resourcev1.ResourceClaimStatus) bool {
			return anyResult(s, func(r *resourcev1.DeviceRequestAllocationResult) bool { return len(r.SkipNodeOperations) > 0 })
		},
		Drop: func(s *resourcev1.ResourceClaimStatus) {
			eachResult(s, func(r *resourcev1.DeviceRequestAllocationResult) { r.SkipNodeOperations = nil })
		},
	},
}
