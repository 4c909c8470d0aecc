// Package defaulttolerationseconds is the DefaultTolerationSeconds
// admission plugin: a pod that does not tolerate the NoExecute taints of
// a node that is not ready or unreachable gets tolerations of them for a
// while (kube-apiserver's --default-not-ready-toleration-seconds and
// --default-unreachable-toleration-seconds, five minutes by default), so
// that it is evicted only when the node stays down that long.
package defaulttolerationseconds

import (
	"context"

	corev1 "k8s.io/api/core/v1"

	"github.com/kapi-dev/kapi/pkg/admission"
)

// PluginName is the plugin's name in --enable-admission-plugins.
const PluginName = "DefaultTolerationSeconds"

// DefaultSeconds is both flags' default.
const DefaultSeconds int64 = 300

// Config is the plugin's configuration: the seconds of each toleration.
type Config struct {
	NotReadySeconds    int64
	UnreachableSeconds int64
}

// Plugin is the plugin, mutating creates and updates of pods.
type Plugin struct {
	admission.Handler
	notReady, unreachable corev1.Toleration
}

// New returns the plugin.
func New(cfg Config) *Plugin {
	toleration := func(key string, seconds int64) corev1.Toleration {
		return corev1.Toleration{Key: key, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: &seconds}
	}
	return &Plugin{
		Handler:     admission.NewHandler(admission.Create, admission.Update),
		notReady:    toleration(corev1.TaintNodeNotReady, cfg.NotReadySeconds),
		unreachable: toleration(corev1.TaintNodeUnreachable, cfg.UnreachableSeconds),
	}
}

// Admit adds the tolerations a pod lacks. A toleration of any key, or of
// any effect, counts as one of these.
func (p *Plugin) Admit(_ context.Context, a *admission.Attributes) error {
	if a.Resource.Group != "" || a.Resource.Resource != "pods" || a.Subresource != "" {
		return nil
	}
	pod, ok := a.Object.(*corev1.Pod)
	if !ok {
		return nil
	}
	notReady, unreachable := false, false
	for _, t := range pod.Spec.Tolerations {
		if t.Effect != corev1.TaintEffectNoExecute && t.Effect != "" {
			continue
		}
		notReady = notReady || t.Key == corev1.TaintNodeNotReady || t.Key == ""
		unreachable = unreachable || t.Key == corev1.TaintNodeUnreachable || t.Key == ""
	}
	if !notReady {
		pod.Spec.Tolerations = append(pod.Spec.Tolerations, copyToleration(p.notReady))
	}
	if !unreachable {
		pod.Spec.Tolerations = append(pod.Spec.Tolerations, copyToleration(p.unreachable))
	}
	return nil
}

func copyToleration(t corev1.Toleration) corev1.Toleration {
	s := *t.TolerationSeconds
	t.TolerationSeconds = &s
	return t
}
