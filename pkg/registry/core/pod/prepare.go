package pod

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// gateScheduling gives a new pod with scheduling gates the PodScheduled
// condition that says so, unless it brings one of its own.
func gateScheduling(pod *corev1.Pod, now metav1.Time) {
	if len(pod.Spec.SchedulingGates) == 0 {
		return
	}
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodScheduled {
			return
		}
	}
	pod.Status.Conditions = append(pod.Status.Conditions, corev1.PodCondition{
		Type:               corev1.PodScheduled,
		Status:             corev1.ConditionFalse,
		Reason:             corev1.PodReasonSchedulingGated,
		Message:            "Scheduling is blocked due to non-empty scheduling gates",
		LastTransitionTime: now,
	})
}

// mergeLabelKeys adds to the label selectors of a new pod's affinity
// terms and topology spread constraints a requirement for each of its
// matchLabelKeys (In the pod's value) and mismatchLabelKeys (NotIn it)
// that the pod has a label of, so the scheduler sees plain selectors.
// A null selector matches nothing and stays so.
func mergeLabelKeys(pod *corev1.Pod) {
	if a := pod.Spec.Affinity; a != nil {
		if pa := a.PodAffinity; pa != nil {
			mergeAffinityTerms(pa.RequiredDuringSchedulingIgnoredDuringExecution, pa.PreferredDuringSchedulingIgnoredDuringExecution, pod.Labels)
		}
		if pa := a.PodAntiAffinity; pa != nil {
			mergeAffinityTerms(pa.RequiredDuringSchedulingIgnoredDuringExecution, pa.PreferredDuringSchedulingIgnoredDuringExecution, pod.Labels)
		}
	}
	for i := range pod.Spec.TopologySpreadConstraints {
		c := &pod.Spec.TopologySpreadConstraints[i]
		if c.LabelSelector != nil {
			addLabelRequirements(c.LabelSelector, c.MatchLabelKeys, metav1.LabelSelectorOpIn, pod.Labels)
		}
	}
}

func mergeAffinityTerms(required []corev1.PodAffinityTerm, preferred []corev1.WeightedPodAffinityTerm, labels map[string]string) {
	merge := func(t *corev1.PodAffinityTerm) {
		if t.LabelSelector == nil {
			return
		}
		addLabelRequirements(t.LabelSelector, t.MatchLabelKeys, metav1.LabelSelectorOpIn, labels)
		addLabelRequirements(t.LabelSelector, t.MismatchLabelKeys, metav1.LabelSelectorOpNotIn, labels)
	}
	for i := range preferred {
		merge(&preferred[i].PodAffinityTerm)
	}
	for i := range required {
		merge(&required[i])
	}
}

func addLabelRequirements(s *metav1.LabelSelector, keys []string, op metav1.LabelSelectorOperator, labels map[string]string) {
	for _, k := range keys {
		if v, ok := labels[k]; ok {
			s.MatchExpressions = append(s.MatchExpressions, metav1.LabelSelectorRequirement{Key: k, Operator: op, Values: []string{v}})
		}
	}
}
