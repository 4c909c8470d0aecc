package autoscaling

import (
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/apimachinery/pkg/runtime"
)

// AddDefaults registers the defaulting functions of both versions of
// HorizontalPodAutoscaler, and of their lists, in scheme. An
// autoscaling/v2 HPA also loses the round-trip annotations as it is
// decoded: kube-apiserver drops them in its conversions to and from v2,
// so a v2 client can neither store nor see them.
func AddDefaults(scheme *runtime.Scheme) error {
	v2 := func(hpa *autoscalingv2.HorizontalPodAutoscaler) {
		DropRoundTripAnnotations(hpa)
		SetDefaultsHorizontalPodAutoscaler(hpa)
	}
	scheme.AddTypeDefaultingFunc(&autoscalingv2.HorizontalPodAutoscaler{}, func(obj any) {
		v2(obj.(*autoscalingv2.HorizontalPodAutoscaler))
	})
	scheme.AddTypeDefaultingFunc(&autoscalingv2.HorizontalPodAutoscalerList{}, func(obj any) {
		list := obj.(*autoscalingv2.HorizontalPodAutoscalerList)
		for i := range list.Items {
			v2(&list.Items[i])
		}
	})
	scheme.AddTypeDefaultingFunc(&autoscalingv1.HorizontalPodAutoscaler{}, func(obj any) {
		SetDefaultsHorizontalPodAutoscalerV1(obj.(*autoscalingv1.HorizontalPodAutoscaler))
	})
	scheme.AddTypeDefaultingFunc(&autoscalingv1.HorizontalPodAutoscalerList{}, func(obj any) {
		list := obj.(*autoscalingv1.HorizontalPodAutoscalerList)
		for i := range list.Items {
			SetDefaultsHorizontalPodAutoscalerV1(&list.Items[i])
		}
	})
	return nil
}
