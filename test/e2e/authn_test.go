package e2e

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kapi-dev/kapi/pkg/app"
	"github.com/kapi-dev/kapi/pkg/testserver"
)

// testCA issues certificates for a test.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pem  []byte
}

func newTestCA(t *testing.T, cn string) *testCA {
	t.Helper()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: cn}, IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := x509.ParseCertificate(der)
	return &testCA{cert: c, key: key, pem: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}
}

// client issues a client certificate valid until notAfter.
func (ca *testCA) client(t *testing.T, cn string, notAfter time.Time) tls.Certificate {
	t.Helper()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: cn},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}, KeyUsage: x509.KeyUsageDigitalSignature,
		NotBefore: time.Now().Add(-2 * time.Hour), NotAfter: notAfter}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, key.Public(), ca.key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

// tokenReviewer is a token webhook that knows one token and counts calls.
type tokenReviewer struct{ calls atomic.Int64 }

func (rv *tokenReviewer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rv.calls.Add(1)
	var review map[string]any
	json.NewDecoder(r.Body).Decode(&review)
	status := map[string]any{"authenticated": false}
	if review["spec"].(map[string]any)["token"] == "wh-good" {
		status = map[string]any{"authenticated": true, "user": map[string]any{"username": "wh-user", "groups": []string{"wh-group"}}}
	}
	json.NewEncoder(w).Encode(map[string]any{"apiVersion": review["apiVersion"], "kind": "TokenReview", "status": status})
}

func webhookKubeconfig(t *testing.T, srv *httptest.Server) string {
	t.Helper()
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	path := filepath.Join(t.TempDir(), "webhook.kubeconfig")
	content := fmt.Sprintf("apiVersion: v1\nkind: Config\nclusters:\n- name: wh\n  cluster:\n    server: %s/authenticate\n    certificate-authority-data: %s\nusers:\n- name: kapi\n  user: {}\ncontexts:\n- name: wh\n  context: {cluster: wh, user: kapi}\ncurrent-context: wh\n",
		srv.URL, base64.StdEncoding.EncodeToString(ca))
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// recorded401 is kube-apiserver 1.37.1's answer to each bad credential
// (wrong CA, front proxy with a CommonName not allowed, front proxy
// naming no user, unknown bearer token): status line and body.
func recorded401(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("testdata/kube-apiserver/authn/unauthorized-401.txt")
	if err != nil {
		t.Fatal(err)
	}
	_, body, _ := strings.Cut(strings.ReplaceAll(string(b), "\r", ""), "\n\n")
	return body
}

// TestAuthenticationChain runs kube-apiserver's union against one server:
// a front proxy, client certificates, a token webhook and anonymous, and
// checks that every bad credential is a 401 with kube-apiserver's Status,
// never anonymous, while a request without credential is anonymous.
func TestAuthenticationChain(t *testing.T) {
	proxyCA := newTestCA(t, "front-proxy-ca")
	proxyCAFile := filepath.Join(t.TempDir(), "front-proxy-ca.crt")
	if err := os.WriteFile(proxyCAFile, proxyCA.pem, 0o600); err != nil {
		t.Fatal(err)
	}
	reviewer := &tokenReviewer{}
	wh := httptest.NewTLSServer(reviewer)
	defer wh.Close()

	s := testserver.Start(t, testserver.Options{Authentication: &app.AuthenticationConfig{
		RequestHeader: app.RequestHeaderConfig{
			ClientCAFile:       proxyCAFile,
			AllowedNames:       []string{"front-proxy-client"},
			UsernameHeaders:    []string{"X-Remote-User"},
			GroupHeaders:       []string{"X-Remote-Group"},
			ExtraHeadersPrefix: []string{"X-Remote-Extra-"},
		},
		TokenWebhook: app.TokenWebhookConfig{ConfigFile: webhookKubeconfig(t, wh), CacheTTL: time.Hour, Version: "v1"},
	}, AuthorizationMode: []string{"AlwaysAllow"}})
	anon := rest.AnonymousClientConfig(s.ClientConfig)
	do := func(cert *tls.Certificate, headers map[string]string) (int, string) {
		t.Helper()
		tlsConfig, err := rest.TLSConfigFor(anon)
		if err != nil {
			t.Fatal(err)
		}
		if cert != nil {
			tlsConfig.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return cert, nil }
		}
		client := &http.Client{Transport: &http.Transport{TLSClientConfig: tlsConfig}}
		defer client.CloseIdleConnections()
		req, _ := http.NewRequest("GET", s.URL+"/api/v1/namespaces", nil)
		for k, v := range headers {
			req.Header.Set(k, v)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}

	proxy := proxyCA.client(t, "front-proxy-client", time.Now().Add(time.Hour))
	notAllowed := proxyCA.client(t, "not-allowed", time.Now().Add(time.Hour))
	expiredProxy := proxyCA.client(t, "front-proxy-client", time.Now().Add(-time.Minute))
	stranger := newTestCA(t, "bad-ca").client(t, "mallory", time.Now().Add(time.Hour))
	asBob := map[string]string{"X-Remote-User": "bob", "X-Remote-Group": "system:masters"}

	for _, tc := range []struct {
		name    string
		cert    *tls.Certificate
		headers map[string]string
	}{
		{"front proxy", &proxy, asBob},
		{"webhook token", nil, map[string]string{"Authorization": "Bearer wh-good"}},
		{"webhook token as a WebSocket subprotocol", nil, map[string]string{"Connection": "Upgrade", "Upgrade": "websocket",
			"Sec-WebSocket-Protocol": "v5.channel.k8s.io, base64url.bearer.authorization.k8s.io." + base64.RawURLEncoding.EncodeToString([]byte("wh-good"))}},
		// kube-apiserver 1.37.1 too authenticates this request by its
		// token: a bad certificate does not end the search.
		{"good token, certificate of an unknown CA", &stranger, map[string]string{"Authorization": "Bearer wh-good"}},
	} {
		if code, body := do(tc.cert, tc.headers); code != http.StatusOK {
			t.Errorf("%s: %d %s, want 200 (AlwaysAllow)", tc.name, code, body)
		}
	}
	// kapi's AlwaysAllow keeps system:anonymous out of the API, and says
	// who it was.
	for _, tc := range []struct {
		name    string
		headers map[string]string
	}{
		{"no credential is anonymous", nil},
		{"an empty bearer token is no credential", map[string]string{"Authorization": "Bearer"}},
		{"another scheme is no credential", map[string]string{"Authorization": "Basic Zm9vOmJhcg=="}},
	} {
		if code, body := do(nil, tc.headers); code != http.StatusForbidden || !strings.Contains(body, `User \"system:anonymous\"`) {
			t.Errorf("%s: %d %s, want 403 for system:anonymous", tc.name, code, body)
		}
	}

	want := recorded401(t)
	for _, tc := range []struct {
		name    string
		cert    *tls.Certificate
		headers map[string]string
	}{
		{"front proxy with a CommonName not allowed", &notAllowed, asBob},
		{"expired front proxy certificate", &expiredProxy, asBob},
		{"front proxy naming no user (its certificate is no client certificate)", &proxy, nil},
		{"certificate of an unknown CA", &stranger, nil},
		{"unknown bearer token", nil, map[string]string{"Authorization": "Bearer nope"}},
		{"unknown token as a WebSocket subprotocol", nil, map[string]string{"Connection": "Upgrade", "Upgrade": "websocket",
			"Sec-WebSocket-Protocol": "v5.channel.k8s.io, base64url.bearer.authorization.k8s.io." + base64.RawURLEncoding.EncodeToString([]byte("nope"))}},
	} {
		code, body := do(tc.cert, tc.headers)
		if code != http.StatusUnauthorized || !jsonEqual(body, want) {
			t.Errorf("%s: %d %s\nwant 401 %s", tc.name, code, body, want)
		}
	}

	// The webhook's answers are cached for the TTL: a known and an
	// unknown token cost one call each, however often they are used.
	before := reviewer.calls.Load()
	for range 3 {
		do(nil, map[string]string{"Authorization": "Bearer wh-good"})
		do(nil, map[string]string{"Authorization": "Bearer nope"})
	}
	if n := reviewer.calls.Load() - before; n != 0 {
		t.Errorf("the webhook was called %d times for tokens it had answered, want 0", n)
	}
	do(nil, map[string]string{"Authorization": "Bearer fresh"})
	if n := reviewer.calls.Load() - before; n != 1 {
		t.Errorf("a new token cost %d webhook calls, want 1", n)
	}

	// extension-apiserver-authentication publishes the client CA and the
	// front proxy's settings, as kube-apiserver's keys and JSON lists.
	cs := kubernetes.NewForConfigOrDie(s.ClientConfig)
	var data map[string]string
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		cm, err := cs.CoreV1().ConfigMaps("kube-system").Get(t.Context(), "extension-apiserver-authentication", metav1.GetOptions{})
		if err == nil {
			data = cm.Data
			break
		}
	}
	wantData := map[string]string{
		"requestheader-client-ca-file":       string(proxyCA.pem),
		"requestheader-allowed-names":        `["front-proxy-client"]`,
		"requestheader-username-headers":     `["X-Remote-User"]`,
		"requestheader-group-headers":        `["X-Remote-Group"]`,
		"requestheader-extra-headers-prefix": `["X-Remote-Extra-"]`,
	}
	for k, v := range wantData {
		if data[k] != v {
			t.Errorf("extension-apiserver-authentication %s = %q, want %q", k, data[k], v)
		}
	}
	if !strings.Contains(data["client-ca-file"], "BEGIN CERTIFICATE") || len(data) != 6 {
		t.Errorf("extension-apiserver-authentication data: %v", data)
	}
}

func jsonEqual(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// TestLegacyOIDCFlags: --oidc-* turn on a JWT issuer (served here on
// loopback); its tokens authenticate, and tokens it did not sign, or for
// another client, are 401 with kube-apiserver's Status even with
// anonymous auth on.
func TestLegacyOIDCFlags(t *testing.T) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	iss := httptest.NewTLSServer(mux)
	defer iss.Close()
	mux.HandleFunc("/.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"issuer": iss.URL, "jwks_uri": iss.URL + "/jwks"})
	})
	mux.HandleFunc("/jwks", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &key.PublicKey, KeyID: "k1", Algorithm: "RS256", Use: "sig"}}})
	})
	caFile := filepath.Join(t.TempDir(), "oidc-ca.crt")
	os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: iss.Certificate().Raw}), 0o600)
	cfg := app.NewConfig().Authentication
	cfg.OIDC.IssuerURL, cfg.OIDC.ClientID, cfg.OIDC.CAFile = iss.URL, "kapi", caFile
	cfg.OIDC.GroupsClaim, cfg.OIDC.UsernamePrefix = "groups", "-"
	s := testserver.Start(t, testserver.Options{Authentication: &cfg, AuthorizationMode: []string{"AlwaysAllow"}})

	mint := func(signer *rsa.PrivateKey, aud string) string {
		sig, _ := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: jose.JSONWebKey{Key: signer, KeyID: "k1"}}, nil)
		b, _ := json.Marshal(map[string]any{"iss": iss.URL, "aud": aud, "sub": "alice", "groups": []string{"dev"}, "exp": time.Now().Add(time.Hour).Unix()})
		o, _ := sig.Sign(b)
		tok, _ := o.CompactSerialize()
		return tok
	}
	get := func(token string) (int, string) {
		cfg := rest.AnonymousClientConfig(s.ClientConfig)
		cfg.BearerToken = token
		client, err := rest.HTTPClientFor(cfg)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := client.Get(s.URL + "/api/v1/namespaces")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	if code, body := get(mint(key, "kapi")); code != http.StatusOK {
		t.Errorf("issuer's token: %d %s", code, body)
	}
	other, _ := rsa.GenerateKey(rand.Reader, 2048)
	want := recorded401(t)
	for name, tok := range map[string]string{"bad signature": mint(other, "kapi"), "wrong audience": mint(key, "someone-else")} {
		if code, body := get(tok); code != http.StatusUnauthorized || !jsonEqual(body, want) {
			t.Errorf("%s: %d %s, want the recorded 401", name, code, body)
		}
	}
}

// oidcIssuer serves discovery and keys for one RSA key on loopback.
type oidcIssuer struct {
	srv *httptest.Server
	key *rsa.PrivateKey
}

func newOIDCIssuer(t *testing.T) *oidcIssuer {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	iss := &oidcIssuer{key: key}
	mux := http.NewServeMux()
	iss.srv = httptest.NewTLSServer(mux)
	t.Cleanup(iss.srv.Close)
	mux.HandleFunc("/.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"issuer": iss.srv.URL, "jwks_uri": iss.srv.URL + "/jwks"})
	})
	mux.HandleFunc("/jwks", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &key.PublicKey, KeyID: "k1", Algorithm: "RS256", Use: "sig"}}})
	})
	return iss
}

func (iss *oidcIssuer) caPEM() string {
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: iss.srv.Certificate().Raw}))
}

func (iss *oidcIssuer) token(t *testing.T, claims map[string]any) string {
	t.Helper()
	sig, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: jose.JSONWebKey{Key: iss.key, KeyID: "k1"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(claims)
	o, _ := sig.Sign(b)
	tok, _ := o.CompactSerialize()
	return tok
}

// structuredConfig is the configuration the oracle was recorded with
// (testdata/kube-apiserver/authn/jwt/authentication-config.yaml), for
// the issuer iss and audience aud.
func structuredConfig(iss *oidcIssuer, aud string) string {
	indented := "      " + strings.ReplaceAll(strings.TrimSpace(iss.caPEM()), "\n", "\n      ")
	return fmt.Sprintf(`apiVersion: apiserver.config.k8s.io/v1
kind: AuthenticationConfiguration
jwt:
- issuer:
    url: %s
    certificateAuthority: |
%s
    audiences: [%s]
  claimValidationRules:
  - claim: tenant
    requiredValue: acme
  - expression: "claims.?level.orValue(0) < 5"
    message: "level must be below 5"
  claimMappings:
    username: {claim: sub, prefix: "oidc:"}
    groups: {claim: groups, prefix: "g:"}
    uid: {claim: sub}
    extra:
    - key: example.com/tenant
      valueExpression: claims.tenant
  userValidationRules:
  - expression: "!user.username.startsWith('oidc:system:')"
    message: "username cannot use reserved system: prefix"
anonymous:
  enabled: true
  conditions:
  - path: /livez
  - path: /readyz
`, iss.srv.URL, indented, aud)
}

// TestAuthenticationConfigFile: a JWT from the issuer of
// --authentication-config authenticates; the CEL rules reject what
// kube-apiserver rejected, with its 401; anonymous is allowed only on the
// paths of the conditions; a changed file is picked up.
func TestAuthenticationConfigFile(t *testing.T) {
	iss := newOIDCIssuer(t)
	file := filepath.Join(t.TempDir(), "authn.yaml")
	if err := os.WriteFile(file, []byte(structuredConfig(iss, "kapi")), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := app.NewConfig().Authentication
	cfg.ConfigFile = file
	cfg.ConfigReloadInterval = 50 * time.Millisecond
	s := testserver.Start(t, testserver.Options{Authentication: &cfg, AuthorizationMode: []string{"AlwaysAllow"}})

	get := func(token, path string) (int, string) {
		t.Helper()
		c := rest.AnonymousClientConfig(s.ClientConfig)
		c.BearerToken = token
		client, err := rest.HTTPClientFor(c)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := client.Get(s.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	claims := func(aud string, edit func(map[string]any)) map[string]any {
		c := map[string]any{"iss": iss.srv.URL, "aud": aud, "sub": "alice", "tenant": "acme", "groups": []string{"dev"}, "exp": time.Now().Add(time.Hour).Unix()}
		if edit != nil {
			edit(c)
		}
		return c
	}
	used := iss.token(t, claims("kapi", nil))
	if code, body := get(used, "/api/v1/namespaces"); code != http.StatusOK {
		t.Errorf("issuer's token: %d %s", code, body)
	}
	want := recorded401(t)
	for name, tok := range map[string]string{
		"claim validation expression (jwt-claim-expression.txt)": iss.token(t, claims("kapi", func(c map[string]any) { c["level"] = 7 })),
		"required claim value (jwt-claim-required-value.txt)":    iss.token(t, claims("kapi", func(c map[string]any) { c["tenant"] = "other" })),
		"user validation rule (jwt-user-validation.txt)":         iss.token(t, claims("kapi", func(c map[string]any) { c["sub"] = "system:bob" })),
		"wrong audience (jwt-wrong-audience.txt)":                iss.token(t, claims("nope", nil)),
		"wrong issuer (jwt-wrong-issuer.txt)":                    iss.token(t, claims("kapi", func(c map[string]any) { c["iss"] = "https://evil.example" })),
		"expired (jwt-expired.txt)":                              iss.token(t, claims("kapi", func(c map[string]any) { c["exp"] = time.Now().Add(-time.Minute).Unix() })),
		"malformed JWT (malformed-jwt in the README)":            "a.b.c",
	} {
		if code, body := get(tok, "/api/v1/namespaces"); code != http.StatusUnauthorized || !jsonEqual(body, want) {
			t.Errorf("%s: %d %s, want the recorded 401", name, code, body)
		}
	}
	// The anonymous section: only /livez and /readyz.
	for path, wantCode := range map[string]int{"/livez": 200, "/readyz": 200, "/healthz": 401, "/livez/ping": 401, "/api": 401} {
		if code, _ := get("", path); code != wantCode {
			t.Errorf("anonymous %s: %d, want %d as kube-apiserver", path, code, wantCode)
		}
	}

	// A new audience in the file: tokens for it start working, tokens for
	// the old one stop: at once for a token not seen before, and once the
	// token cache has forgotten it (10 s, as kube-apiserver's) for one
	// accepted before the change.
	if err := os.WriteFile(file, []byte(structuredConfig(iss, "kapi-2")), 0o600); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		code, _ := get(iss.token(t, claims("kapi-2", nil)), "/api/v1/namespaces")
		if code == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the changed configuration was not picked up: %d", code)
		}
		time.Sleep(50 * time.Millisecond)
	}
	fresh := iss.token(t, claims("kapi", func(c map[string]any) { c["jti"] = "not-seen-before" }))
	if code, _ := get(fresh, "/api/v1/namespaces"); code != http.StatusUnauthorized {
		t.Errorf("a new token for the old audience: %d, want 401", code)
	}
	waitFor(t, "a token for the old audience accepted before the change to be refused", func() bool {
		code, _ := get(used, "/api/v1/namespaces")
		return code == http.StatusUnauthorized
	})
	// An invalid file is ignored: the configuration in force stays.
	if err := os.WriteFile(file, []byte("apiVersion: apiserver.config.k8s.io/v1\nkind: AuthenticationConfiguration\nbogus: 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond) // several reload periods; not a timing assertion
	if code, _ := get(iss.token(t, claims("kapi-2", nil)), "/api/v1/namespaces"); code != http.StatusOK {
		t.Errorf("after an invalid file: %d, want the previous configuration still in force", code)
	}
}
