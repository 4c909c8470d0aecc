// Package podtolerationrestriction is the PodTolerationRestriction
// admission plugin (off by default): a namespace's annotations give its
// pods default tolerations (scheduler.alpha.kubernetes.io/defaultTolerations)
// and bound the tolerations they may have
// (scheduler.alpha.kubernetes.io/tolerationsWhitelist), each as a JSON
// list of tolerations; the plugin's configuration gives the cluster's
// defaults and whitelist for namespaces without the annotations. A pod
// that is not BestEffort also tolerates the memory-pressure taint.
//
// The whitelist is checked against the pod's tolerations as the plugin
// sees them, with what the plugins before it added (DefaultTolerationSeconds'
// among them).
package podtolerationrestriction

import (
	"context"
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/kapi-dev/kapi/pkg/admission"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/internal/namespaces"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/internal/ready"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/internal/tolerations"
	"github.com/kapi-dev/kapi/pkg/apis/core"
)

// PluginName is the plugin's name in --enable-admission-plugins.
const PluginName = "PodTolerationRestriction"

// The namespace annotations.
const (
	DefaultTolerationsAnnotation = "scheduler.alpha.kubernetes.io/defaultTolerations"
	WhitelistAnnotation          = "scheduler.alpha.kubernetes.io/tolerationsWhitelist"
)

// Configuration is the plugin's configuration file
// (podtolerationrestriction.admission.k8s.io/v1alpha1, kind
// Configuration).
type Configuration struct {
	// Default are the tolerations of pods in namespaces without the
	// defaultTolerations annotation.
	Default []corev1.Toleration `json:"default,omitempty"`
	// Whitelist bounds the tolerations of pods in namespaces without the
	// tolerationsWhitelist annotation; empty means no bound.
	Whitelist []corev1.Toleration `json:"whitelist,omitempty"`
}

// ParseConfiguration reads the configuration (JSON or YAML); nil is the
// empty one.
func ParseConfiguration(data []byte) (Configuration, error) {
	var c Configuration
	if len(data) == 0 {
		return c, nil
	}
	if err := yaml.Unmarshal(data, &c); err != nil {
		return c, fmt.Errorf("reading the %s configuration: %w", PluginName, err)
	}
	return c, nil
}

// Config is what the plugin needs.
type Config struct {
	Configuration Configuration
	// Namespaces is the informer's cache, which HasSynced says synced
	// once; Live the server, for a namespace the cache does not have.
	Namespaces namespaces.Cache
	HasSynced  func() bool
	Live       namespaces.Live
}

// Plugin is the plugin, mutating and validating creates and updates of
// pods.
type Plugin struct {
	admission.Handler
	cfg Config
}

// New returns the plugin.
func New(cfg Config) *Plugin {
	return &Plugin{Handler: admission.NewHandler(admission.Create, admission.Update), cfg: cfg}
}

func podOf(a *admission.Attributes) *corev1.Pod {
	if a.Subresource != "" || a.Resource.Group != "" || a.Resource.Resource != "pods" {
		return nil
	}
	pod, _ := a.Object.(*corev1.Pod)
	return pod
}

// Admit merges the defaults (on create) and the memory-pressure
// toleration into the pod's tolerations, then validates them.
func (p *Plugin) Admit(ctx context.Context, a *admission.Attributes) error {
	pod := podOf(a)
	if pod == nil {
		return nil
	}
	if !ready.Wait(ctx, p.cfg.HasSynced) {
		return admission.NewForbidden(a, fmt.Errorf("not yet ready to handle request"))
	}
	var extra []corev1.Toleration
	if a.Operation == admission.Create {
		ts, err := p.annotation(ctx, a.Namespace, DefaultTolerationsAnnotation)
		if err != nil {
			return err
		}
		if ts == nil {
			ts = p.cfg.Configuration.Default
		}
		extra = ts
	}
	if core.PodQOSClass(pod) != corev1.PodQOSBestEffort {
		extra = append(extra, corev1.Toleration{Key: corev1.TaintNodeMemoryPressure, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule})
	}
	if len(extra) > 0 {
		pod.Spec.Tolerations = tolerations.Merge(pod.Spec.Tolerations, extra)
	}
	return p.Validate(ctx, a)
}

// Validate refuses tolerations the namespace's (or else the cluster's)
// whitelist does not cover.
func (p *Plugin) Validate(ctx context.Context, a *admission.Attributes) error {
	pod := podOf(a)
	if pod == nil {
		return nil
	}
	if !ready.Wait(ctx, p.cfg.HasSynced) {
		return admission.NewForbidden(a, fmt.Errorf("not yet ready to handle request"))
	}
	if len(pod.Spec.Tolerations) == 0 {
		return nil
	}
	whitelist, err := p.annotation(ctx, a.Namespace, WhitelistAnnotation)
	if err != nil {
		return err
	}
	scope := "namespace"
	if whitelist == nil {
		whitelist, scope = p.cfg.Configuration.Whitelist, "cluster"
	}
	if len(whitelist) == 0 {
		return nil
	}
next:
	for _, t := range pod.Spec.Tolerations {
		for _, w := range whitelist {
			if tolerations.Covers(w, t) {
				continue next
			}
		}
		// kube-apiserver returns this refusal as a plain error: a 500.
		return fmt.Errorf("pod tolerations (possibly merged with namespace default tolerations) conflict with its %s whitelist", scope)
	}
	return nil
}

// annotation is the tolerations of a namespace annotation: nil when the
// namespace does not have it, empty when it is empty.
func (p *Plugin) annotation(ctx context.Context, namespace, key string) ([]corev1.Toleration, error) {
	ns, err := p.namespaces().Get(ctx, namespace)
	if err != nil {
		return nil, err
	}
	v, ok := ns.Annotations[key]
	if !ok {
		return nil, nil
	}
	ts := []corev1.Toleration{}
	if v == "" {
		return ts, nil
	}
	if err := json.Unmarshal([]byte(v), &ts); err != nil {
		return nil, err
	}
	return ts, nil
}

func (p *Plugin) namespaces() namespaces.Getter {
	return namespaces.Getter{Cache: p.cfg.Namespaces, Live: p.cfg.Live}
}
