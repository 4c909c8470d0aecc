package evaluator

import (
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	resourcehelper "k8s.io/component-helpers/resource"
	"k8s.io/utils/clock"

	"github.com/kapi-dev/kapi/pkg/admission"
	"github.com/kapi-dev/kapi/pkg/apis/core"
)

var podCountName = CountName(corev1.Resource("pods"))

// podResources are the quota names a pod uses, besides hugepages and
// extended resources.
var podResources = []corev1.ResourceName{
	podCountName,
	corev1.ResourceCPU,
	corev1.ResourceMemory,
	corev1.ResourceEphemeralStorage,
	corev1.ResourceRequestsCPU,
	corev1.ResourceRequestsMemory,
	corev1.ResourceRequestsEphemeralStorage,
	corev1.ResourceLimitsCPU,
	corev1.ResourceLimitsMemory,
	corev1.ResourceLimitsEphemeralStorage,
	corev1.ResourcePods,
}

// podResourcePrefixes are the prefixes of the quota names of hugepages.
var podResourcePrefixes = []string{corev1.ResourceHugePagesPrefix, corev1.ResourceRequestsHugePagesPrefix}

// requestsDeviceClassPrefix is the prefix of the implicit extended
// resource of a device class: requests.deviceclass.resource.kubernetes.io/<class>.
const requestsDeviceClassPrefix = corev1.DefaultResourceRequestsPrefix + resourcev1.ResourceDeviceClassPrefix

// requiredPerContainer are the quota names that, when a quota limits
// them, every container must request or limit (a rule kube keeps for
// compatibility, and only for these).
var requiredPerContainer = sets.New(
	string(corev1.ResourceCPU),
	string(corev1.ResourceMemory),
	string(corev1.ResourceRequestsCPU),
	string(corev1.ResourceRequestsMemory),
	string(corev1.ResourceLimitsCPU),
	string(corev1.ResourceLimitsMemory),
)

// Pods measures pods: their count, their compute requests and limits
// (while they are not terminal), and their scopes.
type Pods struct {
	clock clock.PassiveClock
	// podLevelResources is the PodLevelResources feature: pod-level
	// requests and limits count, and spare containers from stating theirs.
	podLevelResources bool
}

// NewPods measures pods; the clock tells when a deleted pod's grace
// period is over.
func NewPods(c clock.PassiveClock, podLevelResources bool) *Pods {
	return &Pods{clock: c, podLevelResources: podLevelResources}
}

func toPod(obj runtime.Object) (*corev1.Pod, error) {
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return nil, fmt.Errorf("expect *api.Pod or *v1.Pod, got %T", obj)
	}
	return pod, nil
}

// Handles creates, resizes, and updates that move a pod in or out of
// the Terminating scope.
func (p *Pods) Handles(a *admission.Attributes) bool {
	switch a.Subresource {
	case "":
		if a.Operation == admission.Update {
			pod, err1 := toPod(a.Object)
			old, err2 := toPod(a.OldObject)
			if err1 != nil || err2 != nil {
				return false
			}
			return isTerminating(pod) != isTerminating(old)
		}
		return a.Operation == admission.Create
	case "resize":
		return a.Operation == admission.Update
	}
	return false
}

// Constraints refuses a pod some of whose containers neither request
// nor limit cpu or memory that a quota tracks.
func (p *Pods) Constraints(required []corev1.ResourceName, obj runtime.Object) error {
	pod, err := toPod(obj)
	if err != nil {
		return err
	}
	if p.podLevelResources && resourcehelper.IsPodLevelResourcesSet(pod) {
		return nil
	}
	requiredSet := ToSet(required).Intersection(requiredPerContainer)
	missing := map[string]sets.Set[string]{}
	check := func(c *corev1.Container) {
		has := ToSet(Names(computeUsage(c.Resources.Requests, c.Resources.Limits)))
		for _, name := range sets.List(requiredSet.Difference(has)) {
			if missing[name] == nil {
				missing[name] = sets.New[string]()
			}
			missing[name].Insert(c.Name)
		}
	}
	for i := range pod.Spec.Containers {
		check(&pod.Spec.Containers[i])
	}
	for i := range pod.Spec.InitContainers {
		check(&pod.Spec.InitContainers[i])
	}
	if len(missing) == 0 {
		return nil
	}
	var msgs []string
	for _, name := range sets.List(sets.KeySet(missing)) {
		msgs = append(msgs, fmt.Sprintf("%s for: %s", name, strings.Join(sets.List(missing[name]), ",")))
	}
	return fmt.Errorf("must specify %s", strings.Join(msgs, "; "))
}

func (p *Pods) Matches(quota *corev1.ResourceQuota, obj runtime.Object) (bool, error) {
	return matches(quota, obj, p.MatchingResources, podInScope)
}

// MatchingResources are the pod quota names, hugepages, and extended
// resources as requests.<name>.
func (p *Pods) MatchingResources(names []corev1.ResourceName) []corev1.ResourceName {
	out := Intersection(names, podResources)
	for _, name := range names {
		if hasPrefix(podResourcePrefixes, name) {
			out = append(out, name)
		}
		if isExtendedResourceNameForQuota(name) {
			out = append(out, name)
		}
	}
	return out
}

func (p *Pods) MatchingScopes(obj runtime.Object, selectors []corev1.ScopedResourceSelectorRequirement) ([]corev1.ScopedResourceSelectorRequirement, error) {
	return matchingScopes(obj, selectors, podInScope, "error on matching scope %v: %v")
}

func (p *Pods) UncoveredScopes(limited, matched []corev1.ScopedResourceSelectorRequirement) []corev1.ScopedResourceSelectorRequirement {
	return uncoveredScopes(limited, matched)
}

// Usage is one count/pods, and, unless the pod is terminal or its
// deletion's grace period is over, one pods and its compute resources.
func (p *Pods) Usage(obj runtime.Object) (corev1.ResourceList, error) {
	pod, err := toPod(obj)
	if err != nil {
		return corev1.ResourceList{}, err
	}
	out := corev1.ResourceList{podCountName: one()}
	if !p.counts(pod) {
		return out, nil
	}
	opts := resourcehelper.PodResourcesOptions{
		// InPlacePodVerticalScaling is GA: a resize's allocated
		// resources count until the pod runs with the new ones.
		UseStatusResources:    true,
		SkipPodLevelResources: !p.podLevelResources,
	}
	return Add(out, computeUsage(resourcehelper.PodRequests(pod, opts), resourcehelper.PodLimits(pod, opts))), nil
}

// counts says whether a pod's compute resources count: not once it
// has failed or succeeded, nor once it is deleted and its grace period
// is over (a pod stuck on a lost node).
func (p *Pods) counts(pod *corev1.Pod) bool {
	if pod.Status.Phase == corev1.PodFailed || pod.Status.Phase == corev1.PodSucceeded {
		return false
	}
	if pod.DeletionTimestamp != nil && pod.DeletionGracePeriodSeconds != nil {
		end := pod.DeletionTimestamp.Add(time.Duration(*pod.DeletionGracePeriodSeconds) * time.Second)
		if p.clock.Now().After(end) {
			return false
		}
	}
	return true
}

// computeUsage turns requests and limits into quota names: cpu, memory
// and ephemeral-storage requests under their bare and requests. names,
// limits under limits., hugepages under both names, and extended
// resources (and device classes) as requests.<name>.
func computeUsage(requests, limits corev1.ResourceList) corev1.ResourceList {
	out := corev1.ResourceList{corev1.ResourcePods: one()}
	for _, r := range []struct{ bare, request, limit corev1.ResourceName }{
		{corev1.ResourceCPU, corev1.ResourceRequestsCPU, corev1.ResourceLimitsCPU},
		{corev1.ResourceMemory, corev1.ResourceRequestsMemory, corev1.ResourceLimitsMemory},
		{corev1.ResourceEphemeralStorage, corev1.ResourceRequestsEphemeralStorage, corev1.ResourceLimitsEphemeralStorage},
	} {
		if q, ok := requests[r.bare]; ok {
			out[r.bare] = q
			out[r.request] = q
		}
		if q, ok := limits[r.bare]; ok {
			out[r.limit] = q
		}
	}
	for name, q := range requests {
		if strings.HasPrefix(string(name), corev1.ResourceHugePagesPrefix) {
			out[name] = q
			out[corev1.DefaultResourceRequestsPrefix+name] = q
		}
		if isExtendedResourceName(name) || strings.HasPrefix(string(name), resourcev1.ResourceDeviceClassPrefix) {
			out[corev1.DefaultResourceRequestsPrefix+name] = q
		}
	}
	return out
}

// isNativeResource: a name without a domain, or in *kubernetes.io/.
func isNativeResource(name corev1.ResourceName) bool {
	return !strings.Contains(string(name), "/") || strings.Contains(string(name), corev1.ResourceDefaultNamespacePrefix)
}

// isExtendedResourceName: a resource outside kubernetes.io that can be
// quota'd as requests.<name>.
func isExtendedResourceName(name corev1.ResourceName) bool {
	if isNativeResource(name) || strings.HasPrefix(string(name), corev1.DefaultResourceRequestsPrefix) {
		return false
	}
	return len(validation.IsQualifiedName(corev1.DefaultResourceRequestsPrefix+string(name))) == 0
}

// isExtendedResourceNameForQuota: requests.<extended resource>, or
// requests.deviceclass.resource.kubernetes.io/<class>.
func isExtendedResourceNameForQuota(name corev1.ResourceName) bool {
	s := string(name)
	return (!isNativeResource(name) || strings.HasPrefix(s, requestsDeviceClassPrefix)) && strings.HasPrefix(s, corev1.DefaultResourceRequestsPrefix)
}

// podInScope says whether a pod is in a scope.
func podInScope(selector corev1.ScopedResourceSelectorRequirement, obj runtime.Object) (bool, error) {
	pod, err := toPod(obj)
	if err != nil {
		return false, err
	}
	switch selector.ScopeName {
	case corev1.ResourceQuotaScopeTerminating:
		return isTerminating(pod), nil
	case corev1.ResourceQuotaScopeNotTerminating:
		return !isTerminating(pod), nil
	case corev1.ResourceQuotaScopeBestEffort:
		return qosClass(pod) == corev1.PodQOSBestEffort, nil
	case corev1.ResourceQuotaScopeNotBestEffort:
		return qosClass(pod) != corev1.PodQOSBestEffort, nil
	case corev1.ResourceQuotaScopePriorityClass:
		if selector.Operator == corev1.ScopeSelectorOpExists {
			return pod.Spec.PriorityClassName != "", nil
		}
		if pod.Spec.PriorityClassName == "" {
			return selectorMatches(selector)
		}
		return selectorMatches(selector, pod.Spec.PriorityClassName)
	case corev1.ResourceQuotaScopeCrossNamespacePodAffinity:
		return usesCrossNamespaceAffinity(pod), nil
	}
	return false, nil
}

// isTerminating: the pod has an active deadline.
func isTerminating(pod *corev1.Pod) bool {
	return pod.Spec.ActiveDeadlineSeconds != nil && *pod.Spec.ActiveDeadlineSeconds >= 0
}

// qosClass is the class the pod's status records, else the one its
// resources give.
func qosClass(pod *corev1.Pod) corev1.PodQOSClass {
	if pod.Status.QOSClass != "" {
		return pod.Status.QOSClass
	}
	return core.PodQOSClass(pod)
}

func usesCrossNamespaceAffinity(pod *corev1.Pod) bool {
	if pod.Spec.Affinity == nil {
		return false
	}
	cross := func(t *corev1.PodAffinityTerm) bool { return len(t.Namespaces) != 0 || t.NamespaceSelector != nil }
	anyCross := func(required []corev1.PodAffinityTerm, preferred []corev1.WeightedPodAffinityTerm) bool {
		for i := range required {
			if cross(&required[i]) {
				return true
			}
		}
		for i := range preferred {
			if cross(&preferred[i].PodAffinityTerm) {
				return true
			}
		}
		return false
	}
	if a := pod.Spec.Affinity.PodAffinity; a != nil && anyCross(a.RequiredDuringSchedulingIgnoredDuringExecution, a.PreferredDuringSchedulingIgnoredDuringExecution) {
		return true
	}
	if a := pod.Spec.Affinity.PodAntiAffinity; a != nil && anyCross(a.RequiredDuringSchedulingIgnoredDuringExecution, a.PreferredDuringSchedulingIgnoredDuringExecution) {
		return true
	}
	return false
}
