package evaluator

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/pkg/admission"
)

var claimCountName = CountName(resourcev1.Resource("resourceclaims"))

// ResourceClaims measures resource.k8s.io resourceclaims: their count
// and the devices they request per device class,
// <class>.deviceclass.resource.k8s.io/devices.
type ResourceClaims struct{}

func toClaim(obj runtime.Object) (*resourcev1.ResourceClaim, error) {
	claim, ok := obj.(*resourcev1.ResourceClaim)
	if !ok {
		return nil, fmt.Errorf("expect %T or %T, got %T", &resourcev1.ResourceClaim{}, &resourcev1.ResourceClaim{}, obj)
	}
	return claim, nil
}

func (ResourceClaims) Handles(a *admission.Attributes) bool {
	return a.Subresource == "" && (a.Operation == admission.Create || a.Operation == admission.Update)
}

func (ResourceClaims) Constraints([]corev1.ResourceName, runtime.Object) error { return nil }

func (r ResourceClaims) Matches(quota *corev1.ResourceQuota, obj runtime.Object) (bool, error) {
	return matches(quota, obj, r.MatchingResources, noScope)
}

func (ResourceClaims) MatchingScopes(runtime.Object, []corev1.ScopedResourceSelectorRequirement) ([]corev1.ScopedResourceSelectorRequirement, error) {
	return []corev1.ScopedResourceSelectorRequirement{}, nil
}

func (ResourceClaims) UncoveredScopes(_, _ []corev1.ScopedResourceSelectorRequirement) []corev1.ScopedResourceSelectorRequirement {
	return []corev1.ScopedResourceSelectorRequirement{}
}

func (ResourceClaims) MatchingResources(names []corev1.ResourceName) []corev1.ResourceName {
	out := []corev1.ResourceName{}
	for _, name := range names {
		if name == claimCountName || strings.HasSuffix(string(name), corev1.ResourceClaimsPerClass) {
			out = append(out, name)
		}
	}
	return out
}

// Usage is one claim and, per device class, the most devices its
// requests may be allocated (32, the most an allocation holds, for
// "All"; of the alternatives of a request, the largest).
func (ResourceClaims) Usage(obj runtime.Object) (corev1.ResourceList, error) {
	claim, err := toClaim(obj)
	if err != nil {
		return corev1.ResourceList{}, err
	}
	out := corev1.ResourceList{claimCountName: one()}
	add := func(class string, n int64) {
		name := corev1.ResourceName(class + corev1.ResourceClaimsPerClass)
		q := out[name]
		q.Add(*resource.NewQuantity(n, resource.DecimalSI))
		out[name] = q
	}
	for _, request := range claim.Spec.Devices.Requests {
		switch {
		case len(request.FirstAvailable) > 0:
			most := map[string]int64{}
			for _, sub := range request.FirstAvailable {
				if n := devices(sub.AllocationMode, sub.Count); n > most[sub.DeviceClassName] {
					most[sub.DeviceClassName] = n
				}
			}
			for class, n := range most {
				add(class, n)
			}
		case request.Exactly != nil:
			add(request.Exactly.DeviceClassName, devices(request.Exactly.AllocationMode, request.Exactly.Count))
		}
	}
	return out, nil
}

// devices is how many devices a request of mode may be allocated; an
// unknown mode counts none.
func devices(mode resourcev1.DeviceAllocationMode, count int64) int64 {
	switch mode {
	case resourcev1.DeviceAllocationModeExactCount:
		return count
	case resourcev1.DeviceAllocationModeAll:
		return resourcev1.AllocationResultsMaxSize
	}
	return 0
}
