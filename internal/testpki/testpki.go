// Package testpki makes the certificates tests serve with.
package testpki

import (
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"net"
	"testing"
)

// ServingWithoutSAN returns a CA's PEM and a serving certificate it
// signed for CN=127.0.0.1 with no subjectAltName extension: the
// certificate Go's TLS client refuses and kube-apiserver counts in
// apiserver_webhooks_x509_missing_san_total.
func ServingWithoutSAN(t testing.TB) ([]byte, tls.Certificate) {
	t.Helper()
	ca := NewCA(t, "webhook-ca")
	certPEM, keyPEM := ca.issue(t, &x509.Certificate{Subject: pkix.Name{CommonName: "127.0.0.1"},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}})
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	return ca.PEM, cert
}

// Serving returns a CA's PEM and a serving certificate it signed for
// 127.0.0.1 and localhost (in subjectAltName), for test servers that
// clients verify with the CA, as a webhook's caBundle.
func Serving(t testing.TB) ([]byte, tls.Certificate) {
	t.Helper()
	ca := NewCA(t, "test-ca")
	return ca.PEM, ca.Serving(t, []string{"localhost"}, []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback})
}
