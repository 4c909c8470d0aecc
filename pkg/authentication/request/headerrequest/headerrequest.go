// Package headerrequest authenticates requests that an authenticating
// front proxy forwards, as kube-apiserver does with the --requestheader-*
// flags.
//
// The proxy proves who it is with a client certificate issued by the
// request-header CA (--requestheader-client-ca-file) and, if
// --requestheader-allowed-names is set, with one of those CommonNames; only
// then are the user it names in headers believed. Anyone else could set the
// same headers, so a request whose certificate does not verify is an error
// (the chain goes on to other authenticators, which may accept the same
// certificate as an ordinary client certificate).
package headerrequest

import (
	"crypto/x509"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/kapi-dev/kapi/pkg/authentication/authenticator"
	"github.com/kapi-dev/kapi/pkg/authentication/user"
)

// Headers names the headers a front proxy puts the user in. Header names
// are case-insensitive; the values are kept as given for
// extension-apiserver-authentication, which publishes them.
type Headers struct {
	// Username headers are tried in order; the first non-empty value is
	// the user name. A request without one carries no front-proxy user.
	Username []string
	// UID headers are tried in order like Username.
	UID []string
	// Group headers each contribute all their values, in order.
	Group []string
	// ExtraPrefixes: a header "<prefix><key>" adds its values to the
	// extra field <key>, lower-cased and percent-decoded.
	ExtraPrefixes []string
}

// Clear removes every header that h names from header, so that nothing
// after authentication (a handler, a proxied extension server) can take
// them for a verified identity. kube-apiserver does this only once a
// request is authenticated; it is harmless to do it for every request.
func (h Headers) Clear(header http.Header) {
	for _, names := range [][]string{h.Username, h.UID, h.Group} {
		for _, n := range names {
			header.Del(n)
		}
	}
	if len(h.ExtraPrefixes) == 0 {
		return
	}
	for name := range header {
		if h.extraPrefix(name) != "" {
			delete(header, name)
		}
	}
}

// extraPrefix returns the prefix of ExtraPrefixes the header name starts
// with, compared without regard to case, or "".
func (h Headers) extraPrefix(name string) string {
	lower := strings.ToLower(name)
	for _, p := range h.ExtraPrefixes {
		if strings.HasPrefix(lower, strings.ToLower(p)) {
			return p
		}
	}
	return ""
}

// CAPool returns the CAs a front proxy's certificate must chain to; it is
// called per request so that a reloaded file takes effect. nil means none.
type CAPool func() *x509.CertPool

// Authenticator verifies the front proxy and reads the user from headers.
type Authenticator struct {
	roots        CAPool
	allowedNames []string
	headers      Headers
}

// New returns a request-header authenticator. allowedNames empty accepts
// any CommonName the CA has signed.
func New(roots CAPool, allowedNames []string, headers Headers) *Authenticator {
	return &Authenticator{roots: roots, allowedNames: allowedNames, headers: headers}
}

// AuthenticateRequest implements authenticator.Request.
//
// No client certificate: not ok, no error (the proxy is not involved).
// A certificate that does not verify against the request-header CA, or
// whose CommonName is not allowed: an error. A verified proxy that names
// no user: not ok, no error, so that other authenticators are asked.
func (a *Authenticator) AuthenticateRequest(req *http.Request) (*authenticator.Response, bool, error) {
	if req.TLS == nil || len(req.TLS.PeerCertificates) == 0 {
		return nil, false, nil
	}
	roots := a.roots()
	if roots == nil {
		return nil, false, nil
	}
	leaf := req.TLS.PeerCertificates[0]
	opts := x509.VerifyOptions{Roots: roots, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
	if len(req.TLS.PeerCertificates) > 1 {
		opts.Intermediates = x509.NewCertPool()
		for _, c := range req.TLS.PeerCertificates[1:] {
			opts.Intermediates.AddCert(c)
		}
	}
	if _, err := leaf.Verify(opts); err != nil {
		return nil, false, fmt.Errorf("verifying front-proxy certificate failed: %w", err)
	}
	if len(a.allowedNames) > 0 && !slices.Contains(a.allowedNames, leaf.Subject.CommonName) {
		return nil, false, fmt.Errorf("x509: subject with cn=%s is not in the allowed list", leaf.Subject.CommonName)
	}
	name := firstValue(req.Header, a.headers.Username)
	if name == "" {
		return nil, false, nil
	}
	u := &user.DefaultInfo{
		Name:   name,
		UID:    firstValue(req.Header, a.headers.UID),
		Groups: allValues(req.Header, a.headers.Group),
		Extra:  a.extra(req.Header),
	}
	return &authenticator.Response{User: u}, true, nil
}

// firstValue returns the first non-empty value of the first header of
// names that has one.
func firstValue(h http.Header, names []string) string {
	for _, n := range names {
		for _, v := range h.Values(n) {
			if v != "" {
				return v
			}
		}
	}
	return ""
}

// allValues returns the non-empty values of every header of names. A value
// with a comma is one group: the proxy sends one header per group.
func allValues(h http.Header, names []string) []string {
	var out []string
	for _, n := range names {
		for _, v := range h.Values(n) {
			if v != "" {
				out = append(out, v)
			}
		}
	}
	return out
}

// extra collects the extra fields. Keys are lower-cased (HTTP header names
// are case-insensitive, extra keys are not) and then percent-decoded, so a
// proxy can send keys that a header name cannot hold, such as
// "example.com/project" as "Example.com%2fproject"; a key that does not
// decode is kept as it is, as kube-apiserver does.
func (a *Authenticator) extra(h http.Header) map[string][]string {
	var out map[string][]string
	for name, values := range h {
		p := a.headers.extraPrefix(name)
		if p == "" {
			continue
		}
		key := strings.ToLower(name[len(p):])
		if k, err := url.PathUnescape(key); err == nil {
			key = k
		}
		for _, v := range values {
			if v == "" {
				continue
			}
			if out == nil {
				out = map[string][]string{}
			}
			out[key] = append(out[key], v)
		}
	}
	return out
}
