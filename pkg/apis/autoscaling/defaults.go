package autoscaling

import (
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
)

// DefaultCPUUtilization is the target of an HPA given no metric: 80% of
// the CPU its pods request.
const DefaultCPUUtilization = 80

// SetDefaultsHorizontalPodAutoscaler applies the defaults of an
// autoscaling/v2 HPA: at least one replica, the default CPU target when
// there is no metric, and, when a behavior is given, kube-apiserver's
// scaling rules for the directions it leaves out.
func SetDefaultsHorizontalPodAutoscaler(hpa *autoscalingv2.HorizontalPodAutoscaler) {
	if hpa.Spec.MinReplicas == nil {
		hpa.Spec.MinReplicas = ptr[int32](1)
	}
	if len(hpa.Spec.Metrics) == 0 {
		hpa.Spec.Metrics = []autoscalingv2.MetricSpec{defaultCPUMetric()}
	}
	if b := hpa.Spec.Behavior; b != nil {
		b.ScaleUp = withRuleDefaults(b.ScaleUp, defaultScaleUpRules())
		b.ScaleDown = withRuleDefaults(b.ScaleDown, defaultScaleDownRules())
	}
}

// SetDefaultsHorizontalPodAutoscalerV1 applies the defaults of an
// autoscaling/v1 HPA: at least one replica. The default CPU target comes
// with the conversion to v2.
func SetDefaultsHorizontalPodAutoscalerV1(hpa *autoscalingv1.HorizontalPodAutoscaler) {
	if hpa.Spec.MinReplicas == nil {
		hpa.Spec.MinReplicas = ptr[int32](1)
	}
}

func defaultCPUMetric() autoscalingv2.MetricSpec {
	return autoscalingv2.MetricSpec{
		Type: autoscalingv2.ResourceMetricSourceType,
		Resource: &autoscalingv2.ResourceMetricSource{
			Name: corev1.ResourceCPU,
			Target: autoscalingv2.MetricTarget{
				Type:               autoscalingv2.UtilizationMetricType,
				AverageUtilization: ptr[int32](DefaultCPUUtilization),
			},
		},
	}
}

// defaultScaleUpRules: scale up at once, by up to 4 pods or 100% every 15
// seconds, whichever is more.
func defaultScaleUpRules() *autoscalingv2.HPAScalingRules {
	return &autoscalingv2.HPAScalingRules{
		StabilizationWindowSeconds: ptr[int32](0),
		SelectPolicy:               ptr(autoscalingv2.MaxChangePolicySelect),
		Policies: []autoscalingv2.HPAScalingPolicy{
			{Type: autoscalingv2.PodsScalingPolicy, Value: 4, PeriodSeconds: 15},
			{Type: autoscalingv2.PercentScalingPolicy, Value: 100, PeriodSeconds: 15},
		},
	}
}

// defaultScaleDownRules: scale down by up to 100% every 15 seconds, after
// the controller's own stabilization window (left unset).
func defaultScaleDownRules() *autoscalingv2.HPAScalingRules {
	return &autoscalingv2.HPAScalingRules{
		SelectPolicy: ptr(autoscalingv2.MaxChangePolicySelect),
		Policies: []autoscalingv2.HPAScalingPolicy{
			{Type: autoscalingv2.PercentScalingPolicy, Value: 100, PeriodSeconds: 15},
		},
	}
}

// withRuleDefaults returns the defaults with what rules sets.
func withRuleDefaults(rules, defaults *autoscalingv2.HPAScalingRules) *autoscalingv2.HPAScalingRules {
	if rules == nil {
		return defaults
	}
	if rules.SelectPolicy != nil {
		defaults.SelectPolicy = rules.SelectPolicy
	}
	if rules.StabilizationWindowSeconds != nil {
		defaults.StabilizationWindowSeconds = rules.StabilizationWindowSeconds
	}
	if rules.Policies != nil {
		defaults.Policies = rules.Policies
	}
	if rules.Tolerance != nil {
		defaults.Tolerance = rules.Tolerance
	}
	return defaults
}

func ptr[T any](v T) *T { return &v }
