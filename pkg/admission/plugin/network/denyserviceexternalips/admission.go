// Package denyserviceexternalips is the DenyServiceExternalIPs admission
// plugin: no Service may gain an external IP (spec.externalIPs) it did
// not have, a guard against CVE-2020-8554's traffic interception. IPs a
// Service already has may stay, or be removed.
package denyserviceexternalips

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kapi-dev/kapi/pkg/admission"
)

// PluginName is the plugin's name in --enable-admission-plugins.
const PluginName = "DenyServiceExternalIPs"

// Plugin is the admission plugin; it validates.
type Plugin struct {
	admission.Handler
}

// New returns the plugin.
func New() *Plugin {
	return &Plugin{Handler: admission.NewHandler(admission.Create, admission.Update)}
}

// Validate refuses a Service whose external IPs are not all among those
// it had.
func (p *Plugin) Validate(_ context.Context, a *admission.Attributes) error {
	if a.Resource.GroupResource() != corev1.Resource("services") || a.Subresource != "" {
		return nil
	}
	svc, ok := a.Object.(*corev1.Service)
	if !ok {
		return apierrors.NewInternalError(fmt.Errorf("Expected Service resource, got: %v", a.Kind))
	}
	had := map[string]bool{}
	if a.OldObject != nil {
		old, ok := a.OldObject.(*corev1.Service)
		if !ok {
			return apierrors.NewInternalError(fmt.Errorf("Expected Service resource, got: %v", a.Kind))
		}
		for _, ip := range old.Spec.ExternalIPs {
			had[ip] = true
		}
	}
	for _, ip := range svc.Spec.ExternalIPs {
		if !had[ip] {
			return admission.NewForbidden(a, errors.New("Use of external IPs is denied by admission control"))
		}
	}
	return nil
}
