package autoscaling

import (
	"encoding/json"
	"maps"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/conversion"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/pkg/apis/internal/gofields"
)

// The annotations of an autoscaling/v1 HPA that carry what v1 cannot
// hold.
const (
	MetricSpecsAnnotation        = "autoscaling.alpha.kubernetes.io/metrics"
	MetricStatusesAnnotation     = "autoscaling.alpha.kubernetes.io/current-metrics"
	ConditionsAnnotation         = "autoscaling.alpha.kubernetes.io/conditions"
	BehaviorSpecsAnnotation      = "autoscaling.alpha.kubernetes.io/behavior"
	ToleranceScaleDownAnnotation = "autoscaling.alpha.kubernetes.io/scale-down-tolerance"
	ToleranceScaleUpAnnotation   = "autoscaling.alpha.kubernetes.io/scale-up-tolerance"
)

var roundTripAnnotations = []string{
	MetricSpecsAnnotation, BehaviorSpecsAnnotation, ToleranceScaleDownAnnotation,
	ToleranceScaleUpAnnotation, MetricStatusesAnnotation, ConditionsAnnotation,
}

// DropRoundTripAnnotations removes the round-trip annotations from an
// HPA about to be stored: they belong to autoscaling/v1's form only,
// whichever version a client wrote them through.
func DropRoundTripAnnotations(hpa *autoscalingv2.HorizontalPodAutoscaler) {
	hpa.Annotations = dropRoundTripAnnotations(hpa.Annotations)
}

// dropRoundTripAnnotations returns annotations without the round-trip
// ones, copied if it had any.
func dropRoundTripAnnotations(annotations map[string]string) map[string]string {
	found := false
	for _, a := range roundTripAnnotations {
		if _, ok := annotations[a]; ok {
			found = true
		}
	}
	if !found {
		return annotations
	}
	out := maps.Clone(annotations)
	for _, a := range roundTripAnnotations {
		delete(out, a)
	}
	return out
}

// isCPUUtilization reports whether m is the one metric v1 has a field
// for.
func isCPUUtilization(m *autoscalingv2.MetricSpec) bool {
	return m.Type == autoscalingv2.ResourceMetricSourceType && m.Resource != nil &&
		m.Resource.Name == corev1.ResourceCPU && m.Resource.Target.AverageUtilization != nil
}

// ToV1 returns the autoscaling/v1 form of an HPA: the CPU utilization
// target in its field, the rest in annotations.
func ToV1(in *autoscalingv2.HorizontalPodAutoscaler) (*autoscalingv1.HorizontalPodAutoscaler, error) {
	in = in.DeepCopy()
	out := &autoscalingv1.HorizontalPodAutoscaler{TypeMeta: in.TypeMeta, ObjectMeta: in.ObjectMeta}
	out.Annotations = dropRoundTripAnnotations(out.Annotations)
	spec := &in.Spec
	out.Spec = autoscalingv1.HorizontalPodAutoscalerSpec{
		ScaleTargetRef: autoscalingv1.CrossVersionObjectReference(spec.ScaleTargetRef),
		MinReplicas:    spec.MinReplicas,
		MaxReplicas:    spec.MaxReplicas,
	}
	var otherMetrics []autoscalingv1.MetricSpec
	for i := range spec.Metrics {
		m := &spec.Metrics[i]
		if isCPUUtilization(m) {
			if out.Spec.TargetCPUUtilizationPercentage == nil {
				out.Spec.TargetCPUUtilizationPercentage = ptr(*m.Resource.Target.AverageUtilization)
			}
			continue
		}
		otherMetrics = append(otherMetrics, metricSpecToV1(m))
	}

	status := &in.Status
	out.Status = autoscalingv1.HorizontalPodAutoscalerStatus{
		ObservedGeneration: status.ObservedGeneration,
		LastScaleTime:      status.LastScaleTime,
		CurrentReplicas:    status.CurrentReplicas,
		DesiredReplicas:    status.DesiredReplicas,
	}
	currentMetrics := make([]autoscalingv1.MetricStatus, len(status.CurrentMetrics))
	for i := range status.CurrentMetrics {
		m := &status.CurrentMetrics[i]
		if m.Type == autoscalingv2.ResourceMetricSourceType && m.Resource != nil && m.Resource.Name == corev1.ResourceCPU && m.Resource.Current.AverageUtilization != nil {
			out.Status.CurrentCPUUtilizationPercentage = ptr(*m.Resource.Current.AverageUtilization)
		}
		currentMetrics[i] = metricStatusToV1(m)
	}
	conditions := make([]autoscalingv1.HorizontalPodAutoscalerCondition, len(status.Conditions))
	for i, c := range status.Conditions {
		conditions[i] = autoscalingv1.HorizontalPodAutoscalerCondition{
			Type: autoscalingv1.HorizontalPodAutoscalerConditionType(c.Type), Status: c.Status,
			LastTransitionTime: c.LastTransitionTime, Reason: c.Reason, Message: c.Message, ObservedGeneration: c.ObservedGeneration,
		}
	}

	annotate := func(key string, v any) error {
		data, err := json.Marshal(v)
		if err != nil {
			return err
		}
		// in is a copy: its annotations are ours to change.
		if out.Annotations == nil {
			out.Annotations = map[string]string{}
		}
		out.Annotations[key] = string(data)
		return nil
	}
	if len(otherMetrics) > 0 {
		if err := annotate(MetricSpecsAnnotation, otherMetrics); err != nil {
			return nil, err
		}
	}
	if len(status.CurrentMetrics) > 0 {
		if err := annotate(MetricStatusesAnnotation, currentMetrics); err != nil {
			return nil, err
		}
	}
	if spec.Behavior != nil {
		// kube-apiserver writes its internal type: Go field names.
		if err := annotate(BehaviorSpecsAnnotation, gofields.Value(spec.Behavior)); err != nil {
			return nil, err
		}
	}
	if len(status.Conditions) > 0 {
		if err := annotate(ConditionsAnnotation, conditions); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// FromV1 returns the autoscaling/v2 form of an autoscaling/v1 HPA, with
// what its annotations carry restored and the annotations dropped.
// Annotations that do not parse are ignored, as kube-apiserver does.
func FromV1(in *autoscalingv1.HorizontalPodAutoscaler) *autoscalingv2.HorizontalPodAutoscaler {
	in = in.DeepCopy()
	out := &autoscalingv2.HorizontalPodAutoscaler{TypeMeta: in.TypeMeta, ObjectMeta: in.ObjectMeta}
	out.Spec = autoscalingv2.HorizontalPodAutoscalerSpec{
		ScaleTargetRef: autoscalingv2.CrossVersionObjectReference(in.Spec.ScaleTargetRef),
		MinReplicas:    in.Spec.MinReplicas,
		MaxReplicas:    in.Spec.MaxReplicas,
	}
	var cpu []autoscalingv2.MetricSpec
	if t := in.Spec.TargetCPUUtilizationPercentage; t != nil {
		cpu = []autoscalingv2.MetricSpec{cpuUtilization(*t)}
	}
	out.Spec.Metrics = cpu
	out.Status = autoscalingv2.HorizontalPodAutoscalerStatus{
		ObservedGeneration: in.Status.ObservedGeneration,
		LastScaleTime:      in.Status.LastScaleTime,
		CurrentReplicas:    in.Status.CurrentReplicas,
		DesiredReplicas:    in.Status.DesiredReplicas,
	}
	if c := in.Status.CurrentCPUUtilizationPercentage; c != nil {
		out.Status.CurrentMetrics = []autoscalingv2.MetricStatus{{
			Type:     autoscalingv2.ResourceMetricSourceType,
			Resource: &autoscalingv2.ResourceMetricStatus{Name: corev1.ResourceCPU, Current: autoscalingv2.MetricValueStatus{AverageUtilization: ptr(*c)}},
		}}
	}

	if enc, ok := out.Annotations[MetricSpecsAnnotation]; ok {
		var other []autoscalingv1.MetricSpec
		if err := json.Unmarshal([]byte(enc), &other); err == nil {
			metrics := make([]autoscalingv2.MetricSpec, 0, len(other)+len(cpu))
			for i := range other {
				metrics = append(metrics, metricSpecFromV1(&other[i]))
			}
			out.Spec.Metrics = append(metrics, cpu...)
		}
	}
	if enc, ok := out.Annotations[BehaviorSpecsAnnotation]; ok {
		var behavior autoscalingv2.HorizontalPodAutoscalerBehavior
		if err := json.Unmarshal([]byte(enc), &behavior); err == nil && (behavior.ScaleUp != nil || behavior.ScaleDown != nil) {
			out.Spec.Behavior = &behavior
		}
	}
	if enc, ok := out.Annotations[MetricStatusesAnnotation]; ok {
		var current []autoscalingv1.MetricStatus
		if err := json.Unmarshal([]byte(enc), &current); err == nil {
			out.Status.CurrentMetrics = make([]autoscalingv2.MetricStatus, len(current))
			for i := range current {
				out.Status.CurrentMetrics[i] = metricStatusFromV1(&current[i])
			}
		}
	}
	if len(out.Spec.Metrics) == 0 {
		out.Spec.Metrics = []autoscalingv2.MetricSpec{cpuUtilization(DefaultCPUUtilization)}
	}
	if enc, ok := out.Annotations[ConditionsAnnotation]; ok {
		var conditions []autoscalingv1.HorizontalPodAutoscalerCondition
		if err := json.Unmarshal([]byte(enc), &conditions); err == nil {
			out.Status.Conditions = make([]autoscalingv2.HorizontalPodAutoscalerCondition, len(conditions))
			for i, c := range conditions {
				out.Status.Conditions[i] = autoscalingv2.HorizontalPodAutoscalerCondition{
					Type: autoscalingv2.HorizontalPodAutoscalerConditionType(c.Type), Status: c.Status,
					LastTransitionTime: c.LastTransitionTime, Reason: c.Reason, Message: c.Message, ObservedGeneration: c.ObservedGeneration,
				}
			}
		}
	}
	out.Annotations = dropRoundTripAnnotations(out.Annotations)
	return out
}

func cpuUtilization(percent int32) autoscalingv2.MetricSpec {
	return autoscalingv2.MetricSpec{
		Type: autoscalingv2.ResourceMetricSourceType,
		Resource: &autoscalingv2.ResourceMetricSource{
			Name:   corev1.ResourceCPU,
			Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr(percent)},
		},
	}
}

func metricSpecToV1(in *autoscalingv2.MetricSpec) autoscalingv1.MetricSpec {
	out := autoscalingv1.MetricSpec{Type: autoscalingv1.MetricSourceType(in.Type)}
	if s := in.Object; s != nil {
		o := &autoscalingv1.ObjectMetricSource{
			Target:       autoscalingv1.CrossVersionObjectReference(s.DescribedObject),
			MetricName:   s.Metric.Name,
			Selector:     s.Metric.Selector,
			AverageValue: s.Target.AverageValue,
		}
		if s.Target.Value != nil {
			o.TargetValue = *s.Target.Value
		}
		out.Object = o
	}
	if s := in.Pods; s != nil {
		p := &autoscalingv1.PodsMetricSource{MetricName: s.Metric.Name, Selector: s.Metric.Selector}
		if s.Target.AverageValue != nil {
			p.TargetAverageValue = *s.Target.AverageValue
		}
		out.Pods = p
	}
	if s := in.Resource; s != nil {
		out.Resource = &autoscalingv1.ResourceMetricSource{Name: s.Name, TargetAverageUtilization: s.Target.AverageUtilization, TargetAverageValue: s.Target.AverageValue}
	}
	if s := in.ContainerResource; s != nil {
		out.ContainerResource = &autoscalingv1.ContainerResourceMetricSource{Name: s.Name, Container: s.Container,
			TargetAverageUtilization: s.Target.AverageUtilization, TargetAverageValue: s.Target.AverageValue}
	}
	if s := in.External; s != nil {
		out.External = &autoscalingv1.ExternalMetricSource{MetricName: s.Metric.Name, MetricSelector: s.Metric.Selector,
			TargetValue: s.Target.Value, TargetAverageValue: s.Target.AverageValue}
	}
	return out
}

func metricSpecFromV1(in *autoscalingv1.MetricSpec) autoscalingv2.MetricSpec {
	out := autoscalingv2.MetricSpec{Type: autoscalingv2.MetricSourceType(in.Type)}
	if s := in.Object; s != nil {
		target := autoscalingv2.MetricTarget{Type: autoscalingv2.ValueMetricType, Value: ptr(s.TargetValue), AverageValue: s.AverageValue}
		if s.AverageValue != nil {
			target.Type, target.Value = autoscalingv2.AverageValueMetricType, nil
			if !s.TargetValue.IsZero() {
				target.Value = ptr(s.TargetValue)
			}
		}
		out.Object = &autoscalingv2.ObjectMetricSource{
			DescribedObject: autoscalingv2.CrossVersionObjectReference(s.Target),
			Metric:          autoscalingv2.MetricIdentifier{Name: s.MetricName, Selector: s.Selector},
			Target:          target,
		}
	}
	if s := in.Pods; s != nil {
		out.Pods = &autoscalingv2.PodsMetricSource{
			Metric: autoscalingv2.MetricIdentifier{Name: s.MetricName, Selector: s.Selector},
			Target: autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: ptr(s.TargetAverageValue)},
		}
	}
	if s := in.Resource; s != nil {
		out.Resource = &autoscalingv2.ResourceMetricSource{Name: s.Name, Target: resourceTarget(s.TargetAverageUtilization, s.TargetAverageValue)}
	}
	if s := in.ContainerResource; s != nil {
		out.ContainerResource = &autoscalingv2.ContainerResourceMetricSource{Name: s.Name, Container: s.Container,
			Target: resourceTarget(s.TargetAverageUtilization, s.TargetAverageValue)}
	}
	if s := in.External; s != nil {
		target := autoscalingv2.MetricTarget{Type: autoscalingv2.ValueMetricType, Value: s.TargetValue, AverageValue: s.TargetAverageValue}
		if s.TargetValue == nil {
			target.Type = autoscalingv2.AverageValueMetricType
		}
		out.External = &autoscalingv2.ExternalMetricSource{
			Metric: autoscalingv2.MetricIdentifier{Name: s.MetricName, Selector: s.MetricSelector},
			Target: target,
		}
	}
	return out
}

func resourceTarget(utilization *int32, averageValue *resource.Quantity) autoscalingv2.MetricTarget {
	t := autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: averageValue, AverageUtilization: utilization}
	if utilization != nil {
		t.Type = autoscalingv2.UtilizationMetricType
	}
	return t
}

func metricStatusToV1(in *autoscalingv2.MetricStatus) autoscalingv1.MetricStatus {
	out := autoscalingv1.MetricStatus{Type: autoscalingv1.MetricSourceType(in.Type)}
	if s := in.Object; s != nil {
		o := &autoscalingv1.ObjectMetricStatus{
			Target:     autoscalingv1.CrossVersionObjectReference(s.DescribedObject),
			MetricName: s.Metric.Name,
			Selector:   s.Metric.Selector,
		}
		if s.Current.Value != nil {
			o.CurrentValue = *s.Current.Value
		}
		if s.Current.AverageValue != nil {
			o.AverageValue = ptr(*s.Current.AverageValue)
		}
		out.Object = o
	}
	if s := in.Pods; s != nil {
		p := &autoscalingv1.PodsMetricStatus{MetricName: s.Metric.Name, Selector: s.Metric.Selector}
		if s.Current.AverageValue != nil {
			p.CurrentAverageValue = *s.Current.AverageValue
		}
		out.Pods = p
	}
	if s := in.Resource; s != nil {
		r := &autoscalingv1.ResourceMetricStatus{Name: s.Name, CurrentAverageUtilization: s.Current.AverageUtilization}
		if s.Current.AverageValue != nil {
			r.CurrentAverageValue = *s.Current.AverageValue
		}
		out.Resource = r
	}
	if s := in.ContainerResource; s != nil {
		r := &autoscalingv1.ContainerResourceMetricStatus{Name: s.Name, Container: s.Container, CurrentAverageUtilization: s.Current.AverageUtilization}
		if s.Current.AverageValue != nil {
			r.CurrentAverageValue = *s.Current.AverageValue
		}
		out.ContainerResource = r
	}
	if s := in.External; s != nil {
		e := &autoscalingv1.ExternalMetricStatus{MetricName: s.Metric.Name, MetricSelector: s.Metric.Selector, CurrentAverageValue: s.Current.AverageValue}
		if s.Current.Value != nil {
			e.CurrentValue = *s.Current.Value
		}
		out.External = e
	}
	return out
}

func metricStatusFromV1(in *autoscalingv1.MetricStatus) autoscalingv2.MetricStatus {
	out := autoscalingv2.MetricStatus{Type: autoscalingv2.MetricSourceType(in.Type)}
	if s := in.Object; s != nil {
		out.Object = &autoscalingv2.ObjectMetricStatus{
			DescribedObject: autoscalingv2.CrossVersionObjectReference(s.Target),
			Metric:          autoscalingv2.MetricIdentifier{Name: s.MetricName, Selector: s.Selector},
			Current:         autoscalingv2.MetricValueStatus{Value: ptr(s.CurrentValue), AverageValue: s.AverageValue},
		}
	}
	if s := in.Pods; s != nil {
		out.Pods = &autoscalingv2.PodsMetricStatus{
			Metric:  autoscalingv2.MetricIdentifier{Name: s.MetricName, Selector: s.Selector},
			Current: autoscalingv2.MetricValueStatus{AverageValue: ptr(s.CurrentAverageValue)},
		}
	}
	if s := in.Resource; s != nil {
		out.Resource = &autoscalingv2.ResourceMetricStatus{Name: s.Name,
			Current: autoscalingv2.MetricValueStatus{AverageValue: ptr(s.CurrentAverageValue), AverageUtilization: s.CurrentAverageUtilization}}
	}
	if s := in.ContainerResource; s != nil {
		out.ContainerResource = &autoscalingv2.ContainerResourceMetricStatus{Name: s.Name, Container: s.Container,
			Current: autoscalingv2.MetricValueStatus{AverageValue: ptr(s.CurrentAverageValue), AverageUtilization: s.CurrentAverageUtilization}}
	}
	if s := in.External; s != nil {
		out.External = &autoscalingv2.ExternalMetricStatus{
			Metric:  autoscalingv2.MetricIdentifier{Name: s.MetricName, Selector: s.MetricSelector},
			Current: autoscalingv2.MetricValueStatus{Value: ptr(s.CurrentValue), AverageValue: s.CurrentAverageValue},
		}
	}
	return out
}

// AddConversions registers the conversions between autoscaling/v1 and
// autoscaling/v2 HPAs, and their lists, in scheme.
func AddConversions(scheme *runtime.Scheme) error {
	if err := scheme.AddConversionFunc((*autoscalingv1.HorizontalPodAutoscaler)(nil), (*autoscalingv2.HorizontalPodAutoscaler)(nil), func(a, b any, _ conversion.Scope) error {
		*b.(*autoscalingv2.HorizontalPodAutoscaler) = *FromV1(a.(*autoscalingv1.HorizontalPodAutoscaler))
		return nil
	}); err != nil {
		return err
	}
	if err := scheme.AddConversionFunc((*autoscalingv2.HorizontalPodAutoscaler)(nil), (*autoscalingv1.HorizontalPodAutoscaler)(nil), func(a, b any, _ conversion.Scope) error {
		out, err := ToV1(a.(*autoscalingv2.HorizontalPodAutoscaler))
		if err != nil {
			return err
		}
		*b.(*autoscalingv1.HorizontalPodAutoscaler) = *out
		return nil
	}); err != nil {
		return err
	}
	if err := scheme.AddConversionFunc((*autoscalingv1.HorizontalPodAutoscalerList)(nil), (*autoscalingv2.HorizontalPodAutoscalerList)(nil), func(a, b any, _ conversion.Scope) error {
		in, out := a.(*autoscalingv1.HorizontalPodAutoscalerList), b.(*autoscalingv2.HorizontalPodAutoscalerList)
		out.ListMeta = in.ListMeta
		out.Items = make([]autoscalingv2.HorizontalPodAutoscaler, len(in.Items))
		for i := range in.Items {
			out.Items[i] = *FromV1(&in.Items[i])
		}
		return nil
	}); err != nil {
		return err
	}
	return scheme.AddConversionFunc((*autoscalingv2.HorizontalPodAutoscalerList)(nil), (*autoscalingv1.HorizontalPodAutoscalerList)(nil), func(a, b any, _ conversion.Scope) error {
		in, out := a.(*autoscalingv2.HorizontalPodAutoscalerList), b.(*autoscalingv1.HorizontalPodAutoscalerList)
		out.ListMeta = in.ListMeta
		out.Items = make([]autoscalingv1.HorizontalPodAutoscaler, len(in.Items))
		for i := range in.Items {
			hpa, err := ToV1(&in.Items[i])
			if err != nil {
				return err
			}
			out.Items[i] = *hpa
		}
		return nil
	})
}
