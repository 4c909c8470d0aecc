// Package x509 authenticates requests by their TLS client certificate, as
// kube-apiserver does with --client-ca-file.
//
// The certificate's subject is the identity: CommonName is the user name,
// each Organization is a group, and the attribute 1.3.6.1.4.1.57683.2, when
// present, is the user's UID.
package x509

import (
	"crypto/sha256"
	"crypto/x509"
	"encoding/asn1"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/kapi-dev/kapi/pkg/authentication/authenticator"
	"github.com/kapi-dev/kapi/pkg/authentication/user"
)

// uidOID is the subject attribute Kubernetes reads the user's UID from
// (feature AllowParsingUserUIDFromCertAuth, on by default since 1.34).
var uidOID = asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 57683, 2}

// CAPool returns the certificate authorities a client certificate must chain
// to. It is called once per request, so an implementation can swap in a new
// pool when the CA file changes without rebuilding the authenticator. A nil
// pool means that no client CA is configured: client certificates are then
// ignored rather than rejected.
type CAPool func() *x509.CertPool

// StaticCAPool returns a CAPool that always returns pool.
func StaticCAPool(pool *x509.CertPool) CAPool {
	return func() *x509.CertPool { return pool }
}

// Authenticator verifies client certificates and maps them to users.
type Authenticator struct {
	roots CAPool
}

// New returns an authenticator that accepts client certificates issued,
// directly or through intermediates the client sends, by a CA in roots().
func New(roots CAPool) *Authenticator {
	return &Authenticator{roots: roots}
}

// AuthenticateRequest implements authenticator.Request.
//
// A request without a client certificate carries no credential (not ok, no
// error). A certificate that does not verify — unknown issuer, expired, not
// yet valid, or not meant for client authentication — is an error, so the
// request is a 401 rather than anonymous. A valid certificate with an empty
// CommonName names nobody: not ok, no error, as in kube-apiserver.
func (a *Authenticator) AuthenticateRequest(req *http.Request) (*authenticator.Response, bool, error) {
	if req.TLS == nil || len(req.TLS.PeerCertificates) == 0 {
		return nil, false, nil
	}
	roots := a.roots()
	if roots == nil {
		return nil, false, nil
	}

	// The TLS layer hands over the certificates as sent: the leaf first,
	// then whatever intermediates the client chose to include. Only the
	// roots are trusted; intermediates are just candidates for a path.
	leaf := req.TLS.PeerCertificates[0]
	opts := x509.VerifyOptions{
		Roots:     roots,
		KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	if len(req.TLS.PeerCertificates) > 1 {
		opts.Intermediates = x509.NewCertPool()
		for _, c := range req.TLS.PeerCertificates[1:] {
			opts.Intermediates.AddCert(c)
		}
	}
	if _, err := leaf.Verify(opts); err != nil {
		return nil, false, fmt.Errorf("verifying certificate %s failed: %w", certificateID(leaf), err)
	}

	if leaf.Subject.CommonName == "" {
		return nil, false, nil
	}
	uid, err := subjectUID(leaf)
	if err != nil {
		return nil, false, fmt.Errorf("certificate %s: %w", certificateID(leaf), err)
	}
	fingerprint := sha256.Sum256(leaf.Raw)
	return &authenticator.Response{
		User: &user.DefaultInfo{
			Name:   leaf.Subject.CommonName,
			UID:    uid,
			Groups: slices.Clone(leaf.Subject.Organization),
			Extra: map[string][]string{
				user.CredentialIDKey: {"X509SHA256=" + hex.EncodeToString(fingerprint[:])},
			},
		},
	}, true, nil
}

// subjectUID returns the UID attribute of the certificate's subject, or ""
// if there is none. More than one, an empty one, or one that is not a string
// makes the identity ambiguous, which is an error.
func subjectUID(c *x509.Certificate) (string, error) {
	var uids []string
	for _, atv := range c.Subject.Names {
		if !atv.Type.Equal(uidOID) {
			continue
		}
		s, ok := atv.Value.(string)
		if !ok {
			return "", errors.New("unable to parse UID into a string")
		}
		uids = append(uids, s)
	}
	switch {
	case len(uids) == 0:
		return "", nil
	case len(uids) > 1:
		return "", fmt.Errorf("expected 1 UID, but found multiple: %v", uids)
	case uids[0] == "":
		return "", errors.New("UID cannot be an empty string")
	}
	return uids[0], nil
}

// certificateID names a certificate in error messages without leaking
// anything secret: serial number and key identifiers, in the notation of
// kube-apiserver's logs (and of openssl).
func certificateID(c *x509.Certificate) string {
	return fmt.Sprintf("SN=%d, SKID=%s, AKID=%s", c.SerialNumber, colonHex(c.SubjectKeyId), colonHex(c.AuthorityKeyId))
}

func colonHex(b []byte) string {
	parts := make([]string, len(b))
	for i, x := range b {
		parts[i] = fmt.Sprintf("%02X", x)
	}
	return strings.Join(parts, ":")
}
