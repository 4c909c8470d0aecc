// Package podtopologylabels is the PodTopologyLabels admission plugin: a
// pod bound to a node gets the node's zone and region labels
// (topology.kubernetes.io/zone and /region), so that the workload can
// read its topology through the downward API. A pods/binding write gets
// them on the Binding, whose labels the binding copies to the pod; a pod
// created already on a node gets them itself. A node that does not exist
// adds nothing.
//
// It does nothing unless the PodTopologyLabelsAdmission feature gate is
// on (it is by default).
package podtopologylabels

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	corelisters "k8s.io/client-go/listers/core/v1"

	"github.com/kapi-dev/kapi/pkg/admission"
)

// PluginName is the plugin's name in --enable-admission-plugins.
const PluginName = "PodTopologyLabels"

// Labels are the node labels copied, kube-apiserver's.
var Labels = []string{corev1.LabelTopologyZone, corev1.LabelTopologyRegion}

// Config is what the plugin needs.
type Config struct {
	// Enabled is the PodTopologyLabelsAdmission feature gate.
	Enabled bool
	// Nodes reads nodes from an informer's cache; HasSynced reports
	// whether it has synced once.
	Nodes     corelisters.NodeLister
	HasSynced func() bool
}

// Plugin is the plugin, mutating creates of pods and pods/binding.
type Plugin struct {
	admission.Handler
	cfg Config
}

// New returns the plugin.
func New(cfg Config) *Plugin {
	return &Plugin{Handler: admission.NewHandler(admission.Create), cfg: cfg}
}

// Admit copies the node's topology labels.
func (p *Plugin) Admit(ctx context.Context, a *admission.Attributes) error {
	if !p.cfg.Enabled || a.Resource.Group != "" || a.Resource.Resource != "pods" {
		return nil
	}
	var nodeName string
	var labels *map[string]string
	switch a.Subresource {
	case "":
		pod, ok := a.Object.(*corev1.Pod)
		if !ok {
			return fmt.Errorf("expected Pod but got %T", a.Object)
		}
		nodeName, labels = pod.Spec.NodeName, &pod.Labels
	case "binding":
		b, ok := a.Object.(*corev1.Binding)
		if !ok {
			return fmt.Errorf("expected Binding but got %s", a.Kind.Kind)
		}
		if b.Target.Kind != "Node" {
			return nil
		}
		nodeName, labels = b.Target.Name, &b.Labels
	default:
		return nil
	}
	if !p.waitForSync(ctx) {
		return admission.NewForbidden(a, fmt.Errorf("not yet ready to handle request"))
	}
	if nodeName == "" {
		return nil
	}
	node, err := p.cfg.Nodes.Get(nodeName)
	switch {
	case apierrors.IsNotFound(err):
		return nil
	case err != nil:
		return err
	}
	for _, k := range Labels {
		v, ok := node.Labels[k]
		if !ok {
			continue
		}
		if *labels == nil {
			*labels = map[string]string{}
		}
		(*labels)[k] = v
	}
	return nil
}

// waitForSync waits, at most ten seconds, for the cache's first sync.
func (p *Plugin) waitForSync(ctx context.Context) bool {
	deadline := time.Now().Add(10 * time.Second)
	for !p.cfg.HasSynced() {
		if time.Now().After(deadline) {
			return false
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(100 * time.Millisecond):
		}
	}
	return true
}
