package evaluator

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kapi-dev/kapi/pkg/admission"
)

var claimCountName = CountName(resourcev1.Resource("resourceclaims"))

// ResourceClaims measures resource.k8s.io resourceclaims: their count,
// the devices they request per device class
// (<class>.deviceclass.resource.k8s.io/devices), and, as extended
// resources (DRAExtendedResource, GA), those devices under
// requests.deviceclass.resource.kubernetes.io/<class> and, for a class
// with an extendedResourceName, requests.<that name>. A claim the
// scheduler made for a pod's extended resources is charged only what the
// pod was not charged already.
type ResourceClaims struct {
	// Classes reads device classes (nil: no class is known).
	Classes DeviceClasses
	// Owners reads the pod that owns a claim, and the claims it owns (nil:
	// claims are charged whole).
	Owners ClaimOwners
	// Pods measures the owning pod.
	Pods *Pods
}

// DeviceClasses reads device classes, from a cache.
type DeviceClasses interface {
	Get(name string) (*resourcev1.DeviceClass, error)
	List(selector labels.Selector) ([]*resourcev1.DeviceClass, error)
}

// ClaimOwners reads, from the server, the pod a claim names as its
// controller and the extended-resource claims a pod owns.
type ClaimOwners interface {
	Pod(ctx context.Context, namespace, name string) (*corev1.Pod, error)
	ClaimsOf(ctx context.Context, namespace string, pod types.UID) ([]resourcev1.ResourceClaim, error)
}

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

func (r ResourceClaims) MatchingResources(names []corev1.ResourceName) []corev1.ResourceName {
	out := []corev1.ResourceName{}
	for _, name := range names {
		if name == claimCountName || strings.HasSuffix(string(name), corev1.ResourceClaimsPerClass) {
			out = append(out, name)
			continue
		}
		if class, ok := strings.CutPrefix(string(name), corev1.ResourceImplicitExtendedClaimsPerClass); ok && r.extendedResourceOf(class) != "" {
			out = append(out, name)
			continue
		}
		if isExtendedResourceNameForQuota(name) && r.classOf(strings.TrimPrefix(string(name), corev1.DefaultResourceRequestsPrefix)) != nil {
			out = append(out, name)
		}
	}
	return out
}

// extendedResourceOf is the extendedResourceName of class, "" if none.
func (r ResourceClaims) extendedResourceOf(class string) string {
	if r.Classes == nil {
		return ""
	}
	c, err := r.Classes.Get(class)
	if err != nil || c.Spec.ExtendedResourceName == nil {
		return ""
	}
	return *c.Spec.ExtendedResourceName
}

// classOf is the device class an extended resource name stands for: the
// class deviceclass.resource.kubernetes.io/<class> names, or the newest
// class (the first name on a tie) with that extendedResourceName.
func (r ResourceClaims) classOf(name string) *resourcev1.DeviceClass {
	if r.Classes == nil {
		return nil
	}
	if class, ok := strings.CutPrefix(name, resourcev1.ResourceDeviceClassPrefix); ok {
		if c, err := r.Classes.Get(class); err == nil {
			return c
		}
	}
	classes, err := r.Classes.List(labels.Everything())
	if err != nil {
		return nil
	}
	var best *resourcev1.DeviceClass
	for _, c := range classes {
		if c.Spec.ExtendedResourceName == nil || *c.Spec.ExtendedResourceName != name {
			continue
		}
		if best == nil || c.CreationTimestamp.After(best.CreationTimestamp.Time) ||
			c.CreationTimestamp.Equal(&best.CreationTimestamp) && c.Name < best.Name {
			best = c
		}
	}
	return best
}

// Usage is one claim and, per device class, the most devices its
// requests may be allocated (32, the most an allocation holds, for
// "All"; of the alternatives of a request, the largest).
func (r ResourceClaims) Usage(obj runtime.Object) (corev1.ResourceList, error) {
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
	r.addExtendedResources(out, r.ownerUsage(claim))
	return out, nil
}

// addExtendedResources adds the devices of each class as the extended
// resources they are, less what the owning pod was charged for them.
func (r ResourceClaims) addExtendedResources(usage, podUsage corev1.ResourceList) {
	extended := corev1.ResourceList{}
	for name, q := range usage {
		class, ok := strings.CutSuffix(string(name), corev1.ResourceClaimsPerClass)
		if !ok || class == "" {
			continue
		}
		extended[corev1.ResourceName(corev1.ResourceImplicitExtendedClaimsPerClass+class)] = q
		if ext := r.extendedResourceOf(class); ext != "" {
			extended[corev1.ResourceName(corev1.DefaultResourceRequestsPrefix+ext)] = q
		}
	}
	for name, q := range extended {
		if charged, ok := podUsage[name]; ok {
			q.Sub(charged)
		}
		if q.Sign() > 0 {
			usage[name] = q
		}
	}
}

// ownerUsage is what the pod that a claim made for its extended
// resources belongs to was charged, nil unless the claim is verifiably
// that pod's (its first such claim, if the pod does not name it).
func (r ResourceClaims) ownerUsage(claim *resourcev1.ResourceClaim) corev1.ResourceList {
	if r.Owners == nil || r.Pods == nil || claim.Annotations[resourcev1.ExtendedResourceClaimAnnotation] != "true" {
		return nil
	}
	ref := metav1.GetControllerOfNoCopy(claim)
	if ref == nil || ref.Kind != "Pod" || ref.APIVersion != "v1" {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), ownerLookupTimeout)
	defer cancel()
	pod, err := r.Owners.Pod(ctx, claim.Namespace, ref.Name)
	if err != nil || pod.UID != ref.UID {
		return nil
	}
	if s := pod.Status.ExtendedResourceClaimStatus; s != nil && s.ResourceClaimName != claim.Name {
		return nil
	}
	if pod.Status.ExtendedResourceClaimStatus == nil {
		owned, err := r.Owners.ClaimsOf(ctx, claim.Namespace, pod.UID)
		if err != nil {
			return nil
		}
		for _, other := range owned {
			switch other.CreationTimestamp.Time.Compare(claim.CreationTimestamp.Time) {
			case -1:
				return nil
			case 0:
				if other.Name < claim.Name {
					return nil
				}
			}
		}
	}
	usage, err := r.Pods.Usage(pod)
	if err != nil {
		return nil
	}
	return usage
}

// ownerLookupTimeout bounds the reads of a claim's owner.
const ownerLookupTimeout = 5 * time.Second

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

// ClaimOwnersFrom reads claims' owners through clients of the server.
type ClaimOwnersFrom struct {
	Pods   func(namespace string) PodGetter
	Claims func(namespace string) ClaimLister
}

// PodGetter reads a pod (client-go's typed PodInterface is one).
type PodGetter interface {
	Get(ctx context.Context, name string, opts metav1.GetOptions) (*corev1.Pod, error)
}

// ClaimLister lists claims (client-go's typed ResourceClaimInterface is
// one).
type ClaimLister interface {
	List(ctx context.Context, opts metav1.ListOptions) (*resourcev1.ResourceClaimList, error)
}

func (o ClaimOwnersFrom) Pod(ctx context.Context, namespace, name string) (*corev1.Pod, error) {
	return o.Pods(namespace).Get(ctx, name, metav1.GetOptions{})
}

// ClaimsOf are the extended-resource claims the pod is the controller of.
func (o ClaimOwnersFrom) ClaimsOf(ctx context.Context, namespace string, pod types.UID) ([]resourcev1.ResourceClaim, error) {
	list, err := o.Claims(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	var out []resourcev1.ResourceClaim
	for _, c := range list.Items {
		if c.Annotations[resourcev1.ExtendedResourceClaimAnnotation] != "true" {
			continue
		}
		if ref := metav1.GetControllerOfNoCopy(&c); ref != nil && ref.Kind == "Pod" && ref.APIVersion == "v1" && ref.UID == pod {
			out = append(out, c)
		}
	}
	return out, nil
}
