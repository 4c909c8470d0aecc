package gated

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/pkg/features"
)

// Defaulter is d, the scheme's defaulting of what clients write, followed
// by the defaults of gated features, as kube-apiserver's defaulting
// gives them when the gate is on: with H2CContainerProbe, the HTTP
// probes and lifecycle hooks of a Pod (not of a pod template) that name
// no protocol get HTTP1.
func Defaulter(d runtime.ObjectDefaulter, g features.Gates) runtime.ObjectDefaulter {
	return defaulter{d, g}
}

type defaulter struct {
	runtime.ObjectDefaulter
	gates features.Gates
}

func (d defaulter) Default(obj runtime.Object) {
	d.ObjectDefaulter.Default(obj)
	if pod, ok := obj.(*corev1.Pod); ok && d.gates.Enabled(H2CContainerProbe) {
		eachContainer(&pod.Spec, func(c *corev1.Container) {
			for _, h := range httpGets(c) {
				if h.Protocol == nil {
					h.Protocol = ptr.To(corev1.HTTPProtocolHTTP1)
				}
			}
		})
	}
}
