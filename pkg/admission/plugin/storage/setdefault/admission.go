// Package setdefault is the DefaultStorageClass admission plugin: a
// PersistentVolumeClaim created without a storage class gets the
// cluster's default one, the StorageClass annotated
// storageclass.kubernetes.io/is-default-class=true (or the beta
// annotation). With several defaults, the newest wins, ties broken by
// name, as kube-apiserver 1.37 chooses; with none the claim is left as it
// is.
//
// A claim "has a class" when spec.storageClassName is set, even to "",
// or when it carries the beta annotation volume.beta.kubernetes.io/storage-class.
package setdefault

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kapi-dev/kapi/pkg/admission"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/internal/defaultclass"
)

// PluginName is the plugin's name in --enable-admission-plugins.
const PluginName = "DefaultStorageClass"

// Annotations that mark a StorageClass as the default, and the beta
// annotation that names a claim's class.
const (
	IsDefaultAnnotation        = "storageclass.kubernetes.io/is-default-class"
	BetaIsDefaultAnnotation    = "storageclass.beta.kubernetes.io/is-default-class"
	BetaStorageClassAnnotation = "volume.beta.kubernetes.io/storage-class"
)

// StorageClassLister lists StorageClasses from a cache (client-go's
// StorageClassLister is one).
type StorageClassLister interface {
	List(selector labels.Selector) ([]*storagev1.StorageClass, error)
}

// Plugin is the admission plugin; it mutates.
type Plugin struct {
	admission.Handler
	lister StorageClassLister
}

// New returns the plugin, reading StorageClasses from lister.
func New(lister StorageClassLister) *Plugin {
	return &Plugin{Handler: admission.NewHandler(admission.Create), lister: lister}
}

// Admit sets the default class of a claim created without one.
func (p *Plugin) Admit(_ context.Context, a *admission.Attributes) error {
	if a.Resource.GroupResource() != corev1.Resource("persistentvolumeclaims") || a.Subresource != "" {
		return nil
	}
	pvc, ok := a.Object.(*corev1.PersistentVolumeClaim)
	if !ok || hasClass(pvc) {
		return nil
	}
	def, err := DefaultClass(p.lister)
	if err != nil {
		return admission.NewForbidden(a, err)
	}
	if def != nil {
		name := def.Name
		pvc.Spec.StorageClassName = &name
	}
	return nil
}

func hasClass(pvc *corev1.PersistentVolumeClaim) bool {
	if _, ok := pvc.Annotations[BetaStorageClassAnnotation]; ok {
		return true
	}
	return pvc.Spec.StorageClassName != nil
}

// IsDefault says whether a StorageClass is marked as the default.
func IsDefault(sc *storagev1.StorageClass) bool {
	return sc.Annotations[IsDefaultAnnotation] == "true" || sc.Annotations[BetaIsDefaultAnnotation] == "true"
}

// DefaultClass is the default StorageClass: of those marked default, the
// newest, the first by name among equally new ones; nil if none is.
func DefaultClass(lister StorageClassLister) (*storagev1.StorageClass, error) {
	all, err := lister.List(labels.Everything())
	if err != nil {
		return nil, err
	}
	if sc, ok := defaultclass.Newest(all, IsDefault); ok {
		return sc, nil
	}
	return nil, nil
}
