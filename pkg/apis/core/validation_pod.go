package core

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metavalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// podSpecContext says where a pod spec being validated lives.
type podSpecContext struct {
	// isPod is true for a Pod's own spec, false for a template's. Some
	// fields only have to be complete once a pod exists (host ports of
	// host-network pods, image volume references).
	isPod bool
	// podMeta is the metadata of the pod, used to name the claims of
	// ephemeral volumes; nil for templates.
	podMeta *metav1.ObjectMeta
	// opts are the rules an update tolerates because the old object
	// already broke them.
	opts PodValidationOptions
}

// ValidatePod validates a Pod on create.
func ValidatePod(pod *v1.Pod) field.ErrorList {
	allErrs := validatePodMetadataAndSpec(pod, PodValidationOptions{})
	// Ephemeral containers are only added through their own subresource.
	if len(pod.Spec.EphemeralContainers) > 0 {
		allErrs = append(allErrs, field.Forbidden(specPath.Child("ephemeralContainers"), "cannot be set on create"))
	}
	if pod.Spec.NodeName != "" && len(pod.Spec.SchedulingGates) > 0 {
		allErrs = append(allErrs, field.Forbidden(specPath.Child("nodeName"), "cannot be set until all schedulingGates have been cleared"))
	}
	return allErrs
}

// validatePodMetadataAndSpec holds the checks a pod passes both on create
// and on every update; an update passes the options of the old pod.
func validatePodMetadataAndSpec(pod *v1.Pod, opts PodValidationOptions) field.ErrorList {
	allErrs := ValidateObjectMeta(&pod.ObjectMeta, true, apivalidation.NameIsDNSSubdomain, metadataPath)
	allErrs = append(allErrs, validatePodAnnotations(pod.Annotations, &pod.Spec, opts.AllowInvalidDeletionCost, metadataPath.Child("annotations"))...)
	allErrs = append(allErrs, validatePodSpec(&pod.Spec, specPath, podSpecContext{isPod: true, podMeta: &pod.ObjectMeta, opts: opts})...)

	// A projected service account token needs an account to be issued for.
	if pod.Spec.ServiceAccountName == "" {
		for i, vol := range pod.Spec.Volumes {
			if vol.Projected == nil {
				continue
			}
			for j, source := range vol.Projected.Sources {
				if source.ServiceAccountToken != nil {
					path := specPath.Child("volumes").Index(i).Child("projected", "sources").Index(j).Child("serviceAccountToken")
					allErrs = append(allErrs, field.Forbidden(path, "must not be specified when serviceAccountName is not set"))
				}
			}
		}
	}
	// Templates tolerate images padded with spaces (some tools use " " as a
	// placeholder to be filled in); pods must not have them.
	allErrs = append(allErrs, validateImagesNotPadded(pod.Spec.Containers, specPath.Child("containers"))...)
	return append(allErrs, validateImagesNotPadded(pod.Spec.InitContainers, specPath.Child("initContainers"))...)
}

func validateImagesNotPadded(containers []v1.Container, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for i, c := range containers {
		allErrs = append(allErrs, validateImageNotPadded(c.Image, fldPath.Index(i).Child("image"))...)
	}
	return allErrs
}

func validateImageNotPadded(image string, fldPath *field.Path) field.ErrorList {
	if strings.TrimSpace(image) != image {
		return field.ErrorList{field.Invalid(fldPath, image, "must not have leading or trailing whitespace")}
	}
	return nil
}

// Annotations with a meaning for pods.
const (
	seccompPodAnnotation             = "seccomp.security.alpha.kubernetes.io/pod"
	seccompContainerAnnotationPrefix = "container.seccomp.security.alpha.kubernetes.io/"
	appArmorAnnotationPrefix         = "container.apparmor.security.beta.kubernetes.io/"
)

// validatePodAnnotations validates the annotations that mean something to
// a pod (or a pod template).
func validatePodAnnotations(annotations map[string]string, spec *v1.PodSpec, allowInvalidDeletionCost bool, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if value, isMirror := annotations[v1.MirrorPodAnnotationKey]; isMirror && spec.NodeName == "" {
		allErrs = append(allErrs, field.Invalid(fldPath.Key(v1.MirrorPodAnnotationKey), value, "must set spec.nodeName if mirror pod annotation is set"))
	}
	if !allowInvalidDeletionCost && !validDeletionCost(annotations) {
		allErrs = append(allErrs, field.Invalid(fldPath.Key(v1.PodDeletionCost), annotations[v1.PodDeletionCost], "must be a 32bit integer"))
	}
	for _, key := range sortedKeys(annotations) {
		value := annotations[key]
		switch {
		case key == seccompPodAnnotation || strings.HasPrefix(key, seccompContainerAnnotationPrefix):
			allErrs = append(allErrs, validateSeccompAnnotation(value, fldPath.Child(key))...)
		case strings.HasPrefix(key, appArmorAnnotationPrefix):
			container := strings.TrimPrefix(key, appArmorAnnotationPrefix)
			if !specHasContainer(spec, container) {
				allErrs = append(allErrs, field.Invalid(fldPath.Key(key), container, "container not found"))
			}
			if value != "" && value != "runtime/default" && value != "unconfined" && !strings.HasPrefix(value, "localhost/") {
				allErrs = append(allErrs, field.Invalid(fldPath.Key(key), value, fmt.Sprintf("invalid AppArmor profile name: %q", value)))
			}
		}
	}
	return allErrs
}

// validDeletionCost reports whether the pod deletion cost annotation, if
// any, is a 32-bit integer.
func validDeletionCost(annotations map[string]string) bool {
	cost, ok := annotations[v1.PodDeletionCost]
	if !ok {
		return true
	}
	_, err := strconv.ParseInt(cost, 10, 32)
	return err == nil
}

// validateSeccompAnnotation validates the deprecated seccomp annotations.
func validateSeccompAnnotation(profile string, fldPath *field.Path) field.ErrorList {
	switch {
	case profile == "runtime/default", profile == "docker/default", profile == "unconfined":
		return nil
	case strings.HasPrefix(profile, "localhost/"):
		return validateLocalDescendingPath(strings.TrimPrefix(profile, "localhost/"), fldPath)
	}
	return field.ErrorList{field.Invalid(fldPath, profile, "must be a valid seccomp profile")}
}

func specHasContainer(spec *v1.PodSpec, name string) bool {
	found := false
	visitContainers(spec, specPath, func(c *v1.Container, _ *field.Path) {
		found = found || c.Name == name
	})
	return found
}

// visitContainers calls fn for every init, regular and ephemeral container
// of spec, with the container's path.
func visitContainers(spec *v1.PodSpec, fldPath *field.Path, fn func(*v1.Container, *field.Path)) {
	for i := range spec.InitContainers {
		fn(&spec.InitContainers[i], fldPath.Child("initContainers").Index(i))
	}
	for i := range spec.Containers {
		fn(&spec.Containers[i], fldPath.Child("containers").Index(i))
	}
	for i := range spec.EphemeralContainers {
		fn((*v1.Container)(&spec.EphemeralContainers[i].EphemeralContainerCommon), fldPath.Child("ephemeralContainers").Index(i))
	}
}

// ValidatePodTemplateSpec validates the pod template of a workload
// (Deployment, ReplicaSet, ...), at fldPath.
func ValidatePodTemplateSpec(template *v1.PodTemplateSpec, fldPath *field.Path) field.ErrorList {
	return ValidatePodTemplateSpecWithOptions(template, fldPath, PodValidationOptions{})
}

// ValidatePodTemplateSpecWithOptions validates a pod template with the
// options of an update (PodTemplateValidationOptions of the old template).
func ValidatePodTemplateSpecWithOptions(template *v1.PodTemplateSpec, fldPath *field.Path, opts PodValidationOptions) field.ErrorList {
	allErrs := metavalidation.ValidateLabels(template.Labels, fldPath.Child("labels"))
	allErrs = append(allErrs, apivalidation.ValidateAnnotations(template.Annotations, fldPath.Child("annotations"))...)
	allErrs = append(allErrs, validatePodAnnotations(template.Annotations, &template.Spec, opts.AllowInvalidDeletionCost, fldPath.Child("annotations"))...)
	allErrs = append(allErrs, validatePodSpec(&template.Spec, fldPath.Child("spec"), podSpecContext{opts: opts})...)
	if len(template.Spec.EphemeralContainers) > 0 {
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("spec", "ephemeralContainers"), "ephemeral containers not allowed in pod template"))
	}
	return allErrs
}

// validatePodSpec validates a pod spec, wherever it lives. The order of the
// checks is kube-apiserver's, so that errors are listed in the same order.
func validatePodSpec(spec *v1.PodSpec, fldPath *field.Path, ctx podSpecContext) field.ErrorList {
	var allErrs field.ErrorList
	if spec.TerminationGracePeriodSeconds == nil {
		allErrs = append(allErrs, field.Required(fldPath.Child("terminationGracePeriodSeconds"), ""))
	}
	// hostUsers defaults to true: only an explicit false opts out.
	hostUsers := spec.HostUsers == nil || *spec.HostUsers

	volumes, volErrs := validateVolumes(spec.Volumes, ctx, fldPath.Child("volumes"))
	allErrs = append(allErrs, volErrs...)
	claims := podClaimNames(spec.ResourceClaims)
	allErrs = append(allErrs, validatePodResourceClaims(spec.ResourceClaims, fldPath.Child("resourceClaims"))...)
	cc := containerContext{volumes: volumes, podClaims: claims, gracePeriod: spec.TerminationGracePeriodSeconds, restartPolicy: spec.RestartPolicy, hostUsers: hostUsers, allowIndivisibleHugePages: ctx.opts.AllowIndivisibleHugePages, allowSysAdminWithoutEscalation: ctx.opts.AllowSysAdminWithoutEscalation}
	allErrs = append(allErrs, validateContainers(spec.Containers, cc, fldPath.Child("containers"))...)
	allErrs = append(allErrs, validateInitContainers(spec.InitContainers, spec.Containers, cc, fldPath.Child("initContainers"))...)
	allErrs = append(allErrs, validateEphemeralContainers(spec.EphemeralContainers, spec.Containers, spec.InitContainers, cc, fldPath.Child("ephemeralContainers"))...)
	allErrs = append(allErrs, validatePodResources(spec.Resources, fldPath.Child("resources"))...)
	if spec.Resources != nil {
		allErrs = append(allErrs, validatePodResourceConsistency(spec, fldPath.Child("resources"))...)
	}
	allErrs = append(allErrs, validateHostNetworkPorts(spec, ctx, fldPath)...)
	allErrs = append(allErrs, validateRestartPolicy(spec.RestartPolicy, fldPath.Child("restartPolicy"))...)
	allErrs = append(allErrs, validateDNSPolicy(spec.DNSPolicy, fldPath.Child("dnsPolicy"))...)
	allErrs = append(allErrs, metavalidation.ValidateLabels(spec.NodeSelector, fldPath.Child("nodeSelector"))...)
	allErrs = append(allErrs, validatePodSecurityContext(spec, ctx.opts, fldPath, fldPath.Child("securityContext"))...)
	allErrs = append(allErrs, validateImagePullSecrets(spec.ImagePullSecrets, fldPath.Child("imagePullSecrets"))...)
	allErrs = append(allErrs, validateAffinity(spec.Affinity, ctx.opts, fldPath.Child("affinity"))...)
	allErrs = append(allErrs, validatePodDNSConfig(spec.DNSConfig, spec.DNSPolicy, fldPath.Child("dnsConfig"))...)
	allErrs = append(allErrs, validateReadinessGates(spec.ReadinessGates, fldPath.Child("readinessGates"))...)
	allErrs = append(allErrs, validateSchedulingGates(spec.SchedulingGates, fldPath.Child("schedulingGates"))...)
	allErrs = append(allErrs, validateTopologySpreadConstraints(spec.TopologySpreadConstraints, ctx.opts, fldPath.Child("topologySpreadConstraints"))...)
	allErrs = append(allErrs, validateHostUsers(spec, fldPath)...)
	if spec.ServiceAccountName != "" {
		allErrs = append(allErrs, validateName(apivalidation.ValidateServiceAccountName, spec.ServiceAccountName, fldPath.Child("serviceAccountName"))...)
	}
	if spec.NodeName != "" {
		allErrs = append(allErrs, validateName(apivalidation.NameIsDNSSubdomain, spec.NodeName, fldPath.Child("nodeName"))...)
	}
	if d := spec.ActiveDeadlineSeconds; d != nil && (*d < 1 || *d > math.MaxInt32) {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("activeDeadlineSeconds"), *d, validation.InclusiveRangeError(1, math.MaxInt32)))
	}
	if spec.Hostname != "" {
		allErrs = append(allErrs, validateDNS1123Label(spec.Hostname, fldPath.Child("hostname"))...)
	}
	if spec.Subdomain != "" {
		allErrs = append(allErrs, validateDNS1123Label(spec.Subdomain, fldPath.Child("subdomain"))...)
	}
	allErrs = append(allErrs, validateTolerations(spec.Tolerations, fldPath.Child("tolerations"))...)
	allErrs = append(allErrs, validateHostAliases(spec.HostAliases, fldPath.Child("hostAliases"))...)
	if spec.PriorityClassName != "" {
		allErrs = append(allErrs, validateName(apivalidation.NameIsDNSSubdomain, spec.PriorityClassName, fldPath.Child("priorityClassName"))...)
	}
	if spec.RuntimeClassName != nil {
		allErrs = append(allErrs, validateName(apivalidation.NameIsDNSSubdomain, *spec.RuntimeClassName, fldPath.Child("runtimeClassName"))...)
	}
	if spec.PreemptionPolicy != nil {
		allErrs = append(allErrs, validatePreemptionPolicy(*spec.PreemptionPolicy, fldPath.Child("preemptionPolicy"))...)
	}
	if spec.Overhead != nil {
		allErrs = append(allErrs, validateResourceRequirements(&v1.ResourceRequirements{Limits: spec.Overhead}, nil, ctx.opts.AllowIndivisibleHugePages, fldPath.Child("overhead"))...)
	}
	return append(allErrs, validatePodOS(spec, fldPath)...)
}

// validateHostNetworkPorts requires host-network pods to expose container
// ports on the same host port. Templates may leave the host port unset: it
// is defaulted when their pods are created.
func validateHostNetworkPorts(spec *v1.PodSpec, ctx podSpecContext, fldPath *field.Path) field.ErrorList {
	if !spec.HostNetwork {
		return nil
	}
	var allErrs field.ErrorList
	for i, c := range spec.Containers {
		for j, port := range c.Ports {
			if (ctx.isPod || port.HostPort != 0) && port.HostPort != port.ContainerPort {
				path := fldPath.Child("containers").Index(i).Child("ports").Index(j).Child("hostPort")
				allErrs = append(allErrs, field.Invalid(path, port.HostPort, "must match `containerPort` when `hostNetwork` is true"))
			}
		}
	}
	return allErrs
}

func validateRestartPolicy(policy v1.RestartPolicy, fldPath *field.Path) field.ErrorList {
	switch policy {
	case v1.RestartPolicyAlways, v1.RestartPolicyOnFailure, v1.RestartPolicyNever:
		return nil
	case "":
		return field.ErrorList{field.Required(fldPath, "")}
	}
	return field.ErrorList{field.NotSupported(fldPath, policy, []v1.RestartPolicy{v1.RestartPolicyAlways, v1.RestartPolicyOnFailure, v1.RestartPolicyNever})}
}

func validateDNSPolicy(policy v1.DNSPolicy, fldPath *field.Path) field.ErrorList {
	switch policy {
	case v1.DNSClusterFirstWithHostNet, v1.DNSClusterFirst, v1.DNSDefault, v1.DNSNone:
		return nil
	case "":
		return field.ErrorList{field.Required(fldPath, "")}
	}
	return field.ErrorList{field.NotSupported(fldPath, policy, []v1.DNSPolicy{v1.DNSClusterFirstWithHostNet, v1.DNSClusterFirst, v1.DNSDefault, v1.DNSNone})}
}

func validatePreemptionPolicy(policy v1.PreemptionPolicy, fldPath *field.Path) field.ErrorList {
	switch policy {
	case v1.PreemptLowerPriority, v1.PreemptNever:
		return nil
	case "":
		return field.ErrorList{field.Required(fldPath, "")}
	}
	return field.ErrorList{field.NotSupported(fldPath, policy, []v1.PreemptionPolicy{v1.PreemptLowerPriority, v1.PreemptNever})}
}

// validateImagePullSecrets only allows the name of a pull secret to be set.
func validateImagePullSecrets(secrets []v1.LocalObjectReference, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for i, secret := range secrets {
		if secret != (v1.LocalObjectReference{Name: secret.Name}) {
			allErrs = append(allErrs, field.Invalid(fldPath.Index(i), secret, "only name may be set"))
		}
	}
	return allErrs
}

func validateReadinessGates(gates []v1.PodReadinessGate, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for i, gate := range gates {
		allErrs = append(allErrs, validateQualifiedName(string(gate.ConditionType), fldPath.Index(i).Child("conditionType"))...)
	}
	return allErrs
}

func validateSchedulingGates(gates []v1.PodSchedulingGate, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	seen := sets.New[string]()
	for i, gate := range gates {
		allErrs = append(allErrs, validateQualifiedName(gate.Name, fldPath.Index(i))...)
		if seen.Has(gate.Name) {
			allErrs = append(allErrs, field.Duplicate(fldPath.Index(i), gate.Name))
		}
		seen.Insert(gate.Name)
	}
	return allErrs
}

// validateHostUsers forbids sharing host namespaces with a pod that runs in
// its own user namespace.
func validateHostUsers(spec *v1.PodSpec, fldPath *field.Path) field.ErrorList {
	if spec.HostUsers == nil || *spec.HostUsers {
		return nil
	}
	var allErrs field.ErrorList
	const detail = "when `pod.Spec.HostUsers` is false"
	if spec.HostNetwork {
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("hostNetwork"), detail))
	}
	if spec.HostPID {
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("HostPID"), detail))
	}
	if spec.HostIPC {
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("HostIPC"), detail))
	}
	return allErrs
}

func podClaimNames(claims []v1.PodResourceClaim) sets.Set[string] {
	names := sets.New[string]()
	for _, claim := range claims {
		if claim.Name != "" {
			names.Insert(claim.Name)
		}
	}
	return names
}

// validatePodResourceClaims checks that each claim has a unique name and
// refers to exactly one claim or claim template.
func validatePodResourceClaims(claims []v1.PodResourceClaim, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	seen := sets.New[string]()
	for i, claim := range claims {
		idxPath := fldPath.Index(i)
		switch {
		case claim.Name == "":
			allErrs = append(allErrs, field.Required(idxPath.Child("name"), ""))
		case seen.Has(claim.Name):
			allErrs = append(allErrs, field.Duplicate(idxPath.Child("name"), claim.Name))
		default:
			allErrs = append(allErrs, validateDNS1123Label(claim.Name, idxPath.Child("name"))...)
			seen.Insert(claim.Name)
		}
		switch {
		case claim.ResourceClaimName != nil && claim.ResourceClaimTemplateName != nil:
			allErrs = append(allErrs, field.Invalid(idxPath, claim, "at most one of `resourceClaimName` or `resourceClaimTemplateName` may be specified"))
		case claim.ResourceClaimName == nil && claim.ResourceClaimTemplateName == nil:
			allErrs = append(allErrs, field.Invalid(idxPath, claim, "must specify one of: `resourceClaimName`, `resourceClaimTemplateName`"))
		}
		if claim.ResourceClaimName != nil {
			allErrs = append(allErrs, validateName(apivalidation.NameIsDNSSubdomain, *claim.ResourceClaimName, idxPath.Child("resourceClaimName"))...)
		}
		if claim.ResourceClaimTemplateName != nil {
			allErrs = append(allErrs, validateName(apivalidation.NameIsDNSSubdomain, *claim.ResourceClaimTemplateName, idxPath.Child("resourceClaimTemplateName"))...)
		}
	}
	return allErrs
}

// podLevelResources are the resources a pod as a whole may request,
// besides huge pages.
var podLevelResources = []v1.ResourceName{v1.ResourceCPU, v1.ResourceMemory}

// validatePodResources validates pod-level resources: names, quantities
// and requests within limits. How they relate to the containers' own
// resources is not checked yet.
func validatePodResources(r *v1.ResourceRequirements, fldPath *field.Path) field.ErrorList {
	if r == nil {
		return nil
	}
	var allErrs field.ErrorList
	if r.Claims != nil {
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("claims"), "claims cannot be set for Resources at pod-level"))
	}
	for _, list := range []struct {
		path  *field.Path
		items v1.ResourceList
	}{{fldPath.Child("limits"), r.Limits}, {fldPath.Child("requests"), r.Requests}} {
		for _, name := range sortedKeys(list.items) {
			path := list.path.Key(string(name))
			if errs := validateResourceName(name, path); len(errs) > 0 {
				allErrs = append(allErrs, errs...)
			} else if !isHugePageResource(name) && !slices.Contains(podLevelResources, name) {
				allErrs = append(allErrs, field.NotSupported(path, name, slices.Concat(podLevelResources, []v1.ResourceName{v1.ResourceHugePagesPrefix + "*"})))
			}
			allErrs = append(allErrs, validateResourceQuantity(name, list.items[name], path)...)
		}
	}
	for _, name := range sortedKeys(r.Requests) {
		q := r.Requests[name]
		if limit, ok := r.Limits[name]; ok && q.Cmp(limit) > 0 {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("requests"), q.String(), fmt.Sprintf("must be less than or equal to %s limit of %s", name, limit.String())))
		}
	}
	return allErrs
}

// updatablePodSpecFields are listed in the error of a forbidden pod update.
var updatablePodSpecFields = []string{
	"`spec.containers[*].image`",
	"`spec.initContainers[*].image`",
	"`spec.activeDeadlineSeconds`",
	"`spec.tolerations` (only additions to existing tolerations)",
	"`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)",
}

// ValidatePodUpdate validates an update of a Pod. A pod's spec is all but
// immutable: only container images, a shorter active deadline, added
// tolerations, removed scheduling gates and, for gated pods, added node
// constraints may change.
func ValidatePodUpdate(newPod, oldPod *v1.Pod) field.ErrorList {
	allErrs := ValidateObjectMetaUpdate(&newPod.ObjectMeta, &oldPod.ObjectMeta, metadataPath)
	allErrs = append(allErrs, validatePodMetadataAndSpec(newPod, PodValidationOptionsFor(&oldPod.Spec, &oldPod.ObjectMeta))...)
	// Annotations are validated a second time here, as kube-apiserver does.
	allErrs = append(allErrs, validatePodAnnotationUpdates(newPod, oldPod, metadataPath.Child("annotations"))...)

	errs, stop := validateContainerUpdates(newPod.Spec.Containers, oldPod.Spec.Containers, specPath.Child("containers"))
	allErrs = append(allErrs, errs...)
	if stop {
		return allErrs
	}
	errs, stop = validateContainerUpdates(newPod.Spec.InitContainers, oldPod.Spec.InitContainers, specPath.Child("initContainers"))
	allErrs = append(allErrs, errs...)
	if stop {
		return allErrs
	}

	deadlinePath := specPath.Child("activeDeadlineSeconds")
	if d := newPod.Spec.ActiveDeadlineSeconds; d != nil {
		if *d < 0 || *d > math.MaxInt32 {
			return append(allErrs, field.Invalid(deadlinePath, *d, validation.InclusiveRangeError(0, math.MaxInt32)))
		}
		if old := oldPod.Spec.ActiveDeadlineSeconds; old != nil && *old < *d {
			return append(allErrs, field.Invalid(deadlinePath, *d, "must be less than or equal to previous value"))
		}
	} else if oldPod.Spec.ActiveDeadlineSeconds != nil {
		allErrs = append(allErrs, field.Invalid(deadlinePath, newPod.Spec.ActiveDeadlineSeconds, "must not update from a positive integer to nil value"))
	}
	allErrs = append(allErrs, validateOnlyAddedTolerations(newPod.Spec.Tolerations, oldPod.Spec.Tolerations, specPath.Child("tolerations"))...)
	allErrs = append(allErrs, validateOnlyDeletedSchedulingGates(newPod.Spec.SchedulingGates, oldPod.Spec.SchedulingGates, specPath.Child("schedulingGates"))...)

	if apiequality.Semantic.DeepEqual(newPod.Spec, oldPod.Spec) {
		return allErrs
	}
	munged, errs := mungeUpdatablePodSpecFields(&newPod.Spec, &oldPod.Spec)
	allErrs = append(allErrs, errs...)
	if !apiequality.Semantic.DeepEqual(*munged, oldPod.Spec) {
		// The diff is for humans; its exact format is go-cmp's.
		diff := cmp.Diff(oldPod.Spec, *munged)
		allErrs = append(allErrs, field.Forbidden(specPath, fmt.Sprintf("pod updates may not change fields other than %s\n%v", strings.Join(updatablePodSpecFields, ","), diff)))
	}
	return allErrs
}

// mungeUpdatablePodSpecFields returns a copy of newSpec in which the fields
// an update may change are reset to their old values, so that any remaining
// difference is a forbidden change. Node constraints added to a gated pod
// are checked here too.
func mungeUpdatablePodSpecFields(newSpec, oldSpec *v1.PodSpec) (*v1.PodSpec, field.ErrorList) {
	munged := newSpec.DeepCopy()
	for i := range munged.Containers {
		munged.Containers[i].Image = oldSpec.Containers[i].Image
	}
	for i := range munged.InitContainers {
		munged.InitContainers[i].Image = oldSpec.InitContainers[i].Image
	}
	munged.ActiveDeadlineSeconds = oldSpec.ActiveDeadlineSeconds
	munged.SchedulingGates = oldSpec.SchedulingGates
	munged.Tolerations = oldSpec.Tolerations
	// A negative grace period (from old clients) may be fixed up to 1.
	if old := oldSpec.TerminationGracePeriodSeconds; old != nil && *old < 0 && munged.TerminationGracePeriodSeconds != nil && *munged.TerminationGracePeriodSeconds == 1 {
		munged.TerminationGracePeriodSeconds = old
	}

	var allErrs field.ErrorList
	if len(oldSpec.SchedulingGates) > 0 {
		// A pod that is not scheduled yet may get more node constraints.
		if !apiequality.Semantic.DeepEqual(munged.NodeSelector, oldSpec.NodeSelector) {
			allErrs = append(allErrs, validateNodeSelectorOnlyAdded(munged.NodeSelector, oldSpec.NodeSelector, specPath.Child("nodeSelector"))...)
			munged.NodeSelector = oldSpec.NodeSelector
		}
		var oldNodeAffinity, newNodeAffinity *v1.NodeAffinity
		if oldSpec.Affinity != nil {
			oldNodeAffinity = oldSpec.Affinity.NodeAffinity
		}
		if munged.Affinity != nil {
			newNodeAffinity = munged.Affinity.NodeAffinity
		}
		if !apiequality.Semantic.DeepEqual(oldNodeAffinity, newNodeAffinity) {
			allErrs = append(allErrs, validateNodeAffinityOnlyAdded(newNodeAffinity, oldNodeAffinity, specPath.Child("affinity", "nodeAffinity"))...)
			switch {
			case munged.Affinity == nil:
				if oldNodeAffinity != nil {
					munged.Affinity = &v1.Affinity{NodeAffinity: oldNodeAffinity}
				}
			case oldSpec.Affinity == nil && munged.Affinity.PodAffinity == nil && munged.Affinity.PodAntiAffinity == nil:
				munged.Affinity = nil
			default:
				munged.Affinity.NodeAffinity = oldNodeAffinity
			}
		}
	}
	return munged, allErrs
}

// validateContainerUpdates checks what an update does to a list of
// containers: none may be added or removed (then nothing else is worth
// checking), and images stay set.
func validateContainerUpdates(newContainers, oldContainers []v1.Container, fldPath *field.Path) (field.ErrorList, bool) {
	if len(newContainers) != len(oldContainers) {
		return field.ErrorList{field.Forbidden(fldPath, "pod updates may not add or remove containers")}, true
	}
	var allErrs field.ErrorList
	for i, c := range newContainers {
		if c.Image == "" {
			allErrs = append(allErrs, field.Required(fldPath.Index(i).Child("image"), ""))
		}
		allErrs = append(allErrs, validateImageNotPadded(c.Image, fldPath.Index(i).Child("image"))...)
	}
	return allErrs, false
}

// validatePodAnnotationUpdates protects the annotations the kubelet relies
// on from being added, changed or removed after creation, and validates the
// new annotations.
func validatePodAnnotationUpdates(newPod, oldPod *v1.Pod, fldPath *field.Path) field.ErrorList {
	newAnnotations, oldAnnotations := newPod.Annotations, oldPod.Annotations
	var allErrs field.ErrorList
	for _, key := range sortedKeys(oldAnnotations) {
		if value, ok := newAnnotations[key]; ok && value == oldAnnotations[key] {
			continue
		}
		if strings.HasPrefix(key, appArmorAnnotationPrefix) {
			allErrs = append(allErrs, field.Forbidden(fldPath.Key(key), "may not remove or update AppArmor annotations"))
		}
		if key == v1.MirrorPodAnnotationKey {
			allErrs = append(allErrs, field.Forbidden(fldPath.Key(key), "may not remove or update mirror pod annotation"))
		}
	}
	for _, key := range sortedKeys(newAnnotations) {
		if _, ok := oldAnnotations[key]; ok {
			continue
		}
		if strings.HasPrefix(key, appArmorAnnotationPrefix) {
			allErrs = append(allErrs, field.Forbidden(fldPath.Key(key), "may not add AppArmor annotations"))
		}
		if key == v1.MirrorPodAnnotationKey {
			allErrs = append(allErrs, field.Forbidden(fldPath.Key(key), "may not add mirror pod annotation"))
		}
	}
	return append(allErrs, validatePodAnnotations(newAnnotations, &newPod.Spec, !validDeletionCost(oldAnnotations), fldPath)...)
}

// validateOnlyAddedTolerations allows tolerations to be added, and existing
// ones to change their tolerationSeconds only.
func validateOnlyAddedTolerations(newTolerations, oldTolerations []v1.Toleration, fldPath *field.Path) field.ErrorList {
	for _, old := range oldTolerations {
		found := false
		for _, t := range newTolerations {
			candidate := old
			candidate.TolerationSeconds = t.TolerationSeconds
			if apiequality.Semantic.DeepEqual(candidate, t) {
				found = true
				break
			}
		}
		if !found {
			return field.ErrorList{field.Forbidden(fldPath, "existing toleration can not be modified except its tolerationSeconds")}
		}
	}
	return validateTolerations(newTolerations, fldPath)
}

// validateOnlyDeletedSchedulingGates forbids adding scheduling gates once
// a pod exists: gates can only be lifted.
func validateOnlyDeletedSchedulingGates(newGates, oldGates []v1.PodSchedulingGate, fldPath *field.Path) field.ErrorList {
	old := sets.New[string]()
	for _, gate := range oldGates {
		old.Insert(gate.Name)
	}
	var allErrs field.ErrorList
	for i, gate := range newGates {
		if !old.Has(gate.Name) {
			allErrs = append(allErrs, field.Forbidden(fldPath.Index(i).Child("name"), fmt.Sprintf("only deletion is allowed, but found new scheduling gate '%s'", gate.Name)))
		}
	}
	return allErrs
}

func validateNodeSelectorOnlyAdded(newSelector, oldSelector map[string]string, fldPath *field.Path) field.ErrorList {
	for key, value := range oldSelector {
		if newValue, ok := newSelector[key]; !ok || newValue != value {
			return field.ErrorList{field.Invalid(fldPath, newSelector, "only additions to spec.nodeSelector are allowed (no mutations or deletions)")}
		}
	}
	return nil
}

// validateNodeAffinityOnlyAdded lets a gated pod narrow its required node
// affinity: terms may gain requirements but not lose or change them.
func validateNodeAffinityOnlyAdded(newAffinity, oldAffinity *v1.NodeAffinity, fldPath *field.Path) field.ErrorList {
	if oldAffinity == nil || oldAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return nil
	}
	oldTerms := oldAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	var newTerms []v1.NodeSelectorTerm
	if newAffinity != nil && newAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		newTerms = newAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	}
	termsPath := fldPath.Child("requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms")
	if len(oldTerms) > 0 && len(oldTerms) != len(newTerms) {
		return field.ErrorList{field.Invalid(termsPath, newTerms, "no additions/deletions to non-empty NodeSelectorTerms list are allowed")}
	}
	var allErrs field.ErrorList
	for i := range oldTerms {
		if !termOnlyAdds(newTerms[i], oldTerms[i]) {
			allErrs = append(allErrs, field.Invalid(termsPath.Index(i), newTerms[i], "only additions are allowed (no mutations or deletions)"))
		}
	}
	return allErrs
}

func termOnlyAdds(newTerm, oldTerm v1.NodeSelectorTerm) bool {
	if len(oldTerm.MatchExpressions) == 0 && len(oldTerm.MatchFields) == 0 {
		return len(newTerm.MatchExpressions) == 0 && len(newTerm.MatchFields) == 0
	}
	return hasPrefix(newTerm.MatchExpressions, oldTerm.MatchExpressions) && hasPrefix(newTerm.MatchFields, oldTerm.MatchFields)
}

func hasPrefix[T any](list, prefix []T) bool {
	return len(list) >= len(prefix) && apiequality.Semantic.DeepEqual(list[:len(prefix)], prefix)
}

// ValidatePodStatusUpdate validates an update of a Pod's status subresource.
func ValidatePodStatusUpdate(newPod, oldPod *v1.Pod) field.ErrorList {
	allErrs := ValidateObjectMetaUpdate(&newPod.ObjectMeta, &oldPod.ObjectMeta, metadataPath)
	allErrs = append(allErrs, validatePodAnnotationUpdates(newPod, oldPod, metadataPath.Child("annotations"))...)
	// kube-apiserver reports condition types under metadata; kept for
	// compatibility.
	allErrs = append(allErrs, validatePodConditions(newPod.Status.Conditions, metadataPath.Child("conditions"))...)

	status := &newPod.Status
	if newPod.Spec.NodeName != oldPod.Spec.NodeName {
		allErrs = append(allErrs, field.Forbidden(statusPath.Child("nodeName"), "may not be changed directly"))
	}
	if status.NominatedNodeName != oldPod.Status.NominatedNodeName && status.NominatedNodeName != "" {
		allErrs = append(allErrs, validateName(apivalidation.NameIsDNSSubdomain, status.NominatedNodeName, statusPath.Child("nominatedNodeName"))...)
	}
	allErrs = append(allErrs, apivalidation.ValidateImmutableField(status.QOSClass, oldPod.Status.QOSClass, statusPath.Child("qosClass"))...)
	allErrs = append(allErrs, validateContainerStateTransitions(status.ContainerStatuses, oldPod.Status.ContainerStatuses, oldPod.Spec.RestartPolicy, nil, statusPath.Child("containerStatuses"))...)
	allErrs = append(allErrs, validateContainerStateTransitions(status.InitContainerStatuses, oldPod.Status.InitContainerStatuses, oldPod.Spec.RestartPolicy, oldPod.Spec.InitContainers, statusPath.Child("initContainerStatuses"))...)
	// The kubelet never restarts ephemeral containers.
	allErrs = append(allErrs, validateContainerStateTransitions(status.EphemeralContainerStatuses, oldPod.Status.EphemeralContainerStatuses, v1.RestartPolicyNever, nil, statusPath.Child("ephemeralContainerStatuses"))...)
	allErrs = append(allErrs, validatePodResourceClaimStatuses(status.ResourceClaimStatuses, newPod.Spec.ResourceClaims, statusPath.Child("resourceClaimStatuses"))...)
	allErrs = append(allErrs, validateIPList(podIPStrings(status.PodIPs), podIPStrings(oldPod.Status.PodIPs), status.PodIPs, true, statusPath.Child("podIPs"))...)
	if len(status.HostIPs) > 0 {
		if status.HostIP != status.HostIPs[0].IP {
			allErrs = append(allErrs, field.Invalid(statusPath.Child("hostIPs").Index(0).Child("ip"), status.HostIPs[0].IP, "must be equal to `hostIP`"))
		}
		allErrs = append(allErrs, validateIPList(hostIPStrings(status.HostIPs), hostIPStrings(oldPod.Status.HostIPs), status.HostIPs, false, statusPath.Child("hostIPs"))...)
	}
	return allErrs
}

// systemPodConditions are set by the kubelet and need no domain.
var systemPodConditions = sets.New(v1.PodScheduled, v1.PodReady, v1.PodInitialized)

func validatePodConditions(conditions []v1.PodCondition, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for i, condition := range conditions {
		if !systemPodConditions.Has(condition.Type) {
			allErrs = append(allErrs, validateQualifiedName(string(condition.Type), fldPath.Index(i).Child("Type"))...)
		}
	}
	return allErrs
}

// validateContainerStateTransitions forbids bringing a terminated container
// back to life when the restart policy says it stays terminated. Sidecars
// (init containers with restartPolicy Always) may always restart.
func validateContainerStateTransitions(newStatuses, oldStatuses []v1.ContainerStatus, policy v1.RestartPolicy, initContainers []v1.Container, fldPath *field.Path) field.ErrorList {
	if policy == v1.RestartPolicyAlways {
		return nil
	}
	var allErrs field.ErrorList
	for i, old := range oldStatuses {
		if old.State.Terminated == nil {
			continue
		}
		if old.State.Terminated.ExitCode != 0 && policy == v1.RestartPolicyOnFailure {
			continue
		}
		if isSidecar(old.Name, initContainers) {
			continue
		}
		for _, status := range newStatuses {
			if status.Name == old.Name && status.State.Terminated == nil {
				allErrs = append(allErrs, field.Forbidden(fldPath.Index(i).Child("state"), "may not be transitioned to non-terminated state"))
			}
		}
	}
	return allErrs
}

func isSidecar(name string, initContainers []v1.Container) bool {
	for _, c := range initContainers {
		if c.Name == name {
			return c.RestartPolicy != nil && *c.RestartPolicy == v1.ContainerRestartPolicyAlways
		}
	}
	return false
}

func validatePodResourceClaimStatuses(statuses []v1.PodResourceClaimStatus, claims []v1.PodResourceClaim, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	declared := podClaimNames(claims)
	seen := sets.New[string]()
	for i, status := range statuses {
		namePath := fldPath.Index(i).Child("name")
		if !declared.Has(status.Name) {
			allErrs = append(allErrs, field.Invalid(namePath, status.Name, "must match the name of an entry in `spec.resourceClaims`"))
		}
		if seen.Has(status.Name) {
			allErrs = append(allErrs, field.Duplicate(namePath, status.Name))
		}
		seen.Insert(status.Name)
		if status.ResourceClaimName != nil {
			for _, msg := range apivalidation.NameIsDNSSubdomain(*status.ResourceClaimName, false) {
				allErrs = append(allErrs, field.Invalid(namePath, status.ResourceClaimName, msg))
			}
		}
	}
	return allErrs
}

// validateIPList validates a pod's or host's IPs: each valid, no
// duplicates, and at most one per IP family. kube-apiserver checks the
// families before the duplicates for pod IPs and after them for host IPs;
// familiesFirst keeps each order.
func validateIPList[T any](ips, oldIPs []string, items []T, familiesFirst bool, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	valid := true
	for i, ip := range ips {
		// The legacy rules of these fields: no leading zeros nor
		// IPv4-mapped IPv6, but a non-canonical form is only warned of;
		// IPs the pod already had are kept.
		errs := validation.IsValidIPForLegacyField(fldPath.Index(i), ip, true, oldIPs)
		valid = valid && len(errs) == 0
		allErrs = append(allErrs, errs...)
	}
	if len(ips) <= 1 {
		return allErrs
	}
	var familyErrs, dupErrs field.ErrorList
	if valid && (len(ips) > 2 || !isDualStack(ips)) {
		familyErrs = field.ErrorList{field.Invalid(fldPath, items, "may specify no more than one IP for each IP family")}
	}
	seen := sets.New[string]()
	for i, ip := range ips {
		if seen.Has(ip) {
			dupErrs = append(dupErrs, field.Duplicate(fldPath.Index(i), items[i]))
		}
		seen.Insert(ip)
	}
	if familiesFirst {
		return append(append(allErrs, familyErrs...), dupErrs...)
	}
	return append(append(allErrs, dupErrs...), familyErrs...)
}

// isIPv6 reports whether ip, a valid IP address, is an IPv6 one.
func isIPv6(ip string) bool {
	return strings.Contains(ip, ":")
}

func podIPStrings(ips []v1.PodIP) []string {
	out := make([]string, len(ips))
	for i, ip := range ips {
		out[i] = ip.IP
	}
	return out
}

func hostIPStrings(ips []v1.HostIP) []string {
	out := make([]string, len(ips))
	for i, ip := range ips {
		out[i] = ip.IP
	}
	return out
}
