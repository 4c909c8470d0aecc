// Package autoprovision is the NamespaceAutoProvision admission plugin: a
// create in a namespace that does not exist creates the namespace first.
// A dry run creates nothing.
package autoprovision

import (
	"context"
	"errors"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/pkg/admission"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/internal/namespaces"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/internal/ready"
)

// PluginName is the plugin's name in --enable-admission-plugins.
const PluginName = "NamespaceAutoProvision"

// NamespaceCreator creates namespaces on the server.
type NamespaceCreator interface {
	Create(ctx context.Context, ns *corev1.Namespace, opts metav1.CreateOptions) (*corev1.Namespace, error)
}

// Config is what the plugin needs.
type Config struct {
	// Lister reads the informer's cache, HasSynced says whether it
	// synced once; Client creates the namespaces the cache lacks.
	Lister    namespaces.Cache
	HasSynced func() bool
	Client    NamespaceCreator
}

// Plugin is the admission plugin; it mutates (the cluster, not the
// object).
type Plugin struct {
	admission.Handler
	cfg Config
}

// New returns the plugin.
func New(cfg Config) *Plugin {
	return &Plugin{Handler: admission.NewHandler(admission.Create), cfg: cfg}
}

// Admit creates the namespace of a create when the cache does not have
// it; a namespace that exists after all is no error.
func (p *Plugin) Admit(ctx context.Context, a *admission.Attributes) error {
	if a.DryRun || a.Namespace == "" || a.Kind.Group == "" && a.Kind.Kind == "Namespace" {
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
		return admission.NewForbidden(a, err)
	}
	_, err = p.cfg.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: a.Namespace}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return admission.NewForbidden(a, err)
	}
	return nil
}
