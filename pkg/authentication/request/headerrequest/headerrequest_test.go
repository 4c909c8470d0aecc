package headerrequest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/pkg/authentication/user"
)

type ca struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
}

func newCA(t *testing.T, cn string) *ca {
	t.Helper()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: cn}, IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := x509.ParseCertificate(der)
	return &ca{c, key}
}

func (c *ca) issue(t *testing.T, cn string, notAfter time.Time) *x509.Certificate {
	t.Helper()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: cn},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}, NotBefore: time.Now().Add(-2 * time.Hour), NotAfter: notAfter}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, c.cert, key.Public(), c.key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	return cert
}

// oracleHeaders are the flags of the shared oracle (and kubeadm's).
var oracleHeaders = Headers{
	Username:      []string{"X-Remote-User"},
	UID:           []string{"X-Remote-Uid"},
	Group:         []string{"X-Remote-Group"},
	ExtraPrefixes: []string{"X-Remote-Extra-"},
}

func request(cert *x509.Certificate, headers [][2]string) *http.Request {
	r := httptest.NewRequest("GET", "https://kapi/api", nil)
	if cert != nil {
		r.TLS = &tls.ConnectionState{PeerCertificates: []*x509.Certificate{cert}}
	}
	for _, h := range headers {
		r.Header.Add(h[0], h[1])
	}
	return r
}

// The identities are what kube-apiserver 1.37.1's SelfSubjectReview
// answered for the same headers (system:authenticated, added later by the
// chain, left out).
func TestFrontProxyUser(t *testing.T) {
	proxyCA := newCA(t, "front-proxy-ca")
	proxy := proxyCA.issue(t, "front-proxy-client", time.Now().Add(time.Hour))
	a := New(func() *x509.CertPool { p := x509.NewCertPool(); p.AddCert(proxyCA.cert); return p }, []string{"front-proxy-client"}, oracleHeaders)
	tests := []struct {
		name    string
		headers [][2]string
		want    *user.DefaultInfo
	}{
		{
			name: "user, groups in order, extra keys lower-cased and percent-decoded",
			headers: [][2]string{{"X-Remote-User", "bob"}, {"X-Remote-Group", "g1"}, {"X-Remote-Group", "g2"},
				{"X-Remote-Extra-Acme.com%2Fproject", "p1"}, {"X-Remote-Extra-Scopes", "s1"}},
			want: &user.DefaultInfo{Name: "bob", Groups: []string{"g1", "g2"}, Extra: map[string][]string{"acme.com/project": {"p1"}, "scopes": {"s1"}}},
		},
		{
			name:    "header names are case-insensitive, a key that does not decode is kept, a comma is not a separator",
			headers: [][2]string{{"x-remote-user", "bob"}, {"X-Remote-Extra-FOO%zz", "a"}, {"X-Remote-Extra-Bar", "a, b"}},
			want:    &user.DefaultInfo{Name: "bob", Extra: map[string][]string{"bar": {"a, b"}, "foo%zz": {"a"}}},
		},
		{
			name:    "the first uid header value is the uid",
			headers: [][2]string{{"X-Remote-User", "bob"}, {"X-Remote-Uid", "u1"}, {"X-Remote-Uid", "u2"}},
			want:    &user.DefaultInfo{Name: "bob", UID: "u1"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, ok, err := a.AuthenticateRequest(request(proxy, tt.headers))
			if err != nil || !ok {
				t.Fatalf("ok=%v err=%v, want authenticated", ok, err)
			}
			if got := resp.User.(*user.DefaultInfo); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("user = %#v\nwant   %#v", got, tt.want)
			}
		})
	}
}

func TestUntrustedProxies(t *testing.T) {
	proxyCA := newCA(t, "front-proxy-ca")
	clientCA := newCA(t, "client-ca")
	pool := func() *x509.CertPool { p := x509.NewCertPool(); p.AddCert(proxyCA.cert); return p }
	a := New(pool, []string{"front-proxy-client"}, oracleHeaders)
	user := [][2]string{{"X-Remote-User", "bob"}}
	tests := []struct {
		name    string
		cert    *x509.Certificate
		headers [][2]string
		wantErr bool
	}{
		{"no client certificate: the headers mean nothing", nil, user, false},
		{"a certificate of another CA is an error", clientCA.issue(t, "front-proxy-client", time.Now().Add(time.Hour)), user, true},
		{"a CommonName outside --requestheader-allowed-names is an error", proxyCA.issue(t, "not-allowed", time.Now().Add(time.Hour)), user, true},
		{"an expired proxy certificate is an error", proxyCA.issue(t, "front-proxy-client", time.Now().Add(-time.Hour)), user, true},
		{"a verified proxy that names no user leaves the request to others", proxyCA.issue(t, "front-proxy-client", time.Now().Add(time.Hour)), nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, ok, err := a.AuthenticateRequest(request(tt.cert, tt.headers))
			if ok {
				t.Fatal("authenticated, want not")
			}
			if (err != nil) != tt.wantErr {
				t.Errorf("err = %v, want error: %v", err, tt.wantErr)
			}
		})
	}
}

func TestAnyCommonNameWhenNoneAllowed(t *testing.T) {
	proxyCA := newCA(t, "front-proxy-ca")
	a := New(func() *x509.CertPool { p := x509.NewCertPool(); p.AddCert(proxyCA.cert); return p }, nil, oracleHeaders)
	_, ok, err := a.AuthenticateRequest(request(proxyCA.issue(t, "anything", time.Now().Add(time.Hour)), [][2]string{{"X-Remote-User", "bob"}}))
	if !ok || err != nil {
		t.Fatalf("ok=%v err=%v, want authenticated", ok, err)
	}
}

func TestClearRemovesTheConfiguredHeaders(t *testing.T) {
	h := http.Header{}
	for _, n := range []string{"X-Remote-User", "X-Remote-Uid", "X-Remote-Group", "X-Remote-Extra-Scopes", "x-remote-extra-acme.com%2fp", "Authorization-Other", "X-Custom"} {
		h.Add(n, "v")
	}
	oracleHeaders.Clear(h)
	want := http.Header{"Authorization-Other": {"v"}, "X-Custom": {"v"}}
	if !reflect.DeepEqual(h, want) {
		t.Errorf("after Clear: %v, want %v", h, want)
	}
	custom := Headers{Username: []string{"X-Proxy-Who"}, ExtraPrefixes: []string{"X-Proxy-Extra-"}}
	h = http.Header{"X-Proxy-Who": {"bob"}, "X-Proxy-Extra-A": {"1"}, "X-Remote-User": {"kept"}}
	custom.Clear(h)
	if want := (http.Header{"X-Remote-User": {"kept"}}); !reflect.DeepEqual(h, want) {
		t.Errorf("after Clear with custom headers: %v, want %v", h, want)
	}
}
