// Package jwt authenticates bearer tokens signed by an OpenID Connect
// issuer, as kube-apiserver's JWT authenticator does for the legacy
// --oidc-* flags and for each jwt entry of an AuthenticationConfiguration
// (pkg/authentication/config compiles those into a Config).
//
// The issuer's keys are found through discovery
// (<issuer>/.well-known/openid-configuration, then its jwks_uri) on first
// use and again whenever a token names a key id that is not known, so a
// key rotation at the issuer needs no restart. A token must be signed by
// one of those keys with an allowed algorithm, name the issuer in "iss",
// have an audience in common with Audiences (MatchAny: any one will do)
// and not be expired. Then, in kube-apiserver's order: claim validation
// (required claim values, CEL rules), the mappings to username, uid,
// groups and extra (claims with a prefix, or CEL), and the user
// validation rules. Rejection reasons are kube-apiserver's, which it
// logs; the client always sees the same 401.
package jwt

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/kapi-dev/kapi/pkg/authentication/authenticator"
	"github.com/kapi-dev/kapi/pkg/authentication/user"
)

// Config describes one issuer.
type Config struct {
	// IssuerURL must equal the tokens' "iss" claim.
	IssuerURL string
	// DiscoveryURL, if set, is where the discovery document is fetched
	// instead of IssuerURL + "/.well-known/openid-configuration".
	DiscoveryURL string
	// CAPEM verifies the issuer's serving certificate; empty means the
	// system roots.
	CAPEM []byte
	// Audiences: the token's "aud" must contain one of them.
	Audiences []string
	// SigningAlgs are the accepted algorithms; empty means RS256, as the
	// default of --oidc-signing-algs.
	SigningAlgs []string

	UsernameClaim, UsernamePrefix string
	GroupsClaim, GroupsPrefix     string
	UIDClaim                      string
	// RequiredClaims must be present with these string values.
	RequiredClaims map[string]string

	// The CEL parts of an AuthenticationConfiguration jwt entry. A
	// mapping expression replaces the claim of the same field.
	ClaimRules         []*Expression
	UsernameExpression *Expression
	GroupsExpression   *Expression
	UIDExpression      *Expression
	Extra              []ExtraMapping
	UserRules          []*Expression

	// Metrics records the verifications and key fetches; nil records
	// nothing.
	Metrics *Metrics
}

// ExtraMapping fills the extra field Key from an expression over claims.
type ExtraMapping struct {
	Key        string
	Expression *Expression
}

// Authenticator verifies one issuer's tokens.
type Authenticator struct {
	cfg    Config
	client *http.Client
	now    func() time.Time

	mu   sync.Mutex
	keys *jose.JSONWebKeySet
}

// New returns an authenticator; the issuer is not contacted until a
// token arrives, so that a server starts even if its issuer is down.
func New(cfg Config) (*Authenticator, error) {
	if !strings.HasPrefix(cfg.IssuerURL, "https://") {
		return nil, fmt.Errorf("'oidc-issuer-url' (%q) has invalid scheme (%q), require 'https'", cfg.IssuerURL, strings.SplitN(cfg.IssuerURL, ":", 2)[0])
	}
	if len(cfg.SigningAlgs) == 0 {
		cfg.SigningAlgs = []string{"RS256"}
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if len(cfg.CAPEM) > 0 {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(cfg.CAPEM) {
			return nil, errors.New("certificateAuthority: no certificates found")
		}
		tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	}
	return &Authenticator{cfg: cfg, client: &http.Client{Transport: tr, Timeout: 30 * time.Second}, now: time.Now}, nil
}

// AuthenticateToken implements authenticator.Token. A token that is not
// a JWT, or is another issuer's, is not this authenticator's: not ok, no
// error, so that the token union asks the others quietly. The others
// are timed in the metrics.
func (a *Authenticator) AuthenticateToken(ctx context.Context, token string) (*authenticator.Response, bool, error) {
	start := time.Now()
	resp, ok, err := a.authenticate(token)
	if ok || err != nil {
		a.cfg.Metrics.authenticated(a.cfg.IssuerURL, err == nil, time.Since(start))
	}
	return resp, ok, err
}

func (a *Authenticator) authenticate(token string) (*authenticator.Response, bool, error) {
	if strings.Count(token, ".") != 2 {
		return nil, false, nil
	}
	sig, err := jose.ParseSigned(token, algorithms(a.cfg.SigningAlgs))
	if err != nil {
		return nil, false, nil
	}
	var unverified struct {
		Issuer string `json:"iss"`
	}
	if err := json.Unmarshal(sig.UnsafePayloadWithoutVerification(), &unverified); err != nil || unverified.Issuer != a.cfg.IssuerURL {
		return nil, false, nil
	}
	payload, err := a.verify(sig)
	if err != nil {
		return nil, false, fmt.Errorf("oidc: verify token: %w", err)
	}
	claims := map[string]json.RawMessage{}
	if err := json.Unmarshal(payload, &claims); err != nil {
		return nil, false, fmt.Errorf("oidc: parse claims: %w", err)
	}
	if err := a.checkStandardClaims(claims); err != nil {
		return nil, false, fmt.Errorf("oidc: verify token: %w", err)
	}
	for claim, want := range a.cfg.RequiredClaims {
		var got string
		raw, ok := claims[claim]
		if !ok {
			return nil, false, fmt.Errorf("oidc: required claim %s not present in ID token", claim)
		}
		if err := json.Unmarshal(raw, &got); err != nil {
			got = string(raw)
		}
		if got != want {
			return nil, false, fmt.Errorf("oidc: required claim %s value does not match. Got = %s, want = %s", claim, got, want)
		}
	}
	var celClaims map[string]any
	if len(a.cfg.ClaimRules) > 0 || a.cfg.UsernameExpression != nil || a.cfg.GroupsExpression != nil || a.cfg.UIDExpression != nil || len(a.cfg.Extra) > 0 {
		if err := json.Unmarshal(payload, &celClaims); err != nil {
			return nil, false, fmt.Errorf("oidc: parse claims: %w", err)
		}
	}
	for _, rule := range a.cfg.ClaimRules {
		ok, err := rule.evalBool("claims", celClaims)
		if err != nil {
			return nil, false, fmt.Errorf("oidc: error evaluating claim validation expression: %w", err)
		}
		if !ok {
			return nil, false, fmt.Errorf("oidc: error evaluating claim validation expression: validation expression '%s' failed: %s", rule.Source, rule.Message)
		}
	}
	u := &user.DefaultInfo{}
	if e := a.cfg.UsernameExpression; e != nil {
		name, err := e.evalString(celClaims)
		if err != nil {
			return nil, false, fmt.Errorf("oidc: error evaluating username claim expression: %w", err)
		}
		if name == "" {
			return nil, false, errors.New("oidc: empty username via CEL expression is not allowed")
		}
		u.Name = name
	} else {
		name, err := stringClaim(claims, a.cfg.UsernameClaim)
		if err != nil {
			return nil, false, fmt.Errorf("oidc: parse username claims %q: %w", a.cfg.UsernameClaim, err)
		}
		u.Name = a.cfg.UsernamePrefix + name
	}
	if e := a.cfg.UIDExpression; e != nil {
		if u.UID, err = e.evalString(celClaims); err != nil {
			return nil, false, fmt.Errorf("oidc: error evaluating uid claim expression: %w", err)
		}
	}
	if e := a.cfg.GroupsExpression; e != nil {
		if u.Groups, err = e.evalStrings(celClaims); err != nil {
			return nil, false, fmt.Errorf("oidc: error evaluating group claim expression: %w", err)
		}
	}
	for _, m := range a.cfg.Extra {
		values, err := m.Expression.evalStrings(celClaims)
		if err != nil {
			return nil, false, fmt.Errorf("oidc: error evaluating extra claim expression: %w", err)
		}
		if len(values) == 0 {
			continue
		}
		if u.Extra == nil {
			u.Extra = map[string][]string{}
		}
		u.Extra[m.Key] = values
	}
	if a.cfg.UIDClaim != "" && a.cfg.UIDExpression == nil {
		if u.UID, err = stringClaim(claims, a.cfg.UIDClaim); err != nil {
			return nil, false, fmt.Errorf("oidc: parse uid claim %q: %w", a.cfg.UIDClaim, err)
		}
	}
	if a.cfg.GroupsClaim != "" && a.cfg.GroupsExpression == nil {
		if raw, ok := claims[a.cfg.GroupsClaim]; ok {
			groups, err := stringOrList(raw)
			if err != nil {
				return nil, false, fmt.Errorf("oidc: parse groups claim %q: %w", a.cfg.GroupsClaim, err)
			}
			for _, g := range groups {
				u.Groups = append(u.Groups, a.cfg.GroupsPrefix+g)
			}
		}
	}
	if err := a.checkUser(u); err != nil {
		return nil, false, err
	}
	return &authenticator.Response{User: u}, true, nil
}

// checkUser runs the user validation rules on the mapped user.
func (a *Authenticator) checkUser(u *user.DefaultInfo) error {
	if len(a.cfg.UserRules) == 0 {
		return nil
	}
	extra := map[string]any{}
	for k, v := range u.Extra {
		extra[k] = v
	}
	groups := u.Groups
	if groups == nil {
		groups = []string{}
	}
	value := map[string]any{"username": u.Name, "uid": u.UID, "groups": groups, "extra": extra}
	for _, rule := range a.cfg.UserRules {
		ok, err := rule.evalBool("user", value)
		if err != nil {
			return fmt.Errorf("oidc: error evaluating user info validation rule: %w", err)
		}
		if !ok {
			return fmt.Errorf("oidc: error evaluating user info validation rule: validation expression '%s' failed: %s", rule.Source, rule.Message)
		}
	}
	return nil
}

// verify checks the signature with the issuer's keys, fetching them again
// once if the token's key is unknown (the issuer may have rotated).
func (a *Authenticator) verify(sig *jose.JSONWebSignature) ([]byte, error) {
	kid := ""
	if len(sig.Signatures) > 0 {
		kid = sig.Signatures[0].Header.KeyID
	}
	keys, err := a.keySet(false)
	if err != nil {
		return nil, err
	}
	if payload, ok := tryKeys(sig, keys, kid); ok {
		return payload, nil
	}
	if kid != "" && len(keys.Key(kid)) == 0 {
		if keys, err = a.keySet(true); err != nil {
			return nil, err
		}
		if payload, ok := tryKeys(sig, keys, kid); ok {
			return payload, nil
		}
	}
	return nil, errors.New("failed to verify signature: failed to verify id token signature")
}

func tryKeys(sig *jose.JSONWebSignature, keys *jose.JSONWebKeySet, kid string) ([]byte, bool) {
	for _, k := range keys.Keys {
		if kid != "" && k.KeyID != "" && k.KeyID != kid {
			continue
		}
		if payload, err := sig.Verify(k.Key); err == nil {
			return payload, true
		}
	}
	return nil, false
}

func (a *Authenticator) keySet(refresh bool) (*jose.JSONWebKeySet, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.keys != nil && !refresh {
		return a.keys, nil
	}
	discovery := a.cfg.DiscoveryURL
	if discovery == "" {
		discovery = strings.TrimSuffix(a.cfg.IssuerURL, "/") + "/.well-known/openid-configuration"
	}
	var doc struct {
		JWKSURI string `json:"jwks_uri"`
	}
	if _, err := a.getJSON(discovery, &doc); err != nil {
		return nil, fmt.Errorf("oidc: discovery: %w", err)
	}
	var set jose.JSONWebKeySet
	body, err := a.getJSON(doc.JWKSURI, &set)
	if err != nil {
		a.cfg.Metrics.fetched(a.cfg.IssuerURL, nil)
		return nil, fmt.Errorf("oidc: fetching keys: %w", err)
	}
	a.cfg.Metrics.fetched(a.cfg.IssuerURL, body)
	a.keys = &set
	return a.keys, nil
}

// getJSON decodes the document at url into out, and returns it.
func (a *Authenticator) getJSON(url string, out any) ([]byte, error) {
	resp, err := a.client.Get(url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: %s", resp.Status, body)
	}
	return body, json.Unmarshal(body, out)
}

// checkStandardClaims checks "aud" and "exp" (and "nbf" if present), with
// kube-apiserver's messages.
func (a *Authenticator) checkStandardClaims(claims map[string]json.RawMessage) error {
	auds, err := stringOrList(claims["aud"])
	if err != nil || !slices.ContainsFunc(auds, func(x string) bool { return slices.Contains(a.cfg.Audiences, x) }) {
		return fmt.Errorf("oidc: expected audience in %s got %s", quoteList(a.cfg.Audiences), quoteList(auds))
	}
	var exp, nbf float64
	if raw, ok := claims["exp"]; ok {
		if err := json.Unmarshal(raw, &exp); err != nil {
			return errors.New("oidc: malformed claim exp")
		}
		if t := time.Unix(int64(exp), 0); !a.now().Before(t) {
			return fmt.Errorf("oidc: token is expired (Token Expiry: %v)", t.UTC())
		}
	}
	if raw, ok := claims["nbf"]; ok {
		if err := json.Unmarshal(raw, &nbf); err != nil {
			return errors.New("oidc: malformed claim nbf")
		}
		// The same five minutes of clock skew as go-oidc, which
		// kube-apiserver uses.
		if t := time.Unix(int64(nbf), 0); a.now().Add(5 * time.Minute).Before(t) {
			return fmt.Errorf("oidc: current time %v before the nbf (not before) time: %v", a.now().UTC(), t.UTC())
		}
	}
	return nil
}

func quoteList(l []string) string {
	q := make([]string, len(l))
	for i, s := range l {
		q[i] = fmt.Sprintf("%q", s)
	}
	return "[" + strings.Join(q, " ") + "]"
}

func stringClaim(claims map[string]json.RawMessage, name string) (string, error) {
	raw, ok := claims[name]
	if !ok {
		return "", errors.New("claim not present")
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", fmt.Errorf("claim is not a string: %s", raw)
	}
	return s, nil
}

// stringOrList reads a claim that may be one string or a list of them, as
// "aud" and groups claims may be.
func stringOrList(raw json.RawMessage) ([]string, error) {
	if raw == nil {
		return nil, nil
	}
	var one string
	if err := json.Unmarshal(raw, &one); err == nil {
		return []string{one}, nil
	}
	var many []string
	if err := json.Unmarshal(raw, &many); err != nil {
		return nil, fmt.Errorf("claim is neither a string nor a list of strings: %s", raw)
	}
	return many, nil
}

func algorithms(names []string) []jose.SignatureAlgorithm {
	out := make([]jose.SignatureAlgorithm, len(names))
	for i, n := range names {
		out[i] = jose.SignatureAlgorithm(n)
	}
	return out
}
