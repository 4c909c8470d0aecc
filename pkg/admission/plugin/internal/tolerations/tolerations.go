// Package tolerations merges sets of tolerations as kube-apiserver's
// plugins do (RuntimeClass, PodTolerationRestriction): a toleration
// another one already covers is dropped.
package tolerations

import (
	"reflect"

	corev1 "k8s.io/api/core/v1"
)

// Merge is first then second, less every toleration another of them
// covers; of equal tolerations the first is kept.
func Merge(first, second []corev1.Toleration) []corev1.Toleration {
	all := append(append([]corev1.Toleration{}, first...), second...)
	var merged []corev1.Toleration
next:
	for i, t := range all {
		for _, m := range merged {
			if Covers(m, t) {
				continue next
			}
		}
		for _, later := range all[i+1:] {
			if !reflect.DeepEqual(t, later) && Covers(later, t) {
				continue next
			}
		}
		merged = append(merged, t)
	}
	return merged
}

// Covers says whether ss tolerates every taint t does.
func Covers(ss, t corev1.Toleration) bool {
	if reflect.DeepEqual(ss, t) {
		return true
	}
	if t.Key != ss.Key && (ss.Key != "" || ss.Operator != corev1.TolerationOpExists) {
		return false
	}
	if t.Effect != ss.Effect && ss.Effect != "" {
		return false
	}
	if ss.Effect == corev1.TaintEffectNoExecute && ss.TolerationSeconds != nil {
		if t.TolerationSeconds == nil || *t.TolerationSeconds > *ss.TolerationSeconds {
			return false
		}
	}
	switch ss.Operator {
	case corev1.TolerationOpEqual, "":
		return t.Operator == corev1.TolerationOpEqual && t.Value == ss.Value
	case corev1.TolerationOpExists:
		return true
	}
	return false
}
