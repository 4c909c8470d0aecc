// Package resize is the PersistentVolumeClaimResize admission plugin: a
// claim's requested storage may grow only once it is bound, and only when
// its StorageClass allows volume expansion. Shrinking, or leaving the
// size alone, is the registry's business, not this plugin's.
package resize

import (
	"context"
	"errors"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"

	"github.com/kapi-dev/kapi/pkg/admission"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/storage/setdefault"
)

// PluginName is the plugin's name in --enable-admission-plugins.
const PluginName = "PersistentVolumeClaimResize"

// StorageClassGetter reads a StorageClass from a cache (client-go's
// StorageClassLister is one).
type StorageClassGetter interface {
	Get(name string) (*storagev1.StorageClass, error)
}

// Plugin is the admission plugin; it validates.
type Plugin struct {
	admission.Handler
	classes StorageClassGetter
}

// New returns the plugin, reading StorageClasses from classes.
func New(classes StorageClassGetter) *Plugin {
	return &Plugin{Handler: admission.NewHandler(admission.Update), classes: classes}
}

// Validate refuses a claim's growth unless it is bound and its class
// allows expansion.
func (p *Plugin) Validate(_ context.Context, a *admission.Attributes) error {
	if a.Resource.GroupResource() != corev1.Resource("persistentvolumeclaims") || a.Subresource != "" {
		return nil
	}
	pvc, ok := a.Object.(*corev1.PersistentVolumeClaim)
	if !ok {
		return nil
	}
	old, ok := a.OldObject.(*corev1.PersistentVolumeClaim)
	if !ok {
		return nil
	}
	newSize := pvc.Spec.Resources.Requests[corev1.ResourceStorage]
	oldSize := old.Spec.Resources.Requests[corev1.ResourceStorage]
	if newSize.Cmp(oldSize) <= 0 {
		return nil
	}
	if old.Status.Phase != corev1.ClaimBound {
		return admission.NewForbidden(a, errors.New("Only bound persistent volume claims can be expanded"))
	}
	if !p.allowsExpansion(pvc, old) {
		return admission.NewForbidden(a, errors.New("only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize"))
	}
	return nil
}

// allowsExpansion says whether the claim's class, unchanged by the
// update, exists and allows volume expansion.
func (p *Plugin) allowsExpansion(pvc, old *corev1.PersistentVolumeClaim) bool {
	class, oldClass := claimClass(pvc), claimClass(old)
	if class == "" || class != oldClass {
		return false
	}
	sc, err := p.classes.Get(class)
	if err != nil {
		return false
	}
	return sc.AllowVolumeExpansion != nil && *sc.AllowVolumeExpansion
}

// claimClass is the claim's storage class: the beta annotation's, else
// spec.storageClassName's.
func claimClass(pvc *corev1.PersistentVolumeClaim) string {
	if class, ok := pvc.Annotations[setdefault.BetaStorageClassAnnotation]; ok {
		return class
	}
	if pvc.Spec.StorageClassName != nil {
		return *pvc.Spec.StorageClassName
	}
	return ""
}
