package metrics

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/kapi-dev/kapi/pkg/endpoints/auditcontext"
)

// webhookCA signs serving certificates for 127.0.0.1 as the tests need
// them.
type webhookCA struct {
	key  *rsa.PrivateKey
	cert *x509.Certificate
}

func newWebhookCA(t *testing.T) *webhookCA {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "webhook-ca"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	return &webhookCA{key: key, cert: cert}
}

// serve starts a TLS server whose certificate is for CN=127.0.0.1, with
// the IP in a subjectAltName or not, signed with alg.
func (ca *webhookCA) serve(t *testing.T, withSAN bool, alg x509.SignatureAlgorithm) *httptest.Server {
	t.Helper()
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), SignatureAlgorithm: alg,
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	if withSAN {
		tmpl.IPAddresses = []net.IP{net.ParseIP("127.0.0.1")}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &ca.key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: ca.key}}}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv
}

// call makes a request through m's wrapper and returns its error and
// the audit annotations left in the request's context.
func (ca *webhookCA) call(t *testing.T, m *WebhookX509, srv *httptest.Server, verify bool) (error, map[string]string) {
	t.Helper()
	pool := x509.NewCertPool()
	pool.AddCert(ca.cert)
	rt := m.WrapTransport(&http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, InsecureSkipVerify: !verify}})
	audit := auditcontext.New("id")
	req, _ := http.NewRequestWithContext(auditcontext.With(context.Background(), audit), http.MethodPost, srv.URL+"/authorize", nil)
	resp, err := (&http.Client{Transport: rt}).Do(req)
	if err == nil {
		resp.Body.Close()
	}
	audit.Init(auditcontext.LevelMetadata, false)
	return err, audit.Recorded().Annotations
}

func counted(t *testing.T, m *WebhookX509) (missingSAN, sha1 float64) {
	t.Helper()
	var a, b dto.Metric
	if err := m.missingSAN.Write(&a); err != nil {
		t.Fatal(err)
	}
	if err := m.insecureSHA1.Write(&b); err != nil {
		t.Fatal(err)
	}
	return a.GetCounter().GetValue(), b.GetCounter().GetValue()
}

// A webhook whose certificate has no subjectAltName fails with Go's error
// and is counted, with kube-apiserver's audit annotation; with
// verification off, the call works and is counted all the same.
func TestWebhookCertificateWithoutSAN(t *testing.T) {
	ca := newWebhookCA(t)
	srv := ca.serve(t, false, x509.SHA256WithRSA)
	m := NewWebhookX509(nil)

	err, annotations := ca.call(t, m, srv, true)
	if err == nil || !strings.HasSuffix(err.Error(), "tls: failed to verify certificate: x509: certificate relies on legacy Common Name field, use SANs instead") {
		t.Fatalf("err = %v", err)
	}
	want := "relies on a legacy Common Name field instead of the SAN extension for subject validation"
	if got := annotations["missing-san.invalid-cert.kubernetes.io/127.0.0.1"]; got != want || len(annotations) != 1 {
		t.Errorf("annotations %v", annotations)
	}
	if san, sha1 := counted(t, m); san != 1 || sha1 != 0 {
		t.Errorf("missing SAN %v, SHA-1 %v; want 1, 0", san, sha1)
	}

	if err, _ := ca.call(t, m, srv, false); err != nil {
		t.Fatal(err)
	}
	if san, _ := counted(t, m); san != 2 {
		t.Errorf("missing SAN %v after a call without verification, want 2", san)
	}
}

// A webhook whose certificate is signed with SHA-1 fails with Go's error
// and is counted; one with a subjectAltName and SHA-256 is not counted.
func TestWebhookCertificateSignedWithSHA1(t *testing.T) {
	ca := newWebhookCA(t)
	m := NewWebhookX509(nil)
	err, annotations := ca.call(t, m, ca.serve(t, true, x509.SHA1WithRSA), true)
	if err == nil || !strings.Contains(err.Error(), "x509: cannot verify signature: insecure algorithm SHA1-RSA") {
		t.Fatalf("err = %v", err)
	}
	if got := annotations["insecure-sha1.invalid-cert.kubernetes.io/127.0.0.1"]; got != "uses an insecure SHA-1 signature" || len(annotations) != 1 {
		t.Errorf("annotations %v", annotations)
	}
	if san, sha1 := counted(t, m); san != 0 || sha1 != 1 {
		t.Errorf("missing SAN %v, SHA-1 %v; want 0, 1", san, sha1)
	}

	if err, annotations := ca.call(t, m, ca.serve(t, true, x509.SHA256WithRSA), true); err != nil || len(annotations) != 0 {
		t.Fatalf("a good certificate: %v, annotations %v", err, annotations)
	}
	if san, sha1 := counted(t, m); san != 0 || sha1 != 1 {
		t.Errorf("after a good certificate: missing SAN %v, SHA-1 %v; want 0, 1", san, sha1)
	}
}

// A nil *WebhookX509 leaves the transport alone.
func TestNilWebhookX509(t *testing.T) {
	rt := http.DefaultTransport
	if (*WebhookX509)(nil).WrapTransport(rt) != rt {
		t.Error("a nil WebhookX509 wrapped the transport")
	}
}
