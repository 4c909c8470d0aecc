package resourcequota

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/kapi-dev/kapi/pkg/admission"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/resourcequota/evaluator"
)

// checkRequest checks one write against the quotas of its namespace and
// returns them as they would be with the write charged: copies, with
// status.used increased for each quota that applies. It refuses the
// write, with kube-apiserver's messages, if a quota that applies does
// not know its usage yet, lacks what it demands of the object, or would
// be exceeded; or if the configuration's limited resources or scopes
// are used without a quota that covers them.
func checkRequest(quotas []corev1.ResourceQuota, a *admission.Attributes, ev evaluator.Evaluator, limited []LimitedResource) ([]corev1.ResourceQuota, error) {
	if !ev.Handles(a) {
		return quotas, nil
	}
	obj := a.Object

	limitedScopes, err := matchedLimitedScopes(ev, obj, limited)
	if err != nil {
		// kube-apiserver lets the write through when it cannot tell.
		return quotas, nil
	}
	var limitedNames []corev1.ResourceName
	if forResource := limitedOf(limited, a.Resource.GroupResource()); len(forResource) > 0 {
		usage, err := ev.Usage(obj)
		if err != nil {
			return quotas, err
		}
		limitedNames = limitedByDefault(usage, forResource)
	}

	// The quotas that apply to the object, and what they limit.
	var applying []int
	covered := sets.New[string]()
	var coveredScopes []corev1.ScopedResourceSelectorRequirement
	for i := range quotas {
		q := &quotas[i]
		scopes, err := ev.MatchingScopes(obj, evaluator.ScopeSelectors(q))
		if err != nil {
			return nil, fmt.Errorf("error matching scopes of quota %s, err: %v", q.Name, err)
		}
		coveredScopes = append(coveredScopes, scopes...)
		match, err := ev.Matches(q, obj)
		if err != nil {
			return quotas, err
		}
		if !match {
			continue
		}
		restricted := ev.MatchingResources(evaluator.Names(q.Status.Hard))
		if err := ev.Constraints(restricted, obj); err != nil {
			return nil, admission.NewForbidden(a, fmt.Errorf("failed quota: %s: %v", q.Name, err))
		}
		if !hasUsage(q, restricted) {
			return nil, admission.NewForbidden(a, fmt.Errorf("status unknown for quota: %s, resources: %s", q.Name, evaluator.NamesString(restricted)))
		}
		applying = append(applying, i)
		covered.Insert(sets.List(evaluator.ToSet(restricted))...)
	}

	// An object addressed in a namespace is measured in it.
	if m, err := meta.Accessor(obj); a.Namespace != "" && err == nil && m.GetNamespace() == "" {
		m.SetNamespace(a.Namespace)
	}
	usage, err := ev.Usage(obj)
	if err != nil {
		return quotas, err
	}
	if negative := evaluator.Negative(usage); len(negative) > 0 {
		return nil, admission.NewForbidden(a, fmt.Errorf("quota usage is negative for resource(s): %s", evaluator.NamesString(negative)))
	}

	// What each applying quota is charged: the whole usage on a create;
	// on an update the growth, for the quotas that applied to the old
	// object too (an update that brings the object into a quota's scope
	// is charged in full).
	delta := make(map[int]corev1.ResourceList, len(applying))
	for _, i := range applying {
		delta[i] = usage
	}
	var deltaWithoutQuota corev1.ResourceList
	if a.Operation == admission.Create && len(applying) == 0 {
		deltaWithoutQuota = usage
	}
	if a.Operation == admission.Update {
		old := a.OldObject
		if old == nil {
			return nil, admission.NewForbidden(a, fmt.Errorf("unable to get previous usage since prior version of object was not found"))
		}
		if m, err := meta.Accessor(old); err == nil {
			if m.GetResourceVersion() != "" {
				oldUsage, err := ev.Usage(old)
				if err != nil {
					return quotas, err
				}
				growth := evaluator.SubtractNonNegative(usage, oldUsage)
				if len(applying) == 0 {
					deltaWithoutQuota = growth
				}
				for _, i := range applying {
					match, err := ev.Matches(&quotas[i], old)
					if err != nil {
						return quotas, err
					}
					if match {
						delta[i] = growth
					}
				}
			} else if len(applying) == 0 {
				deltaWithoutQuota = usage
			}
		}
	}
	for i := range delta {
		delta[i] = evaluator.RemoveZeros(delta[i])
		if len(delta[i]) == 0 {
			delete(delta, i)
		}
	}
	if len(applying) != 0 {
		if len(delta) == 0 {
			return quotas, nil
		}
	} else if len(evaluator.RemoveZeros(deltaWithoutQuota)) == 0 {
		return quotas, nil
	}

	if uncovered := evaluator.ToSet(limitedNames).Difference(covered); uncovered.Len() > 0 {
		return quotas, admission.NewForbidden(a, fmt.Errorf("insufficient quota to consume: %v", strings.Join(sets.List(uncovered), ",")))
	}
	if uncovered := ev.UncoveredScopes(limitedScopes, coveredScopes); len(uncovered) > 0 {
		return quotas, fmt.Errorf("insufficient quota to match these scopes: %v", uncovered)
	}
	if len(applying) == 0 {
		return quotas, nil
	}

	out := make([]corev1.ResourceQuota, len(quotas))
	for i := range quotas {
		out[i] = *quotas[i].DeepCopy()
	}
	for _, i := range applying {
		d, ok := delta[i]
		if !ok {
			continue
		}
		q := &out[i]
		hard := evaluator.Names(q.Status.Hard)
		requested := evaluator.Mask(d, hard)
		used := evaluator.Add(q.Status.Used, requested)
		// A status update is charged, never refused.
		if a.Subresource != "status" {
			if ok, exceeded := evaluator.LessThanOrEqual(evaluator.Mask(used, evaluator.Names(requested)), q.Status.Hard); !ok {
				return nil, admission.NewForbidden(a, fmt.Errorf("exceeded quota: %s, requested: %s, used: %s, limited: %s",
					q.Name,
					evaluator.String(evaluator.Mask(requested, exceeded)),
					evaluator.String(evaluator.Mask(q.Status.Used, exceeded)),
					evaluator.String(evaluator.Mask(q.Status.Hard, exceeded))))
			}
		}
		q.Status.Used = used
	}
	return out, nil
}

// hasUsage says whether the quota's status has a usage for each of the
// resources it limits among names.
func hasUsage(q *corev1.ResourceQuota, names []corev1.ResourceName) bool {
	interesting := evaluator.ToSet(names)
	for name := range q.Status.Hard {
		if !interesting.Has(string(name)) {
			continue
		}
		if _, ok := q.Status.Used[name]; !ok {
			return false
		}
	}
	return true
}

// limitedOf are the limited resources of gr.
func limitedOf(limited []LimitedResource, gr schema.GroupResource) []LimitedResource {
	var out []LimitedResource
	for _, l := range limited {
		if (schema.GroupResource{Group: l.APIGroup, Resource: l.Resource}) == gr {
			out = append(out, l)
		}
	}
	return out
}

// limitedByDefault are the names of usage, consumed, that contain a
// string a limited resource matches.
func limitedByDefault(usage corev1.ResourceList, limited []LimitedResource) []corev1.ResourceName {
	var out []corev1.ResourceName
	for _, l := range limited {
		for name, q := range usage {
			if q.Sign() != 1 {
				continue
			}
			for _, s := range l.MatchContains {
				if strings.Contains(string(name), s) {
					out = append(out, name)
					break
				}
			}
		}
	}
	return out
}

// matchedLimitedScopes are the configuration's limited scopes the object
// is in, those of every limited resource (as kube-apiserver has it).
func matchedLimitedScopes(ev evaluator.Evaluator, obj runtime.Object, limited []LimitedResource) ([]corev1.ScopedResourceSelectorRequirement, error) {
	var out []corev1.ScopedResourceSelectorRequirement
	for _, l := range limited {
		matched, err := ev.MatchingScopes(obj, l.MatchScopes)
		if err != nil {
			return nil, err
		}
		out = append(out, matched...)
	}
	return out, nil
}
