package jwt

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/kapi-dev/kapi/pkg/authentication/user"
)

// issuer is an OIDC issuer on loopback whose signing key can be rotated.
type issuer struct {
	srv      *httptest.Server
	key      atomic.Pointer[rsa.PrivateKey]
	kid      atomic.Value
	jwksHits atomic.Int64
}

func newIssuer(t *testing.T) *issuer {
	t.Helper()
	iss := &issuer{}
	iss.rotate(t, "k1")
	mux := http.NewServeMux()
	iss.srv = httptest.NewTLSServer(mux)
	t.Cleanup(iss.srv.Close)
	mux.HandleFunc("/.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"issuer": iss.srv.URL, "jwks_uri": iss.srv.URL + "/jwks"})
	})
	mux.HandleFunc("/jwks", func(w http.ResponseWriter, r *http.Request) {
		iss.jwksHits.Add(1)
		json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &iss.key.Load().PublicKey, KeyID: iss.kid.Load().(string), Algorithm: "RS256", Use: "sig"}}})
	})
	return iss
}

func (iss *issuer) rotate(t *testing.T, kid string) {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	iss.key.Store(k)
	iss.kid.Store(kid)
}

func sign(t *testing.T, key *rsa.PrivateKey, kid string, claims map[string]any) string {
	t.Helper()
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: jose.JSONWebKey{Key: key, KeyID: kid}}, (&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(claims)
	o, err := s.Sign(b)
	if err != nil {
		t.Fatal(err)
	}
	tok, _ := o.CompactSerialize()
	return tok
}

// oracleConfig is the claim-based part of the configuration the oracle was
// recorded with (testdata/kube-apiserver/authn/jwt in test/e2e).
func oracleConfig(iss *issuer) Config {
	return Config{
		IssuerURL:      iss.srv.URL,
		CAPEM:          pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: iss.srv.Certificate().Raw}),
		Audiences:      []string{"kapi", "other"},
		UsernameClaim:  "sub",
		UsernamePrefix: "oidc:",
		GroupsClaim:    "groups",
		GroupsPrefix:   "g:",
		UIDClaim:       "sub",
		RequiredClaims: map[string]string{"tenant": "acme"},
	}
}

func TestTokensAsKubeAPIServerJudgedThem(t *testing.T) {
	iss := newIssuer(t)
	a, err := New(oracleConfig(iss))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	claims := func(edit func(map[string]any)) map[string]any {
		c := map[string]any{"iss": iss.srv.URL, "aud": "kapi", "sub": "alice", "tenant": "acme", "groups": []string{"dev", "ops"}, "exp": now.Add(time.Hour).Unix(), "iat": now.Unix()}
		if edit != nil {
			edit(c)
		}
		return c
	}
	// jwt-ok.txt: oidc:alice, uid alice, groups g:dev g:ops.
	resp, ok, err := a.AuthenticateToken(context.Background(), sign(t, iss.key.Load(), "k1", claims(nil)))
	if !ok || err != nil {
		t.Fatalf("ok=%v err=%v", ok, err)
	}
	want := &user.DefaultInfo{Name: "oidc:alice", UID: "alice", Groups: []string{"g:dev", "g:ops"}}
	if !reflect.DeepEqual(resp.User, want) {
		t.Errorf("user = %#v, want %#v", resp.User, want)
	}
	// jwt-aud-list.txt: one audience in common is enough.
	if _, ok, err := a.AuthenticateToken(context.Background(), sign(t, iss.key.Load(), "k1", claims(func(c map[string]any) { c["aud"] = []string{"x", "other"} }))); !ok {
		t.Errorf("audience list with one match: err=%v", err)
	}

	other, _ := rsa.GenerateKey(rand.Reader, 2048)
	for _, tc := range []struct {
		name, token, reason string
	}{
		{"jwt-bad-signature", sign(t, other, "k1", claims(nil)), "oidc: verify token: failed to verify signature: failed to verify id token signature"},
		{"jwt-wrong-audience", sign(t, iss.key.Load(), "k1", claims(func(c map[string]any) { c["aud"] = "nope" })), `oidc: verify token: oidc: expected audience in ["kapi" "other"] got ["nope"]`},
		{"jwt-expired", sign(t, iss.key.Load(), "k1", claims(func(c map[string]any) { c["exp"] = now.Add(-100 * time.Second).Unix() })), "oidc: verify token: oidc: token is expired (Token Expiry: "},
		{"jwt-claim-required-value", sign(t, iss.key.Load(), "k1", claims(func(c map[string]any) { c["tenant"] = "other" })), "oidc: required claim tenant value does not match. Got = other, want = acme"},
		{"jwt-no-sub", sign(t, iss.key.Load(), "k1", claims(func(c map[string]any) { delete(c, "sub") })), `oidc: parse username claims "sub": claim not present`},
	} {
		_, ok, err := a.AuthenticateToken(context.Background(), tc.token)
		if ok || err == nil || !strings.HasPrefix(err.Error(), tc.reason) {
			t.Errorf("%s: ok=%v err=%v, want %q", tc.name, ok, err, tc.reason)
		}
	}
	// jwt-wrong-issuer, unknown-token, malformed-jwt: not this
	// authenticator's, the union's "invalid bearer token".
	for _, tok := range []string{sign(t, iss.key.Load(), "k1", claims(func(c map[string]any) { c["iss"] = "https://evil.example" })), "not-a-jwt", "a.b.c"} {
		if _, ok, err := a.AuthenticateToken(context.Background(), tok); ok || err != nil {
			t.Errorf("%.20s: ok=%v err=%v, want neither", tok, ok, err)
		}
	}
}

func TestKeyRotationIsPickedUp(t *testing.T) {
	iss := newIssuer(t)
	a, _ := New(oracleConfig(iss))
	c := map[string]any{"iss": iss.srv.URL, "aud": "kapi", "sub": "alice", "tenant": "acme", "exp": time.Now().Add(time.Hour).Unix()}
	if _, ok, err := a.AuthenticateToken(context.Background(), sign(t, iss.key.Load(), "k1", c)); !ok {
		t.Fatal(err)
	}
	iss.rotate(t, "k2")
	if _, ok, err := a.AuthenticateToken(context.Background(), sign(t, iss.key.Load(), "k2", c)); !ok {
		t.Fatalf("token of the rotated key: %v", err)
	}
	hits := iss.jwksHits.Load()
	a.AuthenticateToken(context.Background(), sign(t, iss.key.Load(), "k2", c))
	if iss.jwksHits.Load() != hits {
		t.Error("keys were fetched again for a known key id")
	}
}

func TestIssuerMustBeHTTPS(t *testing.T) {
	if _, err := New(Config{IssuerURL: "http://127.0.0.1:1"}); err == nil {
		t.Error("http issuer accepted")
	}
}

// The CEL parts of the recorded configuration: a claim validation
// expression, an extra mapping and a user validation rule.
func TestCELRulesAsKubeAPIServerJudgedThem(t *testing.T) {
	iss := newIssuer(t)
	cfg := oracleConfig(iss)
	level, err := CompileClaims("claims.?level.orValue(0) < 5")
	if err != nil {
		t.Fatal(err)
	}
	level.Message = "level must be below 5"
	tenant, _ := CompileClaims("claims.tenant")
	notSystem, _ := CompileUser("!user.username.startsWith('oidc:system:')")
	notSystem.Message = "username cannot use reserved system: prefix"
	cfg.ClaimRules = []*Expression{level}
	cfg.Extra = []ExtraMapping{{Key: "example.com/tenant", Expression: tenant}}
	cfg.UserRules = []*Expression{notSystem}
	a, _ := New(cfg)
	claims := func(edit func(map[string]any)) string {
		c := map[string]any{"iss": iss.srv.URL, "aud": "kapi", "sub": "alice", "tenant": "acme", "groups": []string{"dev", "ops"}, "exp": time.Now().Add(time.Hour).Unix()}
		if edit != nil {
			edit(c)
		}
		return sign(t, iss.key.Load(), "k1", c)
	}
	// jwt-ok.txt
	resp, ok, err := a.AuthenticateToken(context.Background(), claims(nil))
	if !ok {
		t.Fatal(err)
	}
	want := &user.DefaultInfo{Name: "oidc:alice", UID: "alice", Groups: []string{"g:dev", "g:ops"}, Extra: map[string][]string{"example.com/tenant": {"acme"}}}
	if !reflect.DeepEqual(resp.User, want) {
		t.Errorf("user = %#v, want %#v", resp.User, want)
	}
	for _, tc := range []struct{ name, token, reason string }{
		{"jwt-claim-expression", claims(func(c map[string]any) { c["level"] = 7 }),
			"oidc: error evaluating claim validation expression: validation expression 'claims.?level.orValue(0) < 5' failed: level must be below 5"},
		{"jwt-user-validation", claims(func(c map[string]any) { c["sub"] = "system:bob" }),
			"oidc: error evaluating user info validation rule: validation expression '!user.username.startsWith('oidc:system:')' failed: username cannot use reserved system: prefix"},
	} {
		_, ok, err := a.AuthenticateToken(context.Background(), tc.token)
		if ok || err == nil || err.Error() != tc.reason {
			t.Errorf("%s: ok=%v err=%v\nwant %s", tc.name, ok, err, tc.reason)
		}
	}
}

func TestExpressionMappings(t *testing.T) {
	iss := newIssuer(t)
	cfg := oracleConfig(iss)
	cfg.RequiredClaims = nil
	cfg.UsernameExpression, _ = CompileClaims("'user:' + claims.sub")
	cfg.GroupsExpression, _ = CompileClaims("claims.groups.map(g, 'team:' + g)")
	cfg.UIDExpression, _ = CompileClaims("claims.sub + '-uid'")
	a, _ := New(cfg)
	tok := sign(t, iss.key.Load(), "k1", map[string]any{"iss": iss.srv.URL, "aud": "other", "sub": "bob", "groups": []string{"x"}, "exp": time.Now().Add(time.Hour).Unix()})
	resp, ok, err := a.AuthenticateToken(context.Background(), tok)
	if !ok {
		t.Fatal(err)
	}
	want := &user.DefaultInfo{Name: "user:bob", UID: "bob-uid", Groups: []string{"team:x"}}
	if !reflect.DeepEqual(resp.User, want) {
		t.Errorf("user = %#v, want %#v", resp.User, want)
	}
}
