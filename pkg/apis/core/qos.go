package core

import (
	v1 "k8s.io/api/core/v1"
)

// qosResources are the resources that decide a pod's QoS class.
var qosResources = []v1.ResourceName{v1.ResourceCPU, v1.ResourceMemory}

// PodQOSClass computes the quality of service class of a pod from its
// resources, as the pod strategy records it in status.qosClass on create
// (it never changes afterwards):
//
//   - BestEffort: no cpu or memory requests or limits at all;
//   - Guaranteed: cpu and memory limits everywhere, equal to the requests;
//   - Burstable: anything in between.
//
// When the pod states pod-level cpu or memory resources, those decide.
func PodQOSClass(pod *v1.Pod) v1.PodQOSClass {
	requests, limits := v1.ResourceList{}, v1.ResourceList{}
	guaranteed := true
	if r := pod.Spec.Resources; r != nil && hasQOSResources(r) {
		addQOSResources(requests, r.Requests)
		addQOSResources(limits, r.Limits)
		guaranteed = len(limits) == len(qosResources)
	} else {
		for _, containers := range [][]v1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
			for _, c := range containers {
				addQOSResources(requests, c.Resources.Requests)
				if addQOSResources(limits, c.Resources.Limits) < len(qosResources) {
					guaranteed = false
				}
			}
		}
	}
	if len(requests) == 0 && len(limits) == 0 {
		return v1.PodQOSBestEffort
	}
	if guaranteed {
		for name, request := range requests {
			if limit, ok := limits[name]; !ok || limit.Cmp(request) != 0 {
				guaranteed = false
				break
			}
		}
	}
	if guaranteed && len(requests) == len(limits) {
		return v1.PodQOSGuaranteed
	}
	return v1.PodQOSBurstable
}

// addQOSResources adds the positive cpu and memory quantities of list to
// sum, and returns how many of the two list has.
func addQOSResources(sum, list v1.ResourceList) int {
	found := 0
	for _, name := range qosResources {
		q, ok := list[name]
		if !ok || q.Sign() <= 0 {
			continue
		}
		found++
		total := sum[name]
		total.Add(q)
		sum[name] = total
	}
	return found
}

func hasQOSResources(r *v1.ResourceRequirements) bool {
	for _, name := range qosResources {
		if _, ok := r.Requests[name]; ok {
			return true
		}
		if _, ok := r.Limits[name]; ok {
			return true
		}
	}
	return false
}
