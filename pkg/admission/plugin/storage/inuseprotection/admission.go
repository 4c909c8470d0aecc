// Package inuseprotection is the StorageObjectInUseProtection admission
// plugin: every PersistentVolume, PersistentVolumeClaim and
// VolumeAttributesClass is created with its protection finalizer, which
// kube-controller-manager's protection controllers remove once nothing
// uses the object, so that a volume in use is never deleted under its
// pod.
package inuseprotection

import (
	"context"
	"slices"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/kapi-dev/kapi/pkg/admission"
)

// PluginName is the plugin's name in --enable-admission-plugins.
const PluginName = "StorageObjectInUseProtection"

// The finalizers, by the resource they protect.
var finalizers = map[string]string{
	"persistentvolumes":      "kubernetes.io/pv-protection",
	"persistentvolumeclaims": "kubernetes.io/pvc-protection",
}

const vacFinalizer = "kubernetes.io/vac-protection"

// Plugin is the admission plugin; it mutates.
type Plugin struct {
	admission.Handler
	// vac says whether VolumeAttributesClasses are protected too (the
	// VolumeAttributesClass feature gate).
	vac bool
}

// New returns the plugin; volumeAttributesClasses says whether the
// VolumeAttributesClass feature gate is on.
func New(volumeAttributesClasses bool) *Plugin {
	return &Plugin{Handler: admission.NewHandler(admission.Create), vac: volumeAttributesClasses}
}

// Admit adds the protection finalizer, once.
func (p *Plugin) Admit(_ context.Context, a *admission.Attributes) error {
	if a.Subresource != "" {
		return nil
	}
	var finalizer string
	switch gr := a.Resource.GroupResource(); {
	case gr.Group == "" && finalizers[gr.Resource] != "":
		finalizer = finalizers[gr.Resource]
	case p.vac && gr == storagev1.Resource("volumeattributesclasses"):
		finalizer = vacFinalizer
	default:
		return nil
	}
	switch a.Object.(type) {
	case *corev1.PersistentVolume, *corev1.PersistentVolumeClaim, *storagev1.VolumeAttributesClass:
	default:
		return nil
	}
	obj, err := meta.Accessor(a.Object)
	if err != nil {
		return nil
	}
	if !slices.Contains(obj.GetFinalizers(), finalizer) {
		obj.SetFinalizers(append(obj.GetFinalizers(), finalizer))
	}
	return nil
}
