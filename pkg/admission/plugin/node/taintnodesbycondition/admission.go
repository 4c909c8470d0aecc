// Package taintnodesbycondition is the TaintNodesByCondition admission
// plugin: a node is created with the node.kubernetes.io/not-ready
// NoSchedule taint, so that nothing is scheduled on it before the node
// lifecycle controller has seen it ready and lifted the taint.
package taintnodesbycondition

import (
	"context"

	corev1 "k8s.io/api/core/v1"

	"github.com/kapi-dev/kapi/pkg/admission"
)

// PluginName is the plugin's name in --enable-admission-plugins.
const PluginName = "TaintNodesByCondition"

// Plugin is the plugin, mutating creates of nodes.
type Plugin struct{ admission.Handler }

// New returns the plugin.
func New() *Plugin { return &Plugin{Handler: admission.NewHandler(admission.Create)} }

// Admit adds the taint, unless the node has a taint of the same key and
// effect.
func (p *Plugin) Admit(_ context.Context, a *admission.Attributes) error {
	if a.Resource.Group != "" || a.Resource.Resource != "nodes" || a.Subresource != "" {
		return nil
	}
	node, ok := a.Object.(*corev1.Node)
	if !ok {
		return nil
	}
	for _, t := range node.Spec.Taints {
		if t.Key == corev1.TaintNodeNotReady && t.Effect == corev1.TaintEffectNoSchedule {
			return nil
		}
	}
	node.Spec.Taints = append(node.Spec.Taints, corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule})
	return nil
}
