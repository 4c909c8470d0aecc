// Package podresize is the PodResizeValidator admission plugin: a resize
// of a pod bound to a node (pods/resize) is refused when the pod's new
// requests do not fit the node's allocatable CPU or memory, or when the
// node is not a Linux node, the one platform that resizes in place.
// Each refusal carries a cause (NodeCapacity, UnsupportedPlatform) for
// clients to tell them apart.
//
// It does nothing unless the InPlacePodVerticalScaling feature gate is on
// (it is GA and locked on in 1.37).
package podresize

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	resourcehelper "k8s.io/component-helpers/resource"

	"github.com/kapi-dev/kapi/pkg/admission"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/internal/ready"
)

// PluginName is the plugin's name in --enable-admission-plugins.
const PluginName = "PodResizeValidator"

// The causes of the refusals.
const (
	CauseNodeCapacity        metav1.CauseType = "NodeCapacity"
	CauseUnsupportedPlatform metav1.CauseType = "UnsupportedPlatform"
)

// Config is what the plugin needs.
type Config struct {
	// Enabled is the InPlacePodVerticalScaling feature gate.
	Enabled bool
	// Nodes reads nodes from an informer's cache; HasSynced reports
	// whether it has synced once.
	Nodes     corelisters.NodeLister
	HasSynced func() bool
}

// Plugin is the plugin, validating updates of pods/resize.
type Plugin struct {
	admission.Handler
	cfg Config
}

// New returns the plugin.
func New(cfg Config) *Plugin {
	return &Plugin{Handler: admission.NewHandler(admission.Update), cfg: cfg}
}

// Validate refuses a resize the node cannot take.
func (p *Plugin) Validate(ctx context.Context, a *admission.Attributes) error {
	if !p.cfg.Enabled || a.Operation != admission.Update || a.Resource.Group != "" || a.Resource.Resource != "pods" || a.Subresource != "resize" {
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
	// The generation moves only when the spec changes.
	if old.Generation == pod.Generation {
		return nil
	}
	if !ready.Wait(ctx, p.cfg.HasSynced) {
		return admission.NewForbidden(a, fmt.Errorf("not yet ready to handle request"))
	}
	node, err := p.cfg.Nodes.Get(pod.Spec.NodeName)
	switch {
	case apierrors.IsNotFound(err):
		return admission.NewForbidden(a, fmt.Errorf("node %q not found", pod.Spec.NodeName))
	case err != nil:
		return admission.NewForbidden(a, fmt.Errorf("failed to get node %q: %w", pod.Spec.NodeName, err))
	}
	if err := fitsAllocatable(pod, node); err != nil {
		return withCause(admission.NewForbidden(a, err), CauseNodeCapacity)
	}
	if os := node.Labels[corev1.LabelOSStable]; os != "linux" {
		return withCause(admission.NewForbidden(a, fmt.Errorf("pod resize is only supported on linux nodes, node %q is %q", node.Name, os)), CauseUnsupportedPlatform)
	}
	return nil
}

func withCause(err error, cause metav1.CauseType) error {
	if se, ok := err.(*apierrors.StatusError); ok && se.ErrStatus.Details != nil {
		se.ErrStatus.Details.Causes = append(se.ErrStatus.Details.Causes, metav1.StatusCause{Type: cause})
	}
	return err
}

// fitsAllocatable refuses requests over the node's allocatable CPU (in
// millicores) or memory (in bytes).
func fitsAllocatable(pod *corev1.Pod, node *corev1.Node) error {
	requests := resourcehelper.PodRequests(pod, resourcehelper.PodResourcesOptions{})
	cpu, mem := requests[corev1.ResourceCPU], requests[corev1.ResourceMemory]
	cpuAllocatable, memAllocatable := node.Status.Allocatable.Cpu().MilliValue(), node.Status.Allocatable.Memory().Value()
	var msg []string
	if cpu.MilliValue() > cpuAllocatable {
		msg = append(msg, fmt.Sprintf("cpu, requested: %d, allocatable: %d", cpu.MilliValue(), cpuAllocatable))
	}
	if mem.Value() > memAllocatable {
		msg = append(msg, fmt.Sprintf("memory, requested: %d, allocatable: %d", mem.Value(), memAllocatable))
	}
	if len(msg) > 0 {
		return fmt.Errorf("node didn't have enough allocatable resources: %s", strings.Join(msg, "; "))
	}
	return nil
}
