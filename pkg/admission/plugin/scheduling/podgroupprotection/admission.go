// Package podgroupprotection is the PodGroupProtection admission plugin:
// with the GenericWorkload feature gate on, every PodGroup is created
// with the scheduling.k8s.io/podgroup-protection finalizer. The gate is
// off by default in 1.37, and kapi does not serve PodGroups without it,
// so by default the plugin does nothing.
package podgroupprotection

import (
	"context"
	"slices"

	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/kapi-dev/kapi/pkg/admission"
)

// PluginName is the plugin's name in --enable-admission-plugins.
const PluginName = "PodGroupProtection"

// Finalizer is the finalizer every PodGroup is created with.
const Finalizer = "scheduling.k8s.io/podgroup-protection"

// Plugin is the admission plugin; it mutates.
type Plugin struct {
	admission.Handler
	enabled bool
}

// New returns the plugin; enabled is the GenericWorkload feature gate.
func New(enabled bool) *Plugin {
	return &Plugin{Handler: admission.NewHandler(admission.Create), enabled: enabled}
}

// Admit adds the finalizer to a PodGroup created without it.
func (p *Plugin) Admit(_ context.Context, a *admission.Attributes) error {
	if !p.enabled || a.Resource.Group != "scheduling.k8s.io" || a.Resource.Resource != "podgroups" || a.Subresource != "" {
		return nil
	}
	obj, err := meta.Accessor(a.Object)
	if err != nil {
		return nil
	}
	if !slices.Contains(obj.GetFinalizers(), Finalizer) {
		obj.SetFinalizers(append(obj.GetFinalizers(), Finalizer))
	}
	return nil
}
