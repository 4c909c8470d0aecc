package discovery

import (
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// SetDefaultsEndpointSlice gives each port a name (empty) and a protocol
// (TCP) when it has none.
func SetDefaultsEndpointSlice(es *discoveryv1.EndpointSlice) {
	for i := range es.Ports {
		p := &es.Ports[i]
		if p.Name == nil {
			p.Name = new(string)
		}
		if p.Protocol == nil {
			tcp := corev1.ProtocolTCP
			p.Protocol = &tcp
		}
	}
}

// AddDefaults registers the defaulting functions of discovery.k8s.io/v1
// in scheme.
func AddDefaults(scheme *runtime.Scheme) error {
	scheme.AddTypeDefaultingFunc(&discoveryv1.EndpointSlice{}, func(obj any) { SetDefaultsEndpointSlice(obj.(*discoveryv1.EndpointSlice)) })
	scheme.AddTypeDefaultingFunc(&discoveryv1.EndpointSliceList{}, func(obj any) {
		list := obj.(*discoveryv1.EndpointSliceList)
		for i := range list.Items {
			SetDefaultsEndpointSlice(&list.Items[i])
		}
	})
	return nil
}
