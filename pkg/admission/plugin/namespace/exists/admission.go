// Package exists is the NamespaceExists admission plugin: a write of a
// namespaced object (create, update or delete) is refused with the
// namespace's 404 when the namespace does not exist. NamespaceLifecycle,
// on by default, does this and more for creates.
package exists

import (
	"context"
	"errors"

	"github.com/kapi-dev/kapi/pkg/admission"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/internal/namespaces"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/internal/ready"
)

// PluginName is the plugin's name in --enable-admission-plugins.
const PluginName = "NamespaceExists"

// Config is what the plugin needs.
type Config struct {
	// Namespaces is the informer's cache, which HasSynced says synced
	// once; Live the server, for a namespace the cache does not have.
	Namespaces namespaces.Cache
	HasSynced  func() bool
	Live       namespaces.Live
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
	_, err := p.namespaces().Get(ctx, a.Namespace)
	return err
}

func (p *Plugin) namespaces() namespaces.Getter {
	return namespaces.Getter{Cache: p.cfg.Namespaces, Live: p.cfg.Live}
}
