package autoscaling_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/pkg/apis/autoscaling"
)

func richHPA() *autoscalingv2.HorizontalPodAutoscaler {
	q := func(s string) *resource.Quantity { v := resource.MustParse(s); return &v }
	hpa := &autoscalingv2.HorizontalPodAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", Annotations: map[string]string{"note": "kept"}},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"},
			MaxReplicas:    10,
			Metrics: []autoscalingv2.MetricSpec{
				{Type: autoscalingv2.PodsMetricSourceType, Pods: &autoscalingv2.PodsMetricSource{
					Metric: autoscalingv2.MetricIdentifier{Name: "qps"},
					Target: autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: q("1k")},
				}},
				{Type: autoscalingv2.ExternalMetricSourceType, External: &autoscalingv2.ExternalMetricSource{
					Metric: autoscalingv2.MetricIdentifier{Name: "queue"},
					Target: autoscalingv2.MetricTarget{Type: autoscalingv2.ValueMetricType, Value: q("30")},
				}},
				{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{
					Name:   corev1.ResourceCPU,
					Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr(int32(70))},
				}},
			},
			Behavior: &autoscalingv2.HorizontalPodAutoscalerBehavior{ScaleDown: &autoscalingv2.HPAScalingRules{
				StabilizationWindowSeconds: ptr(int32(300)), Tolerance: q("50m"),
				Policies: []autoscalingv2.HPAScalingPolicy{{Type: autoscalingv2.PercentScalingPolicy, Value: 10, PeriodSeconds: 60}},
			}},
		},
		Status: autoscalingv2.HorizontalPodAutoscalerStatus{
			CurrentReplicas: 2, DesiredReplicas: 3,
			Conditions: []autoscalingv2.HorizontalPodAutoscalerCondition{{Type: autoscalingv2.AbleToScale, Status: corev1.ConditionTrue, Reason: "Ready"}},
		},
	}
	autoscaling.SetDefaultsHorizontalPodAutoscaler(hpa)
	return hpa
}

// A v1 client reads an HPA, and writes it back: nothing v1 cannot show
// is lost, and the annotations that carried it are not stored.
func TestV1RoundTripKeepsWhatV1CannotShow(t *testing.T) {
	hpa := richHPA()
	v1, err := autoscaling.ToV1(hpa)
	if err != nil {
		t.Fatal(err)
	}
	if got := *v1.Spec.TargetCPUUtilizationPercentage; got != 70 {
		t.Errorf("targetCPUUtilizationPercentage = %d, want 70", got)
	}
	for _, a := range []string{autoscaling.MetricSpecsAnnotation, autoscaling.BehaviorSpecsAnnotation, autoscaling.ConditionsAnnotation} {
		if _, ok := v1.Annotations[a]; !ok {
			t.Errorf("the v1 form lacks annotation %s", a)
		}
	}
	// kube-apiserver writes the behavior as its internal type.
	if want := `{"ScaleUp":{"StabilizationWindowSeconds":0,"SelectPolicy":"Max","Policies":[{"Type":"Pods","Value":4,"PeriodSeconds":15},{"Type":"Percent","Value":100,"PeriodSeconds":15}],"Tolerance":null},"ScaleDown":{"StabilizationWindowSeconds":300,"SelectPolicy":"Max","Policies":[{"Type":"Percent","Value":10,"PeriodSeconds":60}],"Tolerance":"50m"}}`; v1.Annotations[autoscaling.BehaviorSpecsAnnotation] != want {
		t.Errorf("behavior annotation:\n got %s\nwant %s", v1.Annotations[autoscaling.BehaviorSpecsAnnotation], want)
	}
	back := autoscaling.FromV1(v1)
	// v1 moves the CPU target last.
	want := hpa.DeepCopy()
	want.Spec.Metrics = append(want.Spec.Metrics[:2:2], want.Spec.Metrics[2])
	if diff := cmp.Diff(want, back); diff != "" {
		t.Errorf("v2 -> v1 -> v2 differs (-want +got):\n%s", diff)
	}
}

func TestFromV1WithoutTargetGetsTheDefaultCPUTarget(t *testing.T) {
	v1, err := autoscaling.ToV1(&autoscalingv2.HorizontalPodAutoscaler{})
	if err != nil {
		t.Fatal(err)
	}
	v2 := autoscaling.FromV1(v1)
	if len(v2.Spec.Metrics) != 1 || *v2.Spec.Metrics[0].Resource.Target.AverageUtilization != autoscaling.DefaultCPUUtilization {
		t.Errorf("metrics = %+v, want the default CPU target", v2.Spec.Metrics)
	}
}

func TestValidateHorizontalPodAutoscaler(t *testing.T) {
	hpa := richHPA()
	if errs := autoscaling.ValidateHorizontalPodAutoscaler(hpa); len(errs) != 0 {
		t.Fatalf("valid HPA: %v", errs)
	}
	hpa.Spec.MaxReplicas = 0
	hpa.Spec.ScaleTargetRef.APIVersion = "v1"
	var got []string
	for _, e := range autoscaling.ValidateHorizontalPodAutoscaler(hpa) {
		got = append(got, e.Error())
	}
	// The declarative checks report last, as in kube-apiserver 1.37.
	want := []string{
		"spec.maxReplicas: Invalid value: 0: must be greater than or equal to `minReplicas`",
		`spec.scaleTargetRef.apiVersion: Invalid value: "v1": apiVersion must specify API group`,
		"spec.maxReplicas: Required value",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}

func ptr[T any](v T) *T { return &v }
