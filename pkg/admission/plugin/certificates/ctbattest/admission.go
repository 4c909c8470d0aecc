// Package ctbattest is the ClusterTrustBundleAttest admission plugin: a
// ClusterTrustBundle that names a signer may be created or changed only
// by a user allowed to "attest" for that signer. An update that changes
// only what the garbage collector manages (owner references, finalizers)
// needs no such right.
package ctbattest

import (
	"context"
	"fmt"

	certificatesv1 "k8s.io/api/certificates/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/kapi-dev/kapi/pkg/admission"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/certificates"
	"github.com/kapi-dev/kapi/pkg/authorization/authorizer"
)

// PluginName is the plugin's name in --enable-admission-plugins.
const PluginName = "ClusterTrustBundleAttest"

// Plugin is the admission plugin; it validates.
type Plugin struct {
	admission.Handler
	authz   authorizer.Authorizer
	enabled bool
}

// New returns the plugin, asking authz who may attest; enabled is the
// ClusterTrustBundle feature gate (off, the plugin admits everything).
func New(authz authorizer.Authorizer, enabled bool) *Plugin {
	return &Plugin{Handler: admission.NewHandler(admission.Create, admission.Update), authz: authz, enabled: enabled}
}

// Validate refuses a bundle for a signer its author may not attest for.
func (p *Plugin) Validate(ctx context.Context, a *admission.Attributes) error {
	if !p.enabled || a.Resource.GroupResource() != certificatesv1.Resource("clustertrustbundles") {
		return nil
	}
	bundle, ok := a.Object.(*certificatesv1.ClusterTrustBundle)
	if !ok {
		return admission.NewForbidden(a, fmt.Errorf("expected type ClusterTrustBundle, got: %T", a.OldObject))
	}
	if bundle.Spec.SignerName == "" {
		return nil
	}
	if a.Operation == admission.Update && onlyGCFieldsChanged(bundle, a.OldObject) {
		return nil
	}
	if !certificates.AuthorizedForSigner(ctx, p.authz, a.User, "attest", bundle.Spec.SignerName) {
		return admission.NewForbidden(a, fmt.Errorf("user not permitted to attest for signerName %q", bundle.Spec.SignerName))
	}
	return nil
}

// onlyGCFieldsChanged says whether bundle differs from old in nothing but
// owner references, finalizers, selfLink and managed fields.
func onlyGCFieldsChanged(bundle *certificatesv1.ClusterTrustBundle, old any) bool {
	prev, ok := old.(*certificatesv1.ClusterTrustBundle)
	if !ok || prev == nil {
		return false
	}
	c := bundle.DeepCopy()
	c.OwnerReferences = prev.OwnerReferences
	c.Finalizers = prev.Finalizers
	c.SelfLink = prev.SelfLink
	c.ManagedFields = prev.ManagedFields
	return equality.Semantic.DeepEqual(c, prev)
}
