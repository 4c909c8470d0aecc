package config

import (
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"

	"k8s.io/apimachinery/pkg/util/sets"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"

	"github.com/kapi-dev/kapi/pkg/authentication/token/jwt"
)

// Load reads, decodes strictly and validates path. The errors read as
// kube-apiserver's, which refuses to start (or, on a reload, keeps the
// previous configuration) on the same files.
func Load(path string) (*Compiled, error) {
	data, err := readFile(path)
	if err != nil {
		return nil, err
	}
	c, err := Decode(data)
	if err != nil {
		return nil, fmt.Errorf("failed to load authentication configuration from file %q: %w", path, err)
	}
	return Compile(c)
}

func readFile(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("failed to read authentication configuration from file %q: %w", path, err)
	}
	return data, nil
}

// Decode decodes YAML or JSON, refusing unknown fields and any other
// apiVersion or kind.
func Decode(data []byte) (*AuthenticationConfiguration, error) {
	j, err := yaml.YAMLToJSON(data)
	if err != nil {
		return nil, err
	}
	var c AuthenticationConfiguration
	strict, err := sigsjson.UnmarshalStrict(j, &c)
	if err != nil {
		return nil, err
	}
	if len(strict) > 0 {
		msgs := make([]string, len(strict))
		for i, e := range strict {
			msgs[i] = e.Error()
		}
		return nil, fmt.Errorf("strict decoding error: %s", strings.Join(msgs, ", "))
	}
	if c.APIVersion != "apiserver.config.k8s.io/v1" && c.APIVersion != "apiserver.config.k8s.io/v1beta1" && c.APIVersion != "apiserver.config.k8s.io/v1alpha1" {
		return nil, fmt.Errorf("no kind %q is registered for version %q", c.Kind, c.APIVersion)
	}
	if c.Kind != "AuthenticationConfiguration" {
		return nil, fmt.Errorf("no kind %q is registered for version %q", c.Kind, c.APIVersion)
	}
	return &c, nil
}

// Compiled is a validated configuration, ready to authenticate.
type Compiled struct {
	JWT       []jwt.Config
	Anonymous *AnonymousConfig
}

// Compile validates c and compiles its expressions. Its error is
// kube-apiserver's "invalid authentication configuration: ...".
func Compile(c *AuthenticationConfiguration) (*Compiled, error) {
	var errs field.ErrorList
	out := &Compiled{Anonymous: c.Anonymous}
	root := field.NewPath("jwt")
	if len(c.JWT) > 64 {
		errs = append(errs, field.TooMany(root, len(c.JWT), 64))
	}
	issuers, discoveries := sets.New[string](), sets.New[string]()
	for i, a := range c.JWT {
		p := root.Index(i)
		cfg, e := compileJWT(a, p)
		errs = append(errs, e...)
		out.JWT = append(out.JWT, cfg)
		if issuers.Has(a.Issuer.URL) {
			errs = append(errs, field.Duplicate(p.Child("issuer", "url"), a.Issuer.URL))
		}
		issuers.Insert(a.Issuer.URL)
		if a.Issuer.DiscoveryURL != "" {
			if discoveries.Has(a.Issuer.DiscoveryURL) {
				errs = append(errs, field.Duplicate(p.Child("issuer", "discoveryURL"), a.Issuer.DiscoveryURL))
			}
			discoveries.Insert(a.Issuer.DiscoveryURL)
		}
	}
	if c.Anonymous != nil && !c.Anonymous.Enabled && len(c.Anonymous.Conditions) > 0 {
		errs = append(errs, field.Invalid(field.NewPath("anonymous", "conditions"), c.Anonymous.Conditions, "enabled should be set to true when conditions are defined"))
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("invalid authentication configuration: %w", errs.ToAggregate())
	}
	return out, nil
}

func compileJWT(a JWTAuthenticator, p *field.Path) (jwt.Config, field.ErrorList) {
	var errs field.ErrorList
	cfg := jwt.Config{IssuerURL: a.Issuer.URL, DiscoveryURL: a.Issuer.DiscoveryURL, Audiences: a.Issuer.Audiences, CAPEM: []byte(a.Issuer.CertificateAuthority), RequiredClaims: map[string]string{},
		// The structured configuration accepts every asymmetric algorithm.
		SigningAlgs: []string{"RS256", "RS384", "RS512", "ES256", "ES384", "ES512", "PS256", "PS384", "PS512"}}
	ip := p.Child("issuer")
	errs = append(errs, validateURL(a.Issuer.URL, ip.Child("url"), true)...)
	if a.Issuer.DiscoveryURL != "" {
		errs = append(errs, validateURL(a.Issuer.DiscoveryURL, ip.Child("discoveryURL"), false)...)
		if strings.TrimRight(a.Issuer.DiscoveryURL, "/") == strings.TrimRight(a.Issuer.URL, "/") {
			errs = append(errs, field.Invalid(ip.Child("discoveryURL"), a.Issuer.DiscoveryURL, "discoveryURL must be different from URL"))
		}
	}
	auds := ip.Child("audiences")
	if len(a.Issuer.Audiences) == 0 {
		errs = append(errs, field.Required(auds, fmt.Sprintf("at least one %s is required", auds)))
	}
	seen := sets.New[string]()
	for i, aud := range a.Issuer.Audiences {
		if aud == "" {
			errs = append(errs, field.Required(auds.Index(i), ""))
		}
		if seen.Has(aud) {
			errs = append(errs, field.Duplicate(auds.Index(i), aud))
		}
		seen.Insert(aud)
	}
	policy := ip.Child("audienceMatchPolicy")
	switch {
	case len(a.Issuer.Audiences) > 1 && a.Issuer.AudienceMatchPolicy != "MatchAny":
		errs = append(errs, field.Invalid(policy, a.Issuer.AudienceMatchPolicy, "audienceMatchPolicy must be MatchAny for multiple audiences"))
	case len(a.Issuer.Audiences) == 1 && a.Issuer.AudienceMatchPolicy != "" && a.Issuer.AudienceMatchPolicy != "MatchAny":
		errs = append(errs, field.Invalid(policy, a.Issuer.AudienceMatchPolicy, "audienceMatchPolicy must be empty or MatchAny for single audience"))
	}
	if ca := a.Issuer.CertificateAuthority; ca != "" {
		if err := parseCA([]byte(ca)); err != nil {
			errs = append(errs, field.Invalid(ip.Child("certificateAuthority"), "<omitted>", err.Error()))
		}
	}
	if t := a.Issuer.EgressSelectorType; t != "" && t != "controlplane" && t != "cluster" {
		errs = append(errs, field.Invalid(ip.Child("egressSelectorType"), t, "egress selector must be either controlplane or cluster"))
	}

	rp := p.Child("claimValidationRules")
	claims, exprs := sets.New[string](), sets.New[string]()
	for i, r := range a.ClaimValidationRules {
		fp := rp.Index(i)
		switch {
		case r.Claim != "" && r.Expression != "":
			errs = append(errs, field.Invalid(fp, r.Claim, "claim and expression can't both be set"))
		case r.Claim == "" && r.Expression == "":
			errs = append(errs, field.Required(fp, "claim or expression is required"))
		case r.Claim != "":
			if r.Message != "" {
				errs = append(errs, field.Invalid(fp.Child("message"), r.Message, "may not be specified when claim is set"))
			}
			if claims.Has(r.Claim) {
				errs = append(errs, field.Duplicate(fp.Child("claim"), r.Claim))
			}
			claims.Insert(r.Claim)
			cfg.RequiredClaims[r.Claim] = r.RequiredValue
		default:
			if r.RequiredValue != "" {
				errs = append(errs, field.Invalid(fp.Child("requiredValue"), r.RequiredValue, "may not be specified when expression is set"))
			}
			if exprs.Has(r.Expression) {
				errs = append(errs, field.Duplicate(fp.Child("expression"), r.Expression))
				continue
			}
			exprs.Insert(r.Expression)
			e, err := jwt.CompileClaims(r.Expression)
			if err != nil {
				errs = append(errs, field.Invalid(fp.Child("expression"), r.Expression, err.Error()))
				continue
			}
			e.Message = r.Message
			cfg.ClaimRules = append(cfg.ClaimRules, e)
		}
	}

	mp := p.Child("claimMappings")
	m := a.ClaimMappings
	var e *jwt.Expression
	var fe field.ErrorList
	cfg.UsernameClaim, cfg.UsernamePrefix, e, fe = prefixed(m.Username, mp.Child("username"), true)
	cfg.UsernameExpression, errs = e, append(errs, fe...)
	cfg.GroupsClaim, cfg.GroupsPrefix, e, fe = prefixed(m.Groups, mp.Child("groups"), false)
	cfg.GroupsExpression, errs = e, append(errs, fe...)
	switch {
	case m.UID.Claim != "" && m.UID.Expression != "":
		errs = append(errs, field.Invalid(mp.Child("uid"), "", "claim and expression can't both be set"))
	case m.UID.Expression != "":
		e, err := jwt.CompileClaims(m.UID.Expression)
		if err != nil {
			errs = append(errs, field.Invalid(mp.Child("uid", "expression"), m.UID.Expression, err.Error()))
		}
		cfg.UIDExpression = e
	default:
		cfg.UIDClaim = m.UID.Claim
	}
	keys := sets.New[string]()
	for i, x := range m.Extra {
		fp := mp.Child("extra").Index(i)
		errs = append(errs, domainPrefixedPath(fp.Child("key"), x.Key)...)
		if x.Key != strings.ToLower(x.Key) {
			errs = append(errs, field.Invalid(fp.Child("key"), x.Key, "must be lowercase"))
		}
		if domain, _, ok := strings.Cut(x.Key, "/"); ok && (domain == "kubernetes.io" || strings.HasSuffix(domain, ".kubernetes.io") || domain == "k8s.io" || strings.HasSuffix(domain, ".k8s.io")) {
			errs = append(errs, field.Invalid(fp.Child("key"), x.Key, "k8s.io, kubernetes.io and their subdomains are reserved for Kubernetes use"))
		}
		if keys.Has(x.Key) {
			errs = append(errs, field.Duplicate(fp.Child("key"), x.Key))
			continue
		}
		keys.Insert(x.Key)
		if x.ValueExpression == "" {
			errs = append(errs, field.Required(fp.Child("valueExpression"), ""))
			continue
		}
		e, err := jwt.CompileClaims(x.ValueExpression)
		if err != nil {
			errs = append(errs, field.Invalid(fp.Child("valueExpression"), x.ValueExpression, err.Error()))
			continue
		}
		cfg.Extra = append(cfg.Extra, jwt.ExtraMapping{Key: x.Key, Expression: e})
	}

	up := p.Child("userValidationRules")
	seenRules := sets.New[string]()
	for i, r := range a.UserValidationRules {
		fp := up.Index(i)
		if r.Expression == "" {
			errs = append(errs, field.Required(fp.Child("expression"), ""))
			continue
		}
		if seenRules.Has(r.Expression) {
			errs = append(errs, field.Duplicate(fp.Child("expression"), r.Expression))
			continue
		}
		seenRules.Insert(r.Expression)
		e, err := jwt.CompileUser(r.Expression)
		if err != nil {
			errs = append(errs, field.Invalid(fp.Child("expression"), r.Expression, err.Error()))
			continue
		}
		e.Message = r.Message
		cfg.UserRules = append(cfg.UserRules, e)
	}
	return cfg, errs
}

func prefixed(m PrefixedClaimOrExpression, fp *field.Path, required bool) (claim, prefix string, e *jwt.Expression, errs field.ErrorList) {
	switch {
	case m.Expression != "" && m.Claim != "":
		errs = append(errs, field.Invalid(fp, "", "claim and expression can't both be set"))
	case m.Expression == "" && m.Claim == "" && required:
		errs = append(errs, field.Required(fp, "claim or expression is required"))
	case m.Expression != "":
		if m.Prefix != nil {
			errs = append(errs, field.Invalid(fp.Child("prefix"), *m.Prefix, "may not be specified when expression is set"))
		}
		var err error
		if e, err = jwt.CompileClaims(m.Expression); err != nil {
			errs = append(errs, field.Invalid(fp.Child("expression"), m.Expression, err.Error()))
		}
	case m.Claim != "":
		if m.Prefix == nil {
			errs = append(errs, field.Required(fp.Child("prefix"), "prefix is required when claim is set. It can be set to an empty string to disable prefixing"))
		} else {
			prefix = *m.Prefix
		}
		claim = m.Claim
	}
	return claim, prefix, e, errs
}

func validateURL(raw string, fp *field.Path, required bool) field.ErrorList {
	if raw == "" {
		if required {
			return field.ErrorList{field.Required(fp, "")}
		}
		return nil
	}
	u, err := url.Parse(raw)
	if err != nil {
		return field.ErrorList{field.Invalid(fp, raw, err.Error())}
	}
	var errs field.ErrorList
	if u.Scheme != "https" {
		errs = append(errs, field.Invalid(fp, raw, "URL scheme must be https"))
	}
	if u.User != nil {
		errs = append(errs, field.Invalid(fp, raw, "URL must not contain a username or password"))
	}
	if u.RawQuery != "" {
		errs = append(errs, field.Invalid(fp, raw, "URL must not contain a query"))
	}
	if u.Fragment != "" {
		errs = append(errs, field.Invalid(fp, raw, "URL must not contain a fragment"))
	}
	return errs
}

// domainPrefixedPath checks that key is "<dns subdomain>/<path>".
func domainPrefixedPath(fp *field.Path, key string) field.ErrorList {
	if key == "" {
		return field.ErrorList{field.Required(fp, "")}
	}
	domain, path, ok := strings.Cut(key, "/")
	if !ok || path == "" {
		return field.ErrorList{field.Invalid(fp, key, "must be a domain-prefixed path (such as \"acme.io/foo\")")}
	}
	var errs field.ErrorList
	for _, msg := range utilvalidation.IsDNS1123Subdomain(domain) {
		errs = append(errs, field.Invalid(fp, domain, msg))
	}
	return errs
}

func parseCA(data []byte) error {
	n := 0
	for {
		var block *pem.Block
		block, data = pem.Decode(data)
		if block == nil {
			break
		}
		if _, err := x509.ParseCertificate(block.Bytes); err != nil {
			return err
		}
		n++
	}
	if n == 0 {
		return errors.New("data does not contain any valid RSA or ECDSA certificates")
	}
	return nil
}
