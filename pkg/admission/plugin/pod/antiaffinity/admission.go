// Package antiaffinity is the LimitPodHardAntiAffinityTopology admission
// plugin (off by default): a pod's required anti-affinity may only spread
// it across hosts (topology key kubernetes.io/hostname), not across
// zones or regions, which would let one pod keep a whole zone from
// others.
package antiaffinity

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kapi-dev/kapi/pkg/admission"
)

// PluginName is the plugin's name in --enable-admission-plugins.
const PluginName = "LimitPodHardAntiAffinityTopology"

// Plugin is the plugin, validating creates and updates of pods.
type Plugin struct{ admission.Handler }

// New returns the plugin.
func New() *Plugin { return &Plugin{Handler: admission.NewHandler(admission.Create, admission.Update)} }

// Validate refuses required anti-affinity terms of another topology key.
func (p *Plugin) Validate(_ context.Context, a *admission.Attributes) error {
	if a.Subresource != "" || a.Resource.Group != "" || a.Resource.Resource != "pods" {
		return nil
	}
	pod, ok := a.Object.(*corev1.Pod)
	if !ok {
		return apierrors.NewBadRequest("Resource was marked with kind Pod but was unable to be converted")
	}
	if pod.Spec.Affinity == nil || pod.Spec.Affinity.PodAntiAffinity == nil {
		return nil
	}
	for _, term := range pod.Spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
		if term.TopologyKey != corev1.LabelHostname {
			// kube-apiserver names the pod by its name, even when it is
			// still to be generated.
			return apierrors.NewForbidden(a.Resource.GroupResource(), pod.Name, fmt.Errorf("affinity.PodAntiAffinity.RequiredDuringScheduling has TopologyKey %v but only key %v is allowed", term.TopologyKey, corev1.LabelHostname))
		}
	}
	return nil
}
