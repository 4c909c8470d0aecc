// Package exists is the NamespaceExists admission plugin: a write of a
// namespaced object (create, update or delete) is refused with the
// namespace's 404 when the namespace does not exist. NamespaceLifecycle,
// on by default, does this and more for creates.
package exists

import (
	"context"
	"errors"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/pkg/admission"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/internal/ready"
)

// PluginName is the plugin's name in --enable-admission-plugins.
const PluginName = "NamespaceExists"

// NamespaceLister reads namespaces from a cache (client-go's
// NamespaceLister is one).
type NamespaceLister interface {
	Get(name string) (*corev1.Namespace, error)
}

// NamespaceGetter reads a namespace from the server.
type NamespaceGetter interface {
	Get(ctx context.Context, name string, opts metav1.GetOptions) (*corev1.Namespace, error)
}

// Config is what the plugin needs.
type Config struct {
	// Lister reads the informer's cache, HasSynced says whether it
	// synced once; Live reads a namespace the cache does not have.
	Lister    NamespaceLister
	HasSynced func() bool
	Live      NamespaceGetter
}

// Plugin is the admission plugin; it validates.
type Plugin struct {
	admission.Handler
	cfg Config
}

// New returns the plugin.
func New(cfg Config) *Plugin {
	return &Plugin{Handler: admission.NewHandler(admission.Create, admission.Update, admission.Delete), cfg: cfg}
}

// Validate refuses a write in a namespace that exists neither in the
// cache nor on the server.
func (p *Plugin) Validate(ctx context.Context, a *admission.Attributes) error {
	if a.Namespace == "" || a.Kind.Group == "" && a.Kind.Kind == "Namespace" {
		return nil
	}
	if !ready.Wait(ctx, p.cfg.HasSynced) {
		return admission.NewForbidden(a, errors.New("not yet ready to handle request"))
	}
	_, err := p.cfg.Lister.Get(a.Namespace)
	if err == nil {
		return nil
	}
	if !apierrors.IsNotFound(err) {
		return apierrors.NewInternalError(err)
	}
	_, err = p.cfg.Live.Get(ctx, a.Namespace, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return err
	case err != nil:
		return apierrors.NewInternalError(err)
	}
	return nil
}
