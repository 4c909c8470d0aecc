package core

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	resourcehelper "k8s.io/component-helpers/resource"
)

// DefaultPodLevelResources completes the pod-level resources of a new pod
// that states some, as kube-apiserver does on create: hugepage limits from
// the containers' total limits (unless requested), requests from the
// containers' total requests for resources that can be overcommitted and
// then from the pod's own limits, and limits from the containers' total
// limits (at least the request) where every container has one.
func DefaultPodLevelResources(pod *v1.Pod) {
	r := pod.Spec.Resources
	if r == nil || (len(r.Requests) == 0 && len(r.Limits) == 0) {
		return
	}
	// Ephemeral containers have no resources and count for nothing.
	containers := &v1.Pod{Spec: v1.PodSpec{Containers: pod.Spec.Containers, InitContainers: pod.Spec.InitContainers}}
	opts := resourcehelper.PodResourcesOptions{}

	limits := r.Limits
	if limits == nil {
		limits = v1.ResourceList{}
	}
	for name, q := range resourcehelper.AggregateContainerLimits(containers, opts) {
		if !resourcehelper.IsSupportedPodLevelResource(name) || !isHugePageResource(name) {
			continue
		}
		if _, requested := r.Requests[name]; requested {
			continue
		}
		if _, ok := limits[name]; !ok {
			limits[name] = q
		}
	}
	if len(limits) > 0 {
		r.Limits = limits
	}

	requests := r.Requests
	if requests == nil {
		requests = v1.ResourceList{}
	}
	for name, q := range resourcehelper.AggregateContainerRequests(containers, opts) {
		if _, ok := requests[name]; !ok && resourcehelper.IsSupportedPodLevelResource(name) && isOvercommitAllowed(name) {
			requests[name] = q
		}
	}
	for name, q := range r.Limits {
		if _, ok := requests[name]; !ok && resourcehelper.IsSupportedPodLevelResource(name) {
			requests[name] = q.DeepCopy()
		}
	}
	if len(requests) > 0 {
		r.Requests = requests
	}

	var candidates []v1.ResourceName
	for name := range r.Requests {
		if _, limited := r.Limits[name]; !limited && resourcehelper.IsSupportedPodLevelResource(name) && everyContainerLimits(pod, name) {
			candidates = append(candidates, name)
		}
	}
	if len(candidates) == 0 {
		return
	}
	total := resourcehelper.AggregateContainerLimits(containers, opts)
	for _, name := range candidates {
		limit, ok := total[name]
		if !ok {
			continue
		}
		if request := r.Requests[name]; request.Cmp(limit) > 0 {
			limit = request
		}
		if r.Limits == nil {
			r.Limits = v1.ResourceList{}
		}
		r.Limits[name] = limit
	}
}

// everyContainerLimits reports whether every container of the pod
// (ephemeral ones included, as kube-apiserver counts them) has a limit
// of name.
func everyContainerLimits(pod *v1.Pod, name v1.ResourceName) bool {
	all := true
	visitContainers(&pod.Spec, nil, func(c *v1.Container, _ *field.Path) {
		if _, ok := c.Resources.Limits[name]; !ok {
			all = false
		}
	})
	return all
}

// validatePodResourceConsistency checks pod-level resources against the
// containers': requests at least the containers' total, hugepage limits
// at least their total limits, and no container limit above the pod's.
func validatePodResourceConsistency(spec *v1.PodSpec, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	r := spec.Resources
	containers := &v1.Pod{Spec: v1.PodSpec{Containers: spec.Containers, InitContainers: spec.InitContainers, EphemeralContainers: spec.EphemeralContainers}}
	opts := resourcehelper.PodResourcesOptions{}
	totalRequests := resourcehelper.AggregateContainerRequests(containers, opts)
	for _, name := range sortedKeys(totalRequests) {
		request, ok := r.Requests[name]
		if total := totalRequests[name]; ok && total.Cmp(request) > 0 {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("requests").Key(string(name)), request.String(), fmt.Sprintf("must be greater than or equal to aggregate container requests of %s", total.String())))
		}
	}
	totalLimits := resourcehelper.AggregateContainerLimits(containers, opts)
	for _, name := range sortedKeys(totalLimits) {
		limit, ok := r.Limits[name]
		if total := totalLimits[name]; ok && isHugePageResource(name) && total.Cmp(limit) > 0 {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("limits").Key(string(name)), limit.String(), fmt.Sprintf("must be greater than or equal to aggregate container limits of %s", total.String())))
		}
	}
	for i, c := range spec.Containers {
		for _, name := range sortedKeys(c.Resources.Limits) {
			podLimit, ok := r.Limits[name]
			if limit := c.Resources.Limits[name]; ok && limit.Cmp(podLimit) > 0 {
				// kube-apiserver's path: containers[i][name].limits, below
				// the pod's resources.
				allErrs = append(allErrs, field.Invalid(fldPath.Child("containers").Index(i).Key(string(name)).Child("limits"), limit.String(), fmt.Sprintf("must be less than or equal to pod limits of %s", podLimit.String())))
			}
		}
	}
	return allErrs
}
