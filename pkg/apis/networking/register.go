package networking

import (
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// AddDefaults registers the defaulting functions of the networking.k8s.io/v1
// kinds that have defaults, and of their lists, in scheme.
func AddDefaults(scheme *runtime.Scheme) error {
	scheme.AddTypeDefaultingFunc(&networkingv1.NetworkPolicy{}, func(obj any) { SetDefaultsNetworkPolicy(obj.(*networkingv1.NetworkPolicy)) })
	scheme.AddTypeDefaultingFunc(&networkingv1.NetworkPolicyList{}, func(obj any) {
		list := obj.(*networkingv1.NetworkPolicyList)
		for i := range list.Items {
			SetDefaultsNetworkPolicy(&list.Items[i])
		}
	})
	scheme.AddTypeDefaultingFunc(&networkingv1.IngressClass{}, func(obj any) { SetDefaultsIngressClass(obj.(*networkingv1.IngressClass)) })
	scheme.AddTypeDefaultingFunc(&networkingv1.IngressClassList{}, func(obj any) {
		list := obj.(*networkingv1.IngressClassList)
		for i := range list.Items {
			SetDefaultsIngressClass(&list.Items[i])
		}
	})
	return nil
}
