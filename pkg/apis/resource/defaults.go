// Package resource holds the defaults and the validation of the
// resource.k8s.io/v1 types kapi serves (dynamic resource allocation):
// DeviceClass, DeviceTaintRule, ResourceClaim, ResourceClaimTemplate and
// ResourceSlice.
//
// The validation is kube-apiserver 1.37's in two runs: the hand-written
// rules kapi has so far (metadata, immutable specs, the taint rules),
// then the declarative rules generated from the `+k8s:` tags of the
// types, which k8s.io/api ships with the types (Validate_* in
// k8s.io/api/resource/v1) and kapi calls as kube-apiserver does. Not yet
// here: the hand-written rules of device requests, selectors (CEL),
// constraints, configs, allocation results and slices' devices.
package resource

import (
	"time"

	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// AddDefaults registers the defaulting functions of the resource.k8s.io
// kinds, and of their lists, in scheme.
func AddDefaults(scheme *runtime.Scheme) error {
	addDefaults(scheme, &resourcev1.ResourceClaim{}, &resourcev1.ResourceClaimList{},
		func(c *resourcev1.ResourceClaim) {
			setDefaultsClaimSpec(&c.Spec)
			if a := c.Status.Allocation; a != nil {
				for i := range a.Devices.Results {
					setDefaultsTolerations(a.Devices.Results[i].Tolerations)
				}
			}
		},
		func(l *resourcev1.ResourceClaimList) []resourcev1.ResourceClaim { return l.Items })
	addDefaults(scheme, &resourcev1.ResourceClaimTemplate{}, &resourcev1.ResourceClaimTemplateList{},
		func(t *resourcev1.ResourceClaimTemplate) { setDefaultsClaimSpec(&t.Spec.Spec) },
		func(l *resourcev1.ResourceClaimTemplateList) []resourcev1.ResourceClaimTemplate { return l.Items })
	addDefaults(scheme, &resourcev1.DeviceTaintRule{}, &resourcev1.DeviceTaintRuleList{},
		func(r *resourcev1.DeviceTaintRule) { setDefaultsTaint(&r.Spec.Taint) },
		func(l *resourcev1.DeviceTaintRuleList) []resourcev1.DeviceTaintRule { return l.Items })
	addDefaults(scheme, &resourcev1.ResourceSlice{}, &resourcev1.ResourceSliceList{},
		func(s *resourcev1.ResourceSlice) {
			for i := range s.Spec.Devices {
				for j := range s.Spec.Devices[i].Taints {
					setDefaultsTaint(&s.Spec.Devices[i].Taints[j])
				}
			}
		},
		func(l *resourcev1.ResourceSliceList) []resourcev1.ResourceSlice { return l.Items })
	return nil
}

func addDefaults[T any, L any](scheme *runtime.Scheme, obj *T, list *L, set func(*T), items func(*L) []T) {
	scheme.AddTypeDefaultingFunc(any(obj).(runtime.Object), func(o any) { set(o.(*T)) })
	scheme.AddTypeDefaultingFunc(any(list).(runtime.Object), func(o any) {
		it := items(o.(*L))
		for i := range it {
			set(&it[i])
		}
	})
}

// setDefaultsClaimSpec makes every request, and every alternative of a
// request, ask for exactly one device unless it says otherwise.
func setDefaultsClaimSpec(spec *resourcev1.ResourceClaimSpec) {
	for i := range spec.Devices.Requests {
		r := &spec.Devices.Requests[i]
		if r.Exactly != nil {
			setDefaultsCount(&r.Exactly.AllocationMode, &r.Exactly.Count)
			setDefaultsTolerations(r.Exactly.Tolerations)
		}
		for j := range r.FirstAvailable {
			setDefaultsCount(&r.FirstAvailable[j].AllocationMode, &r.FirstAvailable[j].Count)
			setDefaultsTolerations(r.FirstAvailable[j].Tolerations)
		}
	}
}

// setDefaultsTolerations makes a toleration without an operator compare
// its value: the operator's +default tag.
func setDefaultsTolerations(tolerations []resourcev1.DeviceToleration) {
	for i := range tolerations {
		if tolerations[i].Operator == "" {
			tolerations[i].Operator = resourcev1.DeviceTolerationOpEqual
		}
	}
}

func setDefaultsCount(mode *resourcev1.DeviceAllocationMode, count *int64) {
	if *mode == "" {
		*mode = resourcev1.DeviceAllocationModeExactCount
	}
	if *mode == resourcev1.DeviceAllocationModeExactCount && *count == 0 {
		*count = 1
	}
}

// setDefaultsTaint stamps a taint with the time it was added, to the
// second.
func setDefaultsTaint(t *resourcev1.DeviceTaint) {
	if t.TimeAdded == nil {
		t.TimeAdded = &metav1.Time{Time: time.Now().Truncate(time.Second)}
	}
}
