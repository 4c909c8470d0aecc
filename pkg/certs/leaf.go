package certs

import (
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// leafSpec describes a certificate kapi issues from its CA and keeps in
// the directory.
type leafSpec struct {
	what              string // for messages
	certFile, keyFile string
	subject           pkix.Name
	usage             x509.ExtKeyUsage
	hosts             hostList // subject alternative names, for serving certificates
}

// leafPEM is a certificate and its key, as stored.
type leafPEM struct {
	certPEM, keyPEM []byte
}

// servingCert is the API server's certificate, valid for hosts.
func servingCert(hosts hostList) leafSpec {
	return leafSpec{
		what:     "serving certificate",
		certFile: ServingCertFileName,
		keyFile:  ServingKeyFileName,
		subject:  pkix.Name{CommonName: "kapi"},
		usage:    x509.ExtKeyUsageServerAuth,
		hosts:    hosts,
	}
}

// adminCert is the client certificate of admin.kubeconfig.
var adminCert = leafSpec{
	what:     "admin client certificate",
	certFile: AdminCertFileName,
	keyFile:  AdminKeyFileName,
	subject:  pkix.Name{CommonName: AdminUser, Organization: []string{AdminGroup}},
	usage:    x509.ExtKeyUsageClientAuth,
}

// ensureLeaf returns the certificate of spec, issuing a new one from ca if
// the stored one does not fit.
func (b *bootstrap) ensureLeaf(ca *authority, spec leafSpec) (*leafPEM, error) {
	stored, reason, err := b.loadLeaf(ca, spec)
	if err != nil {
		return nil, err
	}
	if reason == "" {
		return stored, nil
	}
	if stored != nil {
		b.logReplace(spec.what, reason)
	}

	tmpl := &x509.Certificate{
		Subject:               spec.subject,
		NotBefore:             b.now.Add(-backdate),
		NotAfter:              b.now.Add(LeafLifetime),
		KeyUsage:              x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           []x509.ExtKeyUsage{spec.usage},
		BasicConstraintsValid: true,
		DNSNames:              spec.hosts.dns,
		IPAddresses:           spec.hosts.ips,
	}
	certPEM, keyPEM, err := ca.issue(tmpl)
	if err != nil {
		return nil, fmt.Errorf("issuing %s: %w", spec.what, err)
	}
	// Key first; if the certificate is not written, the next start finds
	// a pair that does not match and issues again.
	if err := b.write(spec.keyFile, keyPEM, 0o600); err != nil {
		return nil, err
	}
	if err := b.write(spec.certFile, certPEM, 0o644); err != nil {
		return nil, err
	}
	return &leafPEM{certPEM: certPEM, keyPEM: keyPEM}, nil
}

// loadLeaf reads the stored certificate of spec and says why it must be
// replaced, or "" if it can be kept. A nil leafPEM means there is none.
func (b *bootstrap) loadLeaf(ca *authority, spec leafSpec) (*leafPEM, string, error) {
	certPEM, certErr := os.ReadFile(b.path(spec.certFile))
	keyPEM, keyErr := os.ReadFile(b.path(spec.keyFile))
	for _, err := range []error{certErr, keyErr} {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, "missing", nil
		}
		if err != nil {
			return nil, "", err // unreadable for another reason: do not overwrite blindly
		}
	}
	stored := &leafPEM{certPEM: certPEM, keyPEM: keyPEM}

	pair, err := keyPair(certPEM, keyPEM)
	if err != nil {
		return stored, fmt.Sprintf("%s and %s are not a valid pair: %v", spec.certFile, spec.keyFile, err), nil
	}
	cert := pair.Leaf
	_, err = cert.Verify(x509.VerifyOptions{
		Roots:       ca.pool,
		CurrentTime: b.now,
		KeyUsages:   []x509.ExtKeyUsage{spec.usage},
	})
	if err != nil {
		return stored, fmt.Sprintf("%s does not verify against the CA: %v", spec.certFile, err), nil
	}
	if left := cert.NotAfter.Sub(b.now); left < RenewBefore {
		return stored, fmt.Sprintf("%s expires on %s", spec.certFile, cert.NotAfter.UTC().Format("2006-01-02")), nil
	}
	if cert.Subject.CommonName != spec.subject.CommonName || !slices.Equal(cert.Subject.Organization, spec.subject.Organization) {
		return stored, fmt.Sprintf("%s is for %q, want %q", spec.certFile, cert.Subject, spec.subject), nil
	}
	if missing := spec.hosts.notCoveredBy(cert); len(missing) > 0 {
		return stored, fmt.Sprintf("%s is not valid for %s", spec.certFile, strings.Join(missing, ", ")), nil
	}
	return stored, "", nil
}

// hostList is a set of subject alternative names.
type hostList struct {
	dns []string
	ips []net.IP
}

// add adds a host name or IP address, ignoring duplicates. Host names are
// case-insensitive, so they are kept in lower case.
func (h *hostList) add(host string) error {
	if ip := net.ParseIP(host); ip != nil {
		if !slices.ContainsFunc(h.ips, ip.Equal) {
			h.ips = append(h.ips, ip)
		}
		return nil
	}
	name := strings.ToLower(host)
	if len(validation.IsDNS1123Subdomain(name)) > 0 && len(validation.IsWildcardDNS1123Subdomain(name)) > 0 {
		return fmt.Errorf("%q is neither an IP address nor a DNS name", host)
	}
	if !slices.Contains(h.dns, name) {
		h.dns = append(h.dns, name)
	}
	return nil
}

// notCoveredBy lists the hosts cert is not valid for, with the same
// matching rules (wildcards included) a TLS client applies.
func (h hostList) notCoveredBy(cert *x509.Certificate) []string {
	var missing []string
	for _, name := range h.dns {
		if cert.VerifyHostname(name) != nil {
			missing = append(missing, name)
		}
	}
	for _, ip := range h.ips {
		if cert.VerifyHostname(ip.String()) != nil {
			missing = append(missing, ip.String())
		}
	}
	return missing
}

// servingHosts returns every name the serving certificate must be valid
// for: the loopback names, the names and address in-cluster clients use for
// the "kubernetes" Service, this machine's host name, the host of the
// server URL, and the extra names asked for.
func servingHosts(opts Options, serverHost string) (hostList, error) {
	var h hostList
	for _, host := range []string{
		"localhost", "127.0.0.1", "::1",
		"kubernetes", "kubernetes.default", "kubernetes.default.svc", "kubernetes.default.svc.cluster.local",
		serverHost,
	} {
		if err := h.add(host); err != nil {
			return hostList{}, fmt.Errorf("server URL host: %w", err)
		}
	}
	if opts.ServiceIP != nil {
		if ip := opts.ServiceIP; !slices.ContainsFunc(h.ips, ip.Equal) {
			h.ips = append(h.ips, ip)
		}
	}
	// A host name that is not a valid DNS name (some machines have
	// underscores in theirs) cannot be a SAN; it is left out rather than
	// failing the start.
	if name, err := os.Hostname(); err == nil && name != "" {
		_ = h.add(name)
	}
	for _, san := range opts.ExtraSANs {
		if err := h.add(san); err != nil {
			return hostList{}, fmt.Errorf("extra SAN: %w", err)
		}
	}
	return h, nil
}
