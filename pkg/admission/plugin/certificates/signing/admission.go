// Package signing is the CertificateSigning admission plugin: only a
// user allowed to "sign" for a CertificateSigningRequest's signer may
// change its issued certificate or its conditions (the status
// subresource).
package signing

import (
	"bytes"
	"context"
	"fmt"

	certificatesv1 "k8s.io/api/certificates/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/kapi-dev/kapi/pkg/admission"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/certificates"
	"github.com/kapi-dev/kapi/pkg/authorization/authorizer"
)

// PluginName is the plugin's name in --enable-admission-plugins.
const PluginName = "CertificateSigning"

// Plugin is the admission plugin; it validates.
type Plugin struct {
	admission.Handler
	authz authorizer.Authorizer
}

// New returns the plugin, asking authz who may sign.
func New(authz authorizer.Authorizer) *Plugin {
	return &Plugin{Handler: admission.NewHandler(admission.Update), authz: authz}
}

// Validate refuses a status update that changes the certificate or the
// conditions by a user not allowed to sign for the request's signer.
func (p *Plugin) Validate(ctx context.Context, a *admission.Attributes) error {
	if a.Subresource != "status" || a.Resource.GroupResource() != certificatesv1.Resource("certificatesigningrequests") {
		return nil
	}
	old, ok := a.OldObject.(*certificatesv1.CertificateSigningRequest)
	if !ok {
		return admission.NewForbidden(a, fmt.Errorf("expected type CertificateSigningRequest, got: %T", a.OldObject))
	}
	csr, ok := a.Object.(*certificatesv1.CertificateSigningRequest)
	if !ok {
		return admission.NewForbidden(a, fmt.Errorf("expected type CertificateSigningRequest, got: %T", a.Object))
	}
	// A nil and an empty certificate differ here, as kube-apiserver's
	// reflect.DeepEqual tells them apart.
	sameCert := (old.Status.Certificate == nil) == (csr.Status.Certificate == nil) && bytes.Equal(old.Status.Certificate, csr.Status.Certificate)
	if sameCert && equality.Semantic.DeepEqual(old.Status.Conditions, csr.Status.Conditions) {
		return nil
	}
	if !certificates.AuthorizedForSigner(ctx, p.authz, a.User, "sign", old.Spec.SignerName) {
		return admission.NewForbidden(a, fmt.Errorf("user not permitted to sign requests with signerName %q", old.Spec.SignerName))
	}
	return nil
}
