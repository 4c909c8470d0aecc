// Package podnodeselector is the PodNodeSelector admission plugin (off by
// default): a namespace's scheduler.alpha.kubernetes.io/node-selector
// annotation, or else the configuration's clusterDefaultNodeSelector, is
// merged into the node selector of the pods created in it, and a pod
// whose own selector contradicts it is refused. The configuration may
// also name, for a namespace, the only node labels its pods may select
// (a whitelist).
package podnodeselector

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/yaml"

	"github.com/kapi-dev/kapi/pkg/admission"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/internal/namespaces"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/internal/ready"
)

// PluginName is the plugin's name in --enable-admission-plugins.
const PluginName = "PodNodeSelector"

// NamespaceAnnotation is the namespace's node selector.
const NamespaceAnnotation = "scheduler.alpha.kubernetes.io/node-selector"

// clusterDefault is the configuration's key of the cluster's default
// selector.
const clusterDefault = "clusterDefaultNodeSelector"

// Configuration is the plugin's configuration file: under
// podNodeSelectorPluginConfig, clusterDefaultNodeSelector and, by
// namespace name, the node selectors pods of that namespace are limited
// to; each a selector string ("env=prod,tier=web").
type Configuration struct {
	PodNodeSelectorPluginConfig map[string]string `json:"podNodeSelectorPluginConfig"`
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

// Plugin is the plugin, mutating and validating creates of pods.
type Plugin struct {
	admission.Handler
	cfg Config
}

// New returns the plugin.
func New(cfg Config) *Plugin {
	return &Plugin{Handler: admission.NewHandler(admission.Create), cfg: cfg}
}

func podOf(a *admission.Attributes) *corev1.Pod {
	if a.Subresource != "" || a.Resource.Group != "" || a.Resource.Resource != "pods" {
		return nil
	}
	pod, _ := a.Object.(*corev1.Pod)
	return pod
}

// Admit merges the namespace's selector into the pod's, then validates.
func (p *Plugin) Admit(ctx context.Context, a *admission.Attributes) error {
	pod := podOf(a)
	if pod == nil {
		return nil
	}
	selector, err := p.namespaceSelector(ctx, a)
	if err != nil {
		return err
	}
	if labels.Conflicts(selector, labels.Set(pod.Spec.NodeSelector)) {
		return apierrors.NewForbidden(a.Resource.GroupResource(), pod.Name, fmt.Errorf("pod node label selector conflicts with its namespace node label selector"))
	}
	pod.Spec.NodeSelector = labels.Merge(selector, pod.Spec.NodeSelector)
	return p.Validate(ctx, a)
}

// Validate refuses a selector that contradicts the namespace's or
// selects labels its whitelist does not have.
func (p *Plugin) Validate(ctx context.Context, a *admission.Attributes) error {
	pod := podOf(a)
	if pod == nil {
		return nil
	}
	selector, err := p.namespaceSelector(ctx, a)
	if err != nil {
		return err
	}
	if labels.Conflicts(selector, labels.Set(pod.Spec.NodeSelector)) {
		return apierrors.NewForbidden(a.Resource.GroupResource(), pod.Name, fmt.Errorf("pod node label selector conflicts with its namespace node label selector"))
	}
	whitelist, err := labels.ConvertSelectorToLabelsMap(p.cfg.Configuration.PodNodeSelectorPluginConfig[a.Namespace])
	if err != nil {
		return err
	}
	if len(whitelist) > 0 {
		for k, v := range pod.Spec.NodeSelector {
			if w, ok := whitelist[k]; !ok || w != v {
				return apierrors.NewForbidden(a.Resource.GroupResource(), pod.Name, fmt.Errorf("pod node label selector labels conflict with its namespace whitelist"))
			}
		}
	}
	return nil
}

// namespaceSelector is the namespace's annotation, or the cluster's
// default selector when it has none.
func (p *Plugin) namespaceSelector(ctx context.Context, a *admission.Attributes) (labels.Set, error) {
	if !ready.Wait(ctx, p.cfg.HasSynced) {
		return nil, admission.NewForbidden(a, fmt.Errorf("not yet ready to handle request"))
	}
	ns, err := p.namespaces().Get(ctx, a.Namespace)
	if err != nil {
		return nil, err
	}
	if s, ok := ns.Annotations[NamespaceAnnotation]; ok {
		return labels.ConvertSelectorToLabelsMap(s)
	}
	return labels.ConvertSelectorToLabelsMap(p.cfg.Configuration.PodNodeSelectorPluginConfig[clusterDefault])
}

func (p *Plugin) namespaces() namespaces.Getter {
	return namespaces.Getter{Cache: p.cfg.Namespaces, Live: p.cfg.Live}
}
