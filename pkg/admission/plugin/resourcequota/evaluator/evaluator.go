// Package evaluator measures what objects use of a ResourceQuota, as
// kube-apiserver's quota evaluators do (k8s.io/apiserver's
// pkg/quota/v1/generic and k8s.io/kubernetes' pkg/quota/v1/evaluator/core):
// for each resource, which writes can change usage, which quota resource
// names it answers for, which scopes an object is in, and what an object
// uses.
//
// Pods, services, persistentvolumeclaims and resourceclaims have
// evaluators of their own; configmaps, secrets, replicationcontrollers
// and resourcequotas are counted under their legacy names as well as
// count/<resource>; every other resource, custom resources included, is
// counted as count/<resource>.<group>.
package evaluator

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/selection"

	"github.com/kapi-dev/kapi/pkg/admission"
)

// Evaluator measures the quota usage of one resource.
type Evaluator interface {
	// Handles says whether the write may change what quota counts.
	Handles(a *admission.Attributes) bool
	// Constraints refuses an object that lacks what a quota tracking
	// required demands of it.
	Constraints(required []corev1.ResourceName, obj runtime.Object) error
	// Matches says whether quota (its hard resources and its scopes)
	// applies to obj.
	Matches(quota *corev1.ResourceQuota, obj runtime.Object) (bool, error)
	// MatchingScopes are the selectors obj matches.
	MatchingScopes(obj runtime.Object, selectors []corev1.ScopedResourceSelectorRequirement) ([]corev1.ScopedResourceSelectorRequirement, error)
	// UncoveredScopes are the limited scopes no matched quota scope has
	// the name of.
	UncoveredScopes(limited, matched []corev1.ScopedResourceSelectorRequirement) []corev1.ScopedResourceSelectorRequirement
	// MatchingResources are the names of names the evaluator counts.
	MatchingResources(names []corev1.ResourceName) []corev1.ResourceName
	// Usage is what obj uses.
	Usage(obj runtime.Object) (corev1.ResourceList, error)
}

// CountName is the quota resource name that counts objects of gr:
// count/<resource> in the core group, else count/<resource>.<group>.
func CountName(gr schema.GroupResource) corev1.ResourceName {
	if gr.Group == "" {
		return corev1.ResourceName("count/" + gr.Resource)
	}
	return corev1.ResourceName("count/" + gr.Resource + "." + gr.Group)
}

// ScopeSelectors are a quota's scopes (as Exists selectors) and the
// expressions of its scope selector.
func ScopeSelectors(quota *corev1.ResourceQuota) []corev1.ScopedResourceSelectorRequirement {
	var out []corev1.ScopedResourceSelectorRequirement
	for _, scope := range quota.Spec.Scopes {
		out = append(out, corev1.ScopedResourceSelectorRequirement{ScopeName: scope, Operator: corev1.ScopeSelectorOpExists})
	}
	if quota.Spec.ScopeSelector != nil {
		out = append(out, quota.Spec.ScopeSelector.MatchExpressions...)
	}
	return out
}

// scopeFunc says whether obj is in the scope a selector names.
type scopeFunc func(selector corev1.ScopedResourceSelectorRequirement, obj runtime.Object) (bool, error)

// noScope is the scope function of resources without scopes: an object
// is in none.
func noScope(corev1.ScopedResourceSelectorRequirement, runtime.Object) (bool, error) {
	return false, nil
}

// matches says whether quota applies to obj: it limits at least one
// resource the evaluator counts, and obj is in every one of its scopes.
func matches(quota *corev1.ResourceQuota, obj runtime.Object, matching func([]corev1.ResourceName) []corev1.ResourceName, inScope scopeFunc) (bool, error) {
	if quota == nil {
		return false, fmt.Errorf("expected non-nil quota")
	}
	matchResource := len(matching(Names(quota.Status.Hard))) > 0
	matchScope := true
	for _, selector := range ScopeSelectors(quota) {
		in, err := inScope(selector, obj)
		if err != nil {
			return false, err
		}
		matchScope = matchScope && in
	}
	return matchResource && matchScope, nil
}

// matchingScopes are the selectors obj is in.
func matchingScopes(obj runtime.Object, selectors []corev1.ScopedResourceSelectorRequirement, inScope scopeFunc, wrap string) ([]corev1.ScopedResourceSelectorRequirement, error) {
	matched := []corev1.ScopedResourceSelectorRequirement{}
	for _, selector := range selectors {
		in, err := inScope(selector, obj)
		if err != nil {
			return []corev1.ScopedResourceSelectorRequirement{}, fmt.Errorf(wrap, selector, err)
		}
		if in {
			matched = append(matched, selector)
		}
	}
	return matched, nil
}

// uncoveredScopes are the limited selectors whose scope no matched one
// names.
func uncoveredScopes(limited, matched []corev1.ScopedResourceSelectorRequirement) []corev1.ScopedResourceSelectorRequirement {
	out := []corev1.ScopedResourceSelectorRequirement{}
	for _, l := range limited {
		covered := false
		for _, m := range matched {
			if m.ScopeName == l.ScopeName {
				covered = true
				break
			}
		}
		if !covered {
			out = append(out, l)
		}
	}
	return out
}

// selectorMatches evaluates a scope selector's expression against the
// value the object has for the scope (none when value is empty), as a
// label selector on a label named after the scope.
func selectorMatches(selector corev1.ScopedResourceSelectorRequirement, values ...string) (bool, error) {
	var op selection.Operator
	switch selector.Operator {
	case corev1.ScopeSelectorOpIn:
		op = selection.In
	case corev1.ScopeSelectorOpNotIn:
		op = selection.NotIn
	case corev1.ScopeSelectorOpExists:
		op = selection.Exists
	case corev1.ScopeSelectorOpDoesNotExist:
		op = selection.DoesNotExist
	default:
		return false, fmt.Errorf("failed to parse and convert selector: %q is not a valid scope selector operator", selector.Operator)
	}
	r, err := labels.NewRequirement(string(selector.ScopeName), op, selector.Values)
	if err != nil {
		return false, fmt.Errorf("failed to parse and convert selector: %v", err)
	}
	sel := labels.NewSelector().Add(*r)
	if len(values) == 0 {
		return sel.Matches(labels.Set{}), nil
	}
	for _, v := range values {
		if sel.Matches(labels.Set{string(selector.ScopeName): v}) {
			return true, nil
		}
	}
	return false, nil
}

// one is the quantity 1.
func one() resource.Quantity { return *resource.NewQuantity(1, resource.DecimalSI) }

// Count counts the objects of one resource, under count/<resource> and
// the legacy names given.
type Count struct {
	gr    schema.GroupResource
	names []corev1.ResourceName
}

// NewCount counts gr's objects, as CountName(gr) and aliases.
func NewCount(gr schema.GroupResource, aliases ...corev1.ResourceName) *Count {
	return &Count{gr: gr, names: append([]corev1.ResourceName{CountName(gr)}, aliases...)}
}

// Handles counts creates of the resource itself.
func (c *Count) Handles(a *admission.Attributes) bool {
	return a.Subresource == "" && a.Operation == admission.Create
}

func (c *Count) Constraints([]corev1.ResourceName, runtime.Object) error { return nil }

func (c *Count) Matches(quota *corev1.ResourceQuota, obj runtime.Object) (bool, error) {
	return matches(quota, obj, c.MatchingResources, noScope)
}

func (c *Count) MatchingScopes(runtime.Object, []corev1.ScopedResourceSelectorRequirement) ([]corev1.ScopedResourceSelectorRequirement, error) {
	return []corev1.ScopedResourceSelectorRequirement{}, nil
}

func (c *Count) UncoveredScopes(_, _ []corev1.ScopedResourceSelectorRequirement) []corev1.ScopedResourceSelectorRequirement {
	return []corev1.ScopedResourceSelectorRequirement{}
}

func (c *Count) MatchingResources(names []corev1.ResourceName) []corev1.ResourceName {
	return Intersection(names, c.names)
}

// Usage is one object under each of the evaluator's names.
func (c *Count) Usage(runtime.Object) (corev1.ResourceList, error) {
	out := corev1.ResourceList{}
	for _, name := range c.names {
		out[name] = one()
	}
	return out, nil
}
