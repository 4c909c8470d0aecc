// Package nodedeclaredfeatures is the NodeDeclaredFeatureValidator
// admission plugin: an update of a pod bound to a node (of its spec, or
// through pods/resize) that needs a node feature, such as resizing
// pod-level resources, is refused unless the node declares the feature in
// status.declaredFeatures. Which update needs which feature is
// component-helpers' registry of declared features, the one kubelets and
// kube-apiserver share.
//
// It does nothing unless the NodeDeclaredFeatures feature gate is on (it
// is GA and locked on in 1.37).
package nodedeclaredfeatures

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/version"
	corelisters "k8s.io/client-go/listers/core/v1"
	ndf "k8s.io/component-helpers/nodedeclaredfeatures"
	ndffeatures "k8s.io/component-helpers/nodedeclaredfeatures/features"
	ndftypes "k8s.io/component-helpers/nodedeclaredfeatures/types"

	"github.com/kapi-dev/kapi/pkg/admission"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/internal/ready"
)

// PluginName is the plugin's name in --enable-admission-plugins.
const PluginName = "NodeDeclaredFeatureValidator"

// Config is what the plugin needs.
type Config struct {
	// Enabled is the NodeDeclaredFeatures feature gate.
	Enabled bool
	// Nodes reads nodes from an informer's cache; HasSynced reports
	// whether it has synced once.
	Nodes     corelisters.NodeLister
	HasSynced func() bool
	// Version is the server's version: features a node of this version
	// always has are not asked for.
	Version *version.Version
}

// Plugin is the plugin, validating updates of pods.
type Plugin struct {
	admission.Handler
	cfg       Config
	framework *ndf.Framework
}

// New returns the plugin.
func New(cfg Config) *Plugin {
	return &Plugin{Handler: admission.NewHandler(admission.Update), cfg: cfg, framework: ndf.New(ndffeatures.AllFeatures)}
}

// Validate refuses an update the pod's node lacks a feature for.
func (p *Plugin) Validate(ctx context.Context, a *admission.Attributes) error {
	if !p.cfg.Enabled || a.Operation != admission.Update || a.Resource.Group != "" || a.Resource.Resource != "pods" {
		return nil
	}
	if a.Subresource != "" && a.Subresource != "resize" {
		return nil
	}
	pod, ok := a.Object.(*corev1.Pod)
	if !ok {
		return apierrors.NewBadRequest(fmt.Sprintf("expected a pod but got a %T", a.Object))
	}
	if pod.Spec.NodeName == "" {
		return nil
	}
	old, ok := a.OldObject.(*corev1.Pod)
	if !ok {
		return apierrors.NewBadRequest(fmt.Sprintf("expected an old pod but got a %T", a.OldObject))
	}
	if old.Generation == pod.Generation {
		return nil
	}
	if !ready.Wait(ctx, p.cfg.HasSynced) {
		return admission.NewForbidden(a, fmt.Errorf("not yet ready to handle request"))
	}
	reqs, err := p.framework.InferForPodUpdate(&ndftypes.PodInfo{Spec: &old.Spec, Status: &old.Status}, &ndftypes.PodInfo{Spec: &pod.Spec, Status: &pod.Status}, p.cfg.Version)
	if err != nil {
		return admission.NewForbidden(a, fmt.Errorf("failed to infer pod capability requirements: %w", err))
	}
	if reqs.IsEmpty() {
		return nil
	}
	node, err := p.cfg.Nodes.Get(pod.Spec.NodeName)
	switch {
	case apierrors.IsNotFound(err):
		return admission.NewForbidden(a, fmt.Errorf("node %q not found", pod.Spec.NodeName))
	case err != nil:
		return admission.NewForbidden(a, fmt.Errorf("failed to get node %q: %w", pod.Spec.NodeName, err))
	}
	result, err := p.framework.MatchNode(reqs, node)
	if err != nil {
		return admission.NewForbidden(a, fmt.Errorf("failed to match pod requirements against node %q: %w", node.Name, err))
	}
	if !result.IsMatch {
		return admission.NewForbidden(a, fmt.Errorf("pod update requires features %s which are not available on node %q", strings.Join(result.UnsatisfiedRequirements, ", "), node.Name))
	}
	return nil
}
