// Package approval is the CertificateApproval admission plugin: only a
// user allowed to "approve" a CertificateSigningRequest's signer may
// change its approval (the approval subresource).
package approval

import (
	"context"
	"fmt"

	certificatesv1 "k8s.io/api/certificates/v1"

	"github.com/kapi-dev/kapi/pkg/admission"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/certificates"
	"github.com/kapi-dev/kapi/pkg/authorization/authorizer"
)

// PluginName is the plugin's name in --enable-admission-plugins.
const PluginName = "CertificateApproval"

// Plugin is the admission plugin; it validates.
type Plugin struct {
	admission.Handler
	authz authorizer.Authorizer
}

// New returns the plugin, asking authz who may approve.
func New(authz authorizer.Authorizer) *Plugin {
	return &Plugin{Handler: admission.NewHandler(admission.Update), authz: authz}
}

// Validate refuses an update of a request's approval by a user not
// allowed to approve for its signer.
func (p *Plugin) Validate(ctx context.Context, a *admission.Attributes) error {
	if a.Subresource != "approval" || a.Resource.GroupResource() != certificatesv1.Resource("certificatesigningrequests") {
		return nil
	}
	csr, ok := a.OldObject.(*certificatesv1.CertificateSigningRequest)
	if !ok {
		return admission.NewForbidden(a, fmt.Errorf("expected type CertificateSigningRequest, got: %T", a.OldObject))
	}
	if !certificates.AuthorizedForSigner(ctx, p.authz, a.User, "approve", csr.Spec.SignerName) {
		return admission.NewForbidden(a, fmt.Errorf("user not permitted to approve requests with signerName %q", csr.Spec.SignerName))
	}
	return nil
}
