package printers

import (
	"fmt"
	"strings"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The printers of autoscaling: HorizontalPodAutoscalers, rendered from
// their stored autoscaling/v2 form whichever version is asked.

var (
	hpaSpecDoc   = autoscalingv2.HorizontalPodAutoscalerSpec{}.SwaggerDoc()
	hpaStatusDoc = autoscalingv2.HorizontalPodAutoscalerStatus{}.SwaggerDoc()
)

var horizontalPodAutoscalerColumns = []metav1.TableColumnDefinition{
	nameColumn,
	column("Reference", "string", hpaSpecDoc["scaleTargetRef"]),
	column("Targets", "string", hpaSpecDoc["metrics"]),
	column("MinPods", "string", hpaSpecDoc["minReplicas"]),
	column("MaxPods", "string", hpaSpecDoc["maxReplicas"]),
	column("Replicas", "string", hpaStatusDoc["currentReplicas"]),
	ageColumn,
}

func printHorizontalPodAutoscaler(hpa *autoscalingv2.HorizontalPodAutoscaler, now time.Time) []any {
	reference := hpa.Spec.ScaleTargetRef.Kind + "/" + hpa.Spec.ScaleTargetRef.Name
	minPods := "<unset>"
	if hpa.Spec.MinReplicas != nil {
		minPods = fmt.Sprintf("%d", *hpa.Spec.MinReplicas)
	}
	return []any{hpa.Name, reference, hpaTargets(hpa.Spec.Metrics, hpa.Status.CurrentMetrics), minPods,
		int64(hpa.Spec.MaxReplicas), int64(hpa.Status.CurrentReplicas), since(hpa.CreationTimestamp, now)}
}

// hpaTargets renders the first two metrics as current/target, the
// current value read from the status at the same index.
func hpaTargets(specs []autoscalingv2.MetricSpec, statuses []autoscalingv2.MetricStatus) string {
	if len(specs) == 0 {
		return "<none>"
	}
	const shown = 2
	var list []string
	for i, spec := range specs {
		var status *autoscalingv2.MetricStatus
		if i < len(statuses) {
			status = &statuses[i]
		}
		list = append(list, hpaTarget(&spec, status))
	}
	if len(list) > shown {
		return fmt.Sprintf("%s + %d more...", strings.Join(list[:shown], ", "), len(list)-shown)
	}
	return strings.Join(list, ", ")
}

func hpaTarget(spec *autoscalingv2.MetricSpec, status *autoscalingv2.MetricStatus) string {
	const unknown = "<unknown>"
	current := unknown
	switch {
	case spec.Type == autoscalingv2.ExternalMetricSourceType && spec.External != nil:
		t := spec.External.Target
		if t.AverageValue != nil {
			if status != nil && status.External != nil && status.External.Current.AverageValue != nil {
				current = status.External.Current.AverageValue.String()
			}
			return fmt.Sprintf("%s/%s (avg)", current, t.AverageValue.String())
		}
		if status != nil && status.External != nil {
			current = status.External.Current.Value.String()
		}
		return fmt.Sprintf("%s/%s", current, t.Value.String())
	case spec.Type == autoscalingv2.PodsMetricSourceType && spec.Pods != nil:
		if status != nil && status.Pods != nil {
			current = status.Pods.Current.AverageValue.String()
		}
		return fmt.Sprintf("%s/%s", current, spec.Pods.Target.AverageValue.String())
	case spec.Type == autoscalingv2.ObjectMetricSourceType && spec.Object != nil:
		t := spec.Object.Target
		if t.AverageValue != nil {
			if status != nil && status.Object != nil && status.Object.Current.AverageValue != nil {
				current = status.Object.Current.AverageValue.String()
			}
			return fmt.Sprintf("%s/%s (avg)", current, t.AverageValue.String())
		}
		if status != nil && status.Object != nil {
			current = status.Object.Current.Value.String()
		}
		return fmt.Sprintf("%s/%s", current, t.Value.String())
	case spec.Type == autoscalingv2.ResourceMetricSourceType && spec.Resource != nil:
		var cur *autoscalingv2.MetricValueStatus
		if status != nil && status.Resource != nil {
			cur = &status.Resource.Current
		}
		return resourceTarget(string(spec.Resource.Name), spec.Resource.Target, cur)
	case spec.Type == autoscalingv2.ContainerResourceMetricSourceType && spec.ContainerResource != nil:
		var cur *autoscalingv2.MetricValueStatus
		if status != nil && status.ContainerResource != nil {
			cur = &status.ContainerResource.Current
		}
		return resourceTarget(string(spec.ContainerResource.Name), spec.ContainerResource.Target, cur)
	}
	return "<unknown type>"
}

// resourceTarget renders a resource metric: a raw average value, or a
// utilization in percent.
func resourceTarget(name string, target autoscalingv2.MetricTarget, cur *autoscalingv2.MetricValueStatus) string {
	current := "<unknown>"
	if target.AverageValue != nil {
		if cur != nil {
			current = cur.AverageValue.String()
		}
		return fmt.Sprintf("%s: %s/%s", name, current, target.AverageValue.String())
	}
	if cur != nil && cur.AverageUtilization != nil {
		current = fmt.Sprintf("%d%%", *cur.AverageUtilization)
	}
	goal := "<auto>"
	if target.AverageUtilization != nil {
		goal = fmt.Sprintf("%d%%", *target.AverageUtilization)
	}
	return fmt.Sprintf("%s: %s/%s", name, current, goal)
}
