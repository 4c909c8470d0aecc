package x509

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"math/big"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/pkg/authentication/user"
)

// authority is a CA for tests.
type authority struct {
	cert *x509.Certificate
	key  crypto.Signer
}

func newKey(t *testing.T) *ecdsa.PrivateKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

var serial int64

// sign issues tmpl for key, signed by parent (or self-signed if nil).
func sign(t *testing.T, tmpl *x509.Certificate, key crypto.Signer, parent *authority) *x509.Certificate {
	t.Helper()
	serial++
	tmpl.SerialNumber = big.NewInt(serial)
	if tmpl.NotBefore.IsZero() {
		tmpl.NotBefore = time.Now().Add(-time.Hour)
		tmpl.NotAfter = time.Now().Add(time.Hour)
	}
	issuer, issuerKey := tmpl, key
	if parent != nil {
		issuer, issuerKey = parent.cert, parent.key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, issuer, key.Public(), issuerKey)
	if err != nil {
		t.Fatal(err)
	}
	c, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func newCA(t *testing.T, name string, parent *authority) *authority {
	key := newKey(t)
	return &authority{
		cert: sign(t, &x509.Certificate{
			Subject:               pkix.Name{CommonName: name},
			IsCA:                  true,
			BasicConstraintsValid: true,
			KeyUsage:              x509.KeyUsageCertSign,
		}, key, parent),
		key: key,
	}
}

// clientCert issues a client certificate with subject to ca; edit may adjust
// the template first.
func clientCert(t *testing.T, ca *authority, subject pkix.Name, edit func(*x509.Certificate)) *x509.Certificate {
	tmpl := &x509.Certificate{
		Subject:     subject,
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	if edit != nil {
		edit(tmpl)
	}
	return sign(t, tmpl, newKey(t), ca)
}

func poolOf(cas ...*authority) *x509.CertPool {
	p := x509.NewCertPool()
	for _, ca := range cas {
		p.AddCert(ca.cert)
	}
	return p
}

func authenticate(a *Authenticator, certs ...*x509.Certificate) (*user.DefaultInfo, bool, error) {
	req := httptest.NewRequest("GET", "https://kapi/api", nil)
	if certs != nil {
		req.TLS = &tls.ConnectionState{PeerCertificates: certs}
	}
	resp, ok, err := a.AuthenticateRequest(req)
	if resp == nil {
		return nil, ok, err
	}
	return resp.User.(*user.DefaultInfo), ok, err
}

func credentialID(c *x509.Certificate) map[string][]string {
	sum := sha256.Sum256(c.Raw)
	return map[string][]string{user.CredentialIDKey: {"X509SHA256=" + hex.EncodeToString(sum[:])}}
}

func withUID(uids ...string) func(*x509.Certificate) {
	return func(c *x509.Certificate) {
		for _, uid := range uids {
			c.Subject.ExtraNames = append(c.Subject.ExtraNames, pkix.AttributeTypeAndValue{Type: uidOID, Value: uid})
		}
	}
}

func TestValidCertificates(t *testing.T) {
	root := newCA(t, "root", nil)
	intermediate := newCA(t, "intermediate", root)
	a := New(StaticCAPool(poolOf(root)))

	admin := clientCert(t, root, pkix.Name{CommonName: "kubernetes-admin", Organization: []string{"system:masters"}}, nil)
	// DER sorts the values of a multi-valued RDN, so pick groups in order.
	node := clientCert(t, root, pkix.Name{CommonName: "system:node:n1", Organization: []string{"dev", "system:nodes"}}, nil)
	withID := clientCert(t, root, pkix.Name{CommonName: "alice"}, withUID("alice-uid"))
	viaIntermediate := clientCert(t, intermediate, pkix.Name{CommonName: "bob"}, nil)
	anyUsage := clientCert(t, root, pkix.Name{CommonName: "carol"}, func(c *x509.Certificate) {
		c.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageAny}
	})

	tests := []struct {
		name  string
		chain []*x509.Certificate
		want  *user.DefaultInfo
	}{
		{
			name:  "CommonName is the user, Organization the groups",
			chain: []*x509.Certificate{admin},
			want:  &user.DefaultInfo{Name: "kubernetes-admin", Groups: []string{"system:masters"}, Extra: credentialID(admin)},
		},
		{
			name:  "several organizations are several groups",
			chain: []*x509.Certificate{node},
			want:  &user.DefaultInfo{Name: "system:node:n1", Groups: []string{"dev", "system:nodes"}, Extra: credentialID(node)},
		},
		{
			name:  "UID attribute is the user's UID",
			chain: []*x509.Certificate{withID},
			want:  &user.DefaultInfo{Name: "alice", UID: "alice-uid", Extra: credentialID(withID)},
		},
		{
			name:  "intermediates sent by the client complete the chain",
			chain: []*x509.Certificate{viaIntermediate, intermediate.cert},
			want:  &user.DefaultInfo{Name: "bob", Extra: credentialID(viaIntermediate)},
		},
		{
			name:  "any extended key usage includes client auth",
			chain: []*x509.Certificate{anyUsage},
			want:  &user.DefaultInfo{Name: "carol", Extra: credentialID(anyUsage)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok, err := authenticate(a, tt.chain...)
			if err != nil || !ok {
				t.Fatalf("ok=%v err=%v, want authenticated", ok, err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("user = %#v\nwant   %#v", got, tt.want)
			}
		})
	}
}

func TestRejectedCertificates(t *testing.T) {
	root := newCA(t, "root", nil)
	intermediate := newCA(t, "intermediate", root)
	other := newCA(t, "other", nil)
	a := New(StaticCAPool(poolOf(root)))
	alice := pkix.Name{CommonName: "alice"}

	// crypto/x509 cannot issue a UID of another ASN.1 type, but the parsed
	// subject is what the authenticator reads, after the signature check.
	nonStringUID := clientCert(t, root, alice, nil)
	nonStringUID.Subject.Names = append(nonStringUID.Subject.Names, pkix.AttributeTypeAndValue{Type: uidOID, Value: 42})

	tests := []struct {
		name    string
		chain   []*x509.Certificate
		wantErr string
	}{
		{
			name:    "issued by an unknown CA",
			chain:   []*x509.Certificate{clientCert(t, other, alice, nil)},
			wantErr: "certificate signed by unknown authority",
		},
		{
			name: "expired",
			chain: []*x509.Certificate{clientCert(t, root, alice, func(c *x509.Certificate) {
				c.NotBefore = time.Now().Add(-2 * time.Hour)
				c.NotAfter = time.Now().Add(-time.Hour)
			})},
			wantErr: "certificate has expired or is not yet valid",
		},
		{
			name: "not yet valid",
			chain: []*x509.Certificate{clientCert(t, root, alice, func(c *x509.Certificate) {
				c.NotBefore = time.Now().Add(time.Hour)
				c.NotAfter = time.Now().Add(2 * time.Hour)
			})},
			wantErr: "certificate has expired or is not yet valid",
		},
		{
			name: "a serving certificate is not a client certificate",
			chain: []*x509.Certificate{clientCert(t, root, alice, func(c *x509.Certificate) {
				c.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
			})},
			wantErr: "incompatible key usage",
		},
		{
			name:    "intermediate not sent",
			chain:   []*x509.Certificate{clientCert(t, intermediate, alice, nil)},
			wantErr: "certificate signed by unknown authority",
		},
		{
			name:    "two UIDs",
			chain:   []*x509.Certificate{clientCert(t, root, alice, withUID("a", "b"))},
			wantErr: "expected 1 UID, but found multiple: [a b]",
		},
		{
			name:    "empty UID",
			chain:   []*x509.Certificate{clientCert(t, root, alice, withUID(""))},
			wantErr: "UID cannot be an empty string",
		},
		{
			name:    "UID that is not a string",
			chain:   []*x509.Certificate{nonStringUID},
			wantErr: "unable to parse UID into a string",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok, err := authenticate(a, tt.chain...)
			if err == nil || ok || got != nil {
				t.Fatalf("ok=%v user=%v err=%v, want an error", ok, got, err)
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("err = %q, want it to contain %q", err, tt.wantErr)
			}
			if !strings.Contains(err.Error(), "SN=") {
				t.Errorf("err = %q, want it to identify the certificate", err)
			}
		})
	}
}

func TestNoCredential(t *testing.T) {
	root := newCA(t, "root", nil)
	valid := clientCert(t, root, pkix.Name{CommonName: "alice"}, nil)
	nameless := clientCert(t, root, pkix.Name{Organization: []string{"system:masters"}}, nil)

	tests := []struct {
		name  string
		pool  *x509.CertPool
		chain []*x509.Certificate
	}{
		{name: "plain HTTP", pool: poolOf(root), chain: nil},
		{name: "TLS without a client certificate", pool: poolOf(root), chain: []*x509.Certificate{}},
		{name: "no client CA configured", pool: nil, chain: []*x509.Certificate{valid}},
		{name: "valid certificate without a CommonName", pool: poolOf(root), chain: []*x509.Certificate{nameless}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest("GET", "/", nil)
			if tt.chain != nil {
				req.TLS = &tls.ConnectionState{PeerCertificates: tt.chain}
			}
			resp, ok, err := New(StaticCAPool(tt.pool)).AuthenticateRequest(req)
			if ok || resp != nil || err != nil {
				t.Errorf("ok=%v resp=%v err=%v, want no credential", ok, resp, err)
			}
		})
	}
}

func TestCAPoolIsConsultedOnEveryRequest(t *testing.T) {
	oldCA, newCA := newCA(t, "old", nil), newCA(t, "new", nil)
	cert := clientCert(t, newCA, pkix.Name{CommonName: "alice"}, nil)

	current := poolOf(oldCA)
	a := New(func() *x509.CertPool { return current })

	if _, _, err := authenticate(a, cert); err == nil {
		t.Fatal("certificate from the new CA accepted before the pool was reloaded")
	}
	current = poolOf(newCA)
	if u, ok, err := authenticate(a, cert); err != nil || !ok || u.Name != "alice" {
		t.Fatalf("after reload: user=%v ok=%v err=%v, want alice", u, ok, err)
	}
}

func TestCertificateID(t *testing.T) {
	c := &x509.Certificate{SerialNumber: big.NewInt(258), SubjectKeyId: []byte{0x0a, 0xff}, AuthorityKeyId: nil}
	if got, want := certificateID(c), "SN=258, SKID=0A:FF, AKID="; got != want {
		t.Errorf("certificateID = %q, want %q", got, want)
	}
}
