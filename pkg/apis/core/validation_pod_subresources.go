package core

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ValidatePodEphemeralContainersUpdate checks a write of
// pods/ephemeralcontainers as kube-apiserver does: the pod must still be
// valid, ephemeral containers may be added but existing ones neither
// removed nor changed, and static pods take none.
func ValidatePodEphemeralContainersUpdate(newPod, oldPod *v1.Pod) field.ErrorList {
	allErrs := ValidateObjectMetaUpdate(&newPod.ObjectMeta, &oldPod.ObjectMeta, metadataPath)
	allErrs = append(allErrs, validatePodMetadataAndSpec(newPod, PodValidationOptionsFor(&oldPod.Spec, &oldPod.ObjectMeta))...)
	allErrs = append(allErrs, validatePodAnnotationUpdates(newPod, oldPod, metadataPath.Child("annotations"))...)
	if _, ok := oldPod.Annotations[v1.MirrorPodAnnotationKey]; ok {
		return field.ErrorList{field.Forbidden(field.NewPath(""), "static pods do not support ephemeral containers")}
	}
	path := specPath.Child("ephemeralContainers")
	byName := map[string]*v1.EphemeralContainer{}
	for i := range newPod.Spec.EphemeralContainers {
		byName[newPod.Spec.EphemeralContainers[i].Name] = &newPod.Spec.EphemeralContainers[i]
	}
	for _, old := range oldPod.Spec.EphemeralContainers {
		updated, ok := byName[old.Name]
		switch {
		case !ok:
			allErrs = append(allErrs, field.Forbidden(path, fmt.Sprintf("existing ephemeral containers %q may not be removed\n", old.Name)))
		case !apiequality.Semantic.DeepEqual(old, *updated):
			allErrs = append(allErrs, field.Forbidden(path, fmt.Sprintf("existing ephemeral containers %q may not be changed\n%v", old.Name, internalDiff(old, *updated))))
		}
	}
	return allErrs
}

// ValidatePodResize checks a write of pods/resize as kube-apiserver 1.37
// does (in-place resize of init containers GA, of pod-level resources
// beta, of memory-backed volumes off): the pod must still be valid,
// static and Windows pods cannot be resized, the QoS class must stay,
// containers are neither added, removed, renamed nor reordered, requests
// and limits are not removed, and only cpu and memory change.
func ValidatePodResize(newPod, oldPod *v1.Pod) field.ErrorList {
	allErrs := ValidateObjectMetaUpdate(&newPod.ObjectMeta, &oldPod.ObjectMeta, metadataPath)
	allErrs = append(allErrs, validatePodMetadataAndSpec(newPod, PodValidationOptionsFor(&oldPod.Spec, &oldPod.ObjectMeta))...)
	if _, ok := oldPod.Annotations[v1.MirrorPodAnnotationKey]; ok {
		return field.ErrorList{field.Forbidden(field.NewPath(""), "static pods cannot be resized")}
	}
	if oldPod.Spec.OS != nil && oldPod.Spec.OS.Name == v1.Windows {
		return field.ErrorList{field.Forbidden(field.NewPath(""), "windows pods cannot be resized")}
	}
	oldQOS := oldPod.Status.QOSClass
	if oldQOS == "" {
		oldQOS = PodQOSClass(oldPod)
	}
	if oldQOS != PodQOSClass(newPod) {
		allErrs = append(allErrs, field.Invalid(specPath, newPod.Status.QOSClass, "Pod QOS Class may not change as a result of resizing"))
	}
	if !resizeSupported(oldPod) {
		allErrs = append(allErrs, field.Forbidden(specPath, "Pod running on node without support for resize"))
	}

	spec := *newPod.Spec.DeepCopy()
	podLevel := func(p *v1.Pod) bool {
		return p.Spec.Resources != nil && len(p.Spec.Resources.Requests)+len(p.Spec.Resources.Limits) > 0
	}
	if podLevel(oldPod) || podLevel(newPod) {
		allErrs = append(allErrs, validatePodLevelResize(newPod, oldPod, &spec)...)
	}

	orderErrs := validateResizeOrdering(newPod, oldPod)
	allErrs = append(allErrs, orderErrs...)
	if orderErrs != nil {
		return allErrs
	}
	for i := range oldPod.Spec.InitContainers {
		allErrs = append(allErrs, validateResourcesNotRemoved(&newPod.Spec.InitContainers[i].Resources, &oldPod.Spec.InitContainers[i].Resources, specPath.Child("initContainers").Index(i).Child("resources"))...)
	}
	for i := range oldPod.Spec.Containers {
		allErrs = append(allErrs, validateResourcesNotRemoved(&newPod.Spec.Containers[i].Resources, &oldPod.Spec.Containers[i].Resources, specPath.Child("containers").Index(i).Child("resources"))...)
	}

	for i := range spec.Containers {
		c := &spec.Containers[i]
		keepOldCPUMemory(c, &oldPod.Spec.Containers[i])
		if !apiequality.Semantic.DeepEqual(*c, oldPod.Spec.Containers[i]) {
			allErrs = append(allErrs, field.Forbidden(specPath, "only cpu and memory resources are mutable"))
		}
	}
	for i := range spec.InitContainers {
		c := &spec.InitContainers[i]
		old := &oldPod.Spec.InitContainers[i]
		modified := !apiequality.Semantic.DeepEqual(*c, *old)
		sidecar := c.RestartPolicy != nil && *c.RestartPolicy == v1.ContainerRestartPolicyAlways
		keepOldCPUMemory(c, old)
		if !apiequality.Semantic.DeepEqual(*c, *old) {
			allErrs = append(allErrs, field.Forbidden(specPath.Child("initContainers").Index(i), "only cpu and memory resources for init or sidecar containers are mutable"))
		}
		if modified && !sidecar {
			for _, p := range c.ResizePolicy {
				if p.RestartPolicy == v1.RestartContainer {
					allErrs = append(allErrs, field.Forbidden(specPath.Child("initContainers").Index(i), "non-sidecar init containers with a resize policy of RestartContainer cannot be resized"))
				}
			}
		}
	}
	if !apiequality.Semantic.DeepEqual(newPod.Spec.Volumes, oldPod.Spec.Volumes) {
		allErrs = append(allErrs, field.Forbidden(specPath.Child("volumes"), "volumes are immutable on resize when InPlacePodVerticalScalingMemoryBackedVolumes feature gate is disabled"))
	}
	if len(allErrs) > 0 {
		return allErrs
	}
	if !apiequality.Semantic.DeepEqual(spec, oldPod.Spec) {
		allErrs = append(allErrs, field.Forbidden(specPath, "only cpu and memory resources are mutable"))
	}
	return allErrs
}

// resizeSupported: a pod whose first running container reports no
// resources runs on a kubelet that cannot resize.
func resizeSupported(pod *v1.Pod) bool {
	for _, c := range pod.Status.ContainerStatuses {
		if c.State.Running != nil {
			return c.Resources != nil
		}
	}
	return true
}

func validateResizeOrdering(newPod, oldPod *v1.Pod) field.ErrorList {
	var allErrs field.ErrorList
	for _, kind := range []struct {
		name     string
		new, old []v1.Container
	}{{"containers", newPod.Spec.Containers, oldPod.Spec.Containers}, {"initContainers", newPod.Spec.InitContainers, oldPod.Spec.InitContainers}} {
		if len(kind.new) != len(kind.old) {
			allErrs = append(allErrs, field.Forbidden(specPath.Child(kind.name), kind.name+" may not be added or removed on resize"))
			continue
		}
		for i := range kind.old {
			if kind.new[i].Name != kind.old[i].Name {
				allErrs = append(allErrs, field.Forbidden(specPath.Child(kind.name).Index(i).Child("name"), kind.name+" may not be renamed or reordered on resize"))
			}
		}
	}
	return allErrs
}

func validateResourcesNotRemoved(r, old *v1.ResourceRequirements, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if resourcesRemoved(r.Requests, old.Requests) {
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("requests"), "resource requests cannot be removed"))
	}
	if resourcesRemoved(r.Limits, old.Limits) {
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("limits"), "resource limits cannot be removed"))
	}
	return allErrs
}

func resourcesRemoved(list, old v1.ResourceList) bool {
	for name := range old {
		if _, ok := list[name]; !ok {
			return true
		}
	}
	return false
}

// keepOldCPUMemory puts the old cpu and memory of a container back, so
// that what remains different is what a resize may not change.
func keepOldCPUMemory(c, old *v1.Container) {
	c.Resources = v1.ResourceRequirements{
		Limits:   withOldCPUMemory(c.Resources.Limits, old.Resources.Limits),
		Requests: withOldCPUMemory(c.Resources.Requests, old.Resources.Requests),
		Claims:   c.Resources.Claims,
	}
}

func withOldCPUMemory(list, old v1.ResourceList) v1.ResourceList {
	if list == nil && old == nil {
		return nil
	}
	out := v1.ResourceList{}
	for k, v := range list {
		out[k] = v
	}
	delete(out, v1.ResourceCPU)
	delete(out, v1.ResourceMemory)
	for _, name := range []v1.ResourceName{v1.ResourceCPU, v1.ResourceMemory} {
		if q, ok := old[name]; ok {
			out[name] = q
		}
	}
	return out
}

// validatePodLevelResize checks a resize of pod-level resources and
// puts their old cpu and memory back in spec.
func validatePodLevelResize(newPod, oldPod *v1.Pod, spec *v1.PodSpec) field.ErrorList {
	var allErrs field.ErrorList
	if oldPod.Spec.Resources != nil && newPod.Spec.Resources == nil {
		return append(allErrs, field.Forbidden(specPath.Child("resources"), "pod-level resources cannot be removed"))
	}
	if oldPod.Spec.Resources != nil {
		if resourcesRemoved(newPod.Spec.Resources.Requests, oldPod.Spec.Resources.Requests) {
			allErrs = append(allErrs, field.Forbidden(specPath.Child("resources").Child("requests"), "pod-level resource requests cannot be removed"))
		}
		if resourcesRemoved(newPod.Spec.Resources.Limits, oldPod.Spec.Resources.Limits) {
			allErrs = append(allErrs, field.Forbidden(specPath.Child("resources").Child("limits"), "pod-level resource limits cannot be removed"))
		}
	}
	if r := spec.Resources; r != nil {
		var oldReqs, oldLims v1.ResourceList
		if oldPod.Spec.Resources != nil {
			oldReqs, oldLims = oldPod.Spec.Resources.Requests, oldPod.Spec.Resources.Limits
		}
		r.Requests = withOldCPUMemory(r.Requests, oldReqs)
		r.Limits = withOldCPUMemory(r.Limits, oldLims)
		if oldPod.Spec.Resources == nil && len(r.Requests) == 0 && len(r.Limits) == 0 && len(r.Claims) == 0 {
			spec.Resources = nil
		}
	}
	if !apiequality.Semantic.DeepEqual(spec.Resources, oldPod.Spec.Resources) {
		allErrs = append(allErrs, field.Forbidden(specPath, "only cpu and memory resources are mutable at pod-level"))
	}
	return allErrs
}
