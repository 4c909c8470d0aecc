// Package subjectrestriction is the CertificateSubjectRestriction
// admission plugin: no CertificateSigningRequest for the
// kubernetes.io/kube-apiserver-client signer may ask for the
// system:masters group, whose members RBAC cannot restrict.
package subjectrestriction

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"slices"

	certificatesv1 "k8s.io/api/certificates/v1"

	"github.com/kapi-dev/kapi/pkg/admission"
)

// PluginName is the plugin's name in --enable-admission-plugins.
const PluginName = "CertificateSubjectRestriction"

// Plugin is the admission plugin; it validates.
type Plugin struct {
	admission.Handler
}

// New returns the plugin.
func New() *Plugin {
	return &Plugin{Handler: admission.NewHandler(admission.Create)}
}

// Validate refuses a kube-apiserver-client request whose subject's
// organizations include system:masters.
func (p *Plugin) Validate(_ context.Context, a *admission.Attributes) error {
	if a.Resource.GroupResource() != certificatesv1.Resource("certificatesigningrequests") || a.Subresource != "" {
		return nil
	}
	csr, ok := a.Object.(*certificatesv1.CertificateSigningRequest)
	if !ok {
		return admission.NewForbidden(a, fmt.Errorf("expected type CertificateSigningRequest, got: %T", a.Object))
	}
	if csr.Spec.SignerName != certificatesv1.KubeAPIServerClientSignerName {
		return nil
	}
	req, err := parseCSR(csr.Spec.Request)
	if err != nil {
		return admission.NewForbidden(a, fmt.Errorf("failed to parse CSR: %v", err))
	}
	if slices.Contains(req.Subject.Organization, "system:masters") {
		return admission.NewForbidden(a, fmt.Errorf("use of %s signer with system:masters group is not allowed", certificatesv1.KubeAPIServerClientSignerName))
	}
	return nil
}

// parseCSR reads the first PEM block, which must be a CERTIFICATE
// REQUEST.
func parseCSR(data []byte) (*x509.CertificateRequest, error) {
	block, _ := pem.Decode(data)
	if block == nil || block.Type != "CERTIFICATE REQUEST" {
		return nil, errors.New("PEM block type must be CERTIFICATE REQUEST")
	}
	return x509.ParseCertificateRequest(block.Bytes)
}
