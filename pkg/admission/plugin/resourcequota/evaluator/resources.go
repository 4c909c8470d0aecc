package evaluator

import (
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/sets"
)

// The arithmetic of resource lists that quota needs. A missing entry is
// not zero for every function: each says how it treats one.

// Equal says whether a and b have the same names with equal quantities.
func Equal(a, b corev1.ResourceList) bool {
	if len(a) != len(b) {
		return false
	}
	for name, qa := range a {
		qb, ok := b[name]
		if !ok || qa.Cmp(qb) != 0 {
			return false
		}
	}
	return true
}

// Add is a+b; a name in one list only keeps its quantity.
func Add(a, b corev1.ResourceList) corev1.ResourceList {
	out := make(corev1.ResourceList, len(a)+len(b))
	for name, q := range a {
		sum := q.DeepCopy()
		if other, ok := b[name]; ok {
			sum.Add(other)
		}
		out[name] = sum
	}
	for name, q := range b {
		if _, ok := out[name]; !ok {
			out[name] = q.DeepCopy()
		}
	}
	return out
}

// SubtractNonNegative is a-b for each name of either list, never below
// zero.
func SubtractNonNegative(a, b corev1.ResourceList) corev1.ResourceList {
	out := corev1.ResourceList{}
	zero := resource.MustParse("0")
	for name, q := range a {
		d := q.DeepCopy()
		if other, ok := b[name]; ok {
			d.Sub(other)
		}
		if d.Sign() > 0 {
			out[name] = d
		} else {
			out[name] = zero
		}
	}
	for name := range b {
		if _, ok := out[name]; !ok {
			out[name] = zero
		}
	}
	return out
}

// Mask keeps the entries of list whose names are in names.
func Mask(list corev1.ResourceList, names []corev1.ResourceName) corev1.ResourceList {
	keep := ToSet(names)
	out := corev1.ResourceList{}
	for name, q := range list {
		if keep.Has(string(name)) {
			out[name] = q.DeepCopy()
		}
	}
	return out
}

// Names are the names of list, in no order.
func Names(list corev1.ResourceList) []corev1.ResourceName {
	out := make([]corev1.ResourceName, 0, len(list))
	for name := range list {
		out = append(out, name)
	}
	return out
}

// Intersection are the names of a also in b, once each, sorted.
func Intersection(a, b []corev1.ResourceName) []corev1.ResourceName {
	out := make([]corev1.ResourceName, 0, len(a))
	for _, name := range a {
		if slices.Contains(b, name) && !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// LessThanOrEqual says whether every quantity of a whose name b limits
// is at most b's, and which names exceed it.
func LessThanOrEqual(a, b corev1.ResourceList) (bool, []corev1.ResourceName) {
	var exceeded []corev1.ResourceName
	for name, limit := range b {
		if q, ok := a[name]; ok && q.Cmp(limit) > 0 {
			exceeded = append(exceeded, name)
		}
	}
	return len(exceeded) == 0, exceeded
}

// Negative are the names of list with a quantity below zero.
func Negative(list corev1.ResourceList) []corev1.ResourceName {
	var out []corev1.ResourceName
	for name, q := range list {
		if q.Sign() < 0 {
			out = append(out, name)
		}
	}
	return out
}

// RemoveZeros is list without its zero quantities.
func RemoveZeros(list corev1.ResourceList) corev1.ResourceList {
	out := corev1.ResourceList{}
	for name, q := range list {
		if !q.IsZero() {
			out[name] = q
		}
	}
	return out
}

// ToSet is names as a set of strings.
func ToSet(names []corev1.ResourceName) sets.Set[string] {
	out := sets.New[string]()
	for _, name := range names {
		out.Insert(string(name))
	}
	return out
}

// hasPrefix says whether name starts with one of prefixes.
func hasPrefix(prefixes []string, name corev1.ResourceName) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(string(name), p) {
			return true
		}
	}
	return false
}

// String is list as kube-apiserver's quota messages print it:
// name=quantity, sorted by name, comma-separated.
func String(list corev1.ResourceList) string {
	names := make([]string, 0, len(list))
	for name := range list {
		names = append(names, string(name))
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, name := range names {
		q := list[corev1.ResourceName(name)]
		parts[i] = name + "=" + q.String()
	}
	return strings.Join(parts, ",")
}

// NamesString is names sorted and comma-separated.
func NamesString(names []corev1.ResourceName) string {
	s := make([]string, len(names))
	for i, n := range names {
		s[i] = string(n)
	}
	sort.Strings(s)
	return strings.Join(s, ",")
}
