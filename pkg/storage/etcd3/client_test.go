package etcd3_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.etcd.io/etcd/server/v3/embed"

	"github.com/kapi-dev/kapi/pkg/storage/embedded"
	"github.com/kapi-dev/kapi/pkg/storage/etcd3"
)

func TestHealthCheck(t *testing.T) {
	if err := etcd3.HealthCheck(shared.Client())(context.Background()); err != nil {
		t.Errorf("check of a running etcd = %v", err)
	}

	// Nothing listens on port 1. The deadline only bounds the test.
	c, err := etcd3.NewClient(etcd3.ClientConfig{Servers: []string{"http://127.0.0.1:1"}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := etcd3.HealthCheck(c)(ctx); err == nil {
		t.Error("check of an unreachable etcd succeeded")
	}
}

func TestNewClientOverTheNetwork(t *testing.T) {
	s, err := embedded.Start(context.Background(), embedded.Config{DataDir: t.TempDir(), ClientURL: "http://127.0.0.1:0", UnsafeNoFsync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c, err := etcd3.NewClient(etcd3.ClientConfig{Servers: []string{s.ClientURL()}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := etcd3.HealthCheck(c)(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestNewClientWithTLS(t *testing.T) {
	dir := t.TempDir()
	pki := newTestPKI(t, dir)

	cfg := embed.NewConfig()
	cfg.Dir = filepath.Join(dir, "etcd")
	cfg.LogLevel = "fatal"
	cfg.UnsafeNoFsync = true
	cfg.TickMs, cfg.ElectionMs = 10, 50
	peer, _ := url.Parse("http://127.0.0.1:2380")
	client, _ := url.Parse("https://127.0.0.1:0")
	cfg.ListenPeerUrls = nil
	cfg.AdvertisePeerUrls = []url.URL{*peer}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	cfg.ListenClientUrls = []url.URL{*client}
	cfg.AdvertiseClientUrls = []url.URL{*client}
	cfg.ClientTLSInfo.CertFile = pki.serverCert
	cfg.ClientTLSInfo.KeyFile = pki.serverKey
	cfg.ClientTLSInfo.TrustedCAFile = pki.ca
	cfg.ClientTLSInfo.ClientCertAuth = true
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	<-e.Server.ReadyNotify()
	endpoint := "https://" + e.Clients[0].Addr().String()

	c, err := etcd3.NewClient(etcd3.ClientConfig{
		Servers: []string{endpoint}, CAFile: pki.ca, CertFile: pki.clientCert, KeyFile: pki.clientKey,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := etcd3.HealthCheck(c)(context.Background()); err != nil {
		t.Fatalf("check over TLS with a client certificate: %v", err)
	}

	// Without a client certificate the server refuses the connection.
	anon, err := etcd3.NewClient(etcd3.ClientConfig{Servers: []string{endpoint}, CAFile: pki.ca})
	if err != nil {
		t.Fatal(err)
	}
	defer anon.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	if err := etcd3.HealthCheck(anon)(ctx); err == nil {
		t.Error("check without a client certificate succeeded")
	}
}

func TestNewClientConfigErrors(t *testing.T) {
	tests := []struct {
		name string
		cfg  etcd3.ClientConfig
	}{
		{"no servers", etcd3.ClientConfig{}},
		{"certificate without key", etcd3.ClientConfig{Servers: []string{"https://127.0.0.1:2379"}, CertFile: "c.pem"}},
		{"missing CA file", etcd3.ClientConfig{Servers: []string{"https://127.0.0.1:2379"}, CAFile: "/nonexistent/ca.pem"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if c, err := etcd3.NewClient(tt.cfg); err == nil {
				c.Close()
				t.Error("NewClient succeeded, want an error")
			}
		})
	}
}

type testPKI struct {
	ca, serverCert, serverKey, clientCert, clientKey string
}

// newTestPKI writes a CA, a serving certificate for 127.0.0.1 and a client
// certificate to dir.
func newTestPKI(t *testing.T, dir string) testPKI {
	t.Helper()
	caKey := newKey(t)
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test-ca"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caCert, err := x509.ParseCertificate(caDER)
	if err != nil {
		t.Fatal(err)
	}
	issue := func(serial int64, name string, usage x509.ExtKeyUsage, ips []net.IP) (certFile, keyFile string) {
		key := newKey(t)
		tmpl := &x509.Certificate{
			SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: name},
			NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
			KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{usage}, IPAddresses: ips,
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &key.PublicKey, caKey)
		if err != nil {
			t.Fatal(err)
		}
		return writePEM(t, dir, name+".pem", "CERTIFICATE", der), writeKey(t, dir, name+"-key.pem", key)
	}
	p := testPKI{ca: writePEM(t, dir, "ca.pem", "CERTIFICATE", caDER)}
	p.serverCert, p.serverKey = issue(2, "server", x509.ExtKeyUsageServerAuth, []net.IP{net.ParseIP("127.0.0.1")})
	p.clientCert, p.clientKey = issue(3, "client", x509.ExtKeyUsageClientAuth, nil)
	return p
}

func newKey(t *testing.T) *ecdsa.PrivateKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func writeKey(t *testing.T, dir, name string, key *ecdsa.PrivateKey) string {
	t.Helper()
	der, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return writePEM(t, dir, name, "EC PRIVATE KEY", der)
}

func writePEM(t *testing.T, dir, name, typ string, der []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}
