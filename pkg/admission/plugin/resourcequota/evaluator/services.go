package evaluator

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/pkg/admission"
)

var serviceCountName = CountName(corev1.Resource("services"))

var serviceResources = []corev1.ResourceName{
	serviceCountName,
	corev1.ResourceServices,
	corev1.ResourceServicesNodePorts,
	corev1.ResourceServicesLoadBalancers,
}

// Services measures services: their count, their node ports and load
// balancers. An update can change the type, so updates count too.
type Services struct{}

func toService(obj runtime.Object) (*corev1.Service, error) {
	svc, ok := obj.(*corev1.Service)
	if !ok {
		return nil, fmt.Errorf("expect *api.Service or *v1.Service, got %T", obj)
	}
	return svc, nil
}

func (Services) Handles(a *admission.Attributes) bool {
	return a.Subresource == "" && (a.Operation == admission.Create || a.Operation == admission.Update)
}

func (Services) Constraints([]corev1.ResourceName, runtime.Object) error { return nil }

func (s Services) Matches(quota *corev1.ResourceQuota, obj runtime.Object) (bool, error) {
	return matches(quota, obj, s.MatchingResources, noScope)
}

func (Services) MatchingScopes(runtime.Object, []corev1.ScopedResourceSelectorRequirement) ([]corev1.ScopedResourceSelectorRequirement, error) {
	return []corev1.ScopedResourceSelectorRequirement{}, nil
}

func (Services) UncoveredScopes(_, _ []corev1.ScopedResourceSelectorRequirement) []corev1.ScopedResourceSelectorRequirement {
	return []corev1.ScopedResourceSelectorRequirement{}
}

func (Services) MatchingResources(names []corev1.ResourceName) []corev1.ResourceName {
	return Intersection(names, serviceResources)
}

// Usage is one service; a NodePort service uses a node port per port,
// a LoadBalancer one a load balancer and a node port per port (only
// the ports with a node port when it allocates none itself).
func (Services) Usage(obj runtime.Object) (corev1.ResourceList, error) {
	svc, err := toService(obj)
	if err != nil {
		return corev1.ResourceList{}, err
	}
	ports := int64(len(svc.Spec.Ports))
	out := corev1.ResourceList{
		serviceCountName:                     one(),
		corev1.ResourceServices:              one(),
		corev1.ResourceServicesLoadBalancers: resource.Quantity{Format: resource.DecimalSI},
		corev1.ResourceServicesNodePorts:     resource.Quantity{Format: resource.DecimalSI},
	}
	switch svc.Spec.Type {
	case corev1.ServiceTypeNodePort:
		out[corev1.ResourceServicesNodePorts] = *resource.NewQuantity(ports, resource.DecimalSI)
	case corev1.ServiceTypeLoadBalancer:
		if a := svc.Spec.AllocateLoadBalancerNodePorts; a != nil && !*a {
			var n int64
			for _, p := range svc.Spec.Ports {
				if p.NodePort != 0 {
					n++
				}
			}
			ports = n
		}
		out[corev1.ResourceServicesNodePorts] = *resource.NewQuantity(ports, resource.DecimalSI)
		out[corev1.ResourceServicesLoadBalancers] = one()
	}
	return out, nil
}
