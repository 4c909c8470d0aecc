package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"time"

	"github.com/kapi-dev/kapi/pkg/authentication/authenticator"
	"github.com/kapi-dev/kapi/pkg/authentication/cafile"
	authnconfig "github.com/kapi-dev/kapi/pkg/authentication/config"
	"github.com/kapi-dev/kapi/pkg/authentication/group"
	"github.com/kapi-dev/kapi/pkg/authentication/request/anonymous"
	"github.com/kapi-dev/kapi/pkg/authentication/request/bearertoken"
	"github.com/kapi-dev/kapi/pkg/authentication/request/headerrequest"
	"github.com/kapi-dev/kapi/pkg/authentication/request/union"
	"github.com/kapi-dev/kapi/pkg/authentication/request/websocket"
	x509auth "github.com/kapi-dev/kapi/pkg/authentication/request/x509"
	"github.com/kapi-dev/kapi/pkg/authentication/token/cache"
	"github.com/kapi-dev/kapi/pkg/authentication/token/jwt"
	"github.com/kapi-dev/kapi/pkg/authentication/token/tokenfile"
	tokenunion "github.com/kapi-dev/kapi/pkg/authentication/token/union"
	"github.com/kapi-dev/kapi/pkg/authentication/token/webhook"
	"github.com/kapi-dev/kapi/pkg/authentication/user"
	"github.com/kapi-dev/kapi/pkg/controlplane/clusterauthenticationtrust"
	"github.com/kapi-dev/kapi/pkg/metrics"
)

// AuthenticationConfig holds the authentication settings beyond the
// client CA, the token file and anonymous (which Config has of old).
type AuthenticationConfig struct {
	RequestHeader RequestHeaderConfig
	TokenWebhook  TokenWebhookConfig
	OIDC          OIDCConfig

	// ConfigFile is --authentication-config: JWT issuers and the
	// anonymous section, reloaded every ConfigReloadInterval.
	ConfigFile           string
	ConfigReloadInterval time.Duration
	// AnonymousAuthFlagSet says --anonymous-auth was given explicitly,
	// which kube-apiserver forbids next to an anonymous section.
	AnonymousAuthFlagSet bool
}

// OIDCConfig is the legacy --oidc-* flags: one JWT issuer. It is on when
// IssuerURL and ClientID are both set, as in kube-apiserver.
type OIDCConfig struct {
	IssuerURL      string
	ClientID       string
	CAFile         string
	UsernameClaim  string // kube-apiserver's default: sub
	UsernamePrefix string
	GroupsClaim    string
	GroupsPrefix   string
	RequiredClaims map[string]string
	SigningAlgs    []string // kube-apiserver's default: RS256
}

// jwtConfig maps the legacy flags onto the JWT authenticator, with
// kube-apiserver's rule for the username prefix: none given means
// "<issuer>#" unless the claim is email, and "-" means none.
func (o OIDCConfig) jwtConfig() (jwt.Config, error) {
	prefix := o.UsernamePrefix
	if prefix == "" && o.UsernameClaim != "email" {
		prefix = o.IssuerURL + "#"
	}
	if prefix == "-" {
		prefix = ""
	}
	cfg := jwt.Config{
		IssuerURL: o.IssuerURL, Audiences: []string{o.ClientID},
		UsernameClaim: o.UsernameClaim, UsernamePrefix: prefix,
		GroupsClaim: o.GroupsClaim, GroupsPrefix: o.GroupsPrefix,
		RequiredClaims: o.RequiredClaims, SigningAlgs: o.SigningAlgs,
	}
	if o.CAFile != "" {
		b, err := os.ReadFile(o.CAFile)
		if err != nil {
			return cfg, err
		}
		cfg.CAPEM = b
	}
	return cfg, nil
}

// RequestHeaderConfig is --requestheader-*: a front proxy, known by its
// client certificate, names the user in headers.
type RequestHeaderConfig struct {
	// ClientCAFile verifies the proxy; empty turns request-header
	// authentication off.
	ClientCAFile string
	// AllowedNames are the CommonNames a proxy may have; empty allows any.
	AllowedNames       []string
	UsernameHeaders    []string
	UIDHeaders         []string
	GroupHeaders       []string
	ExtraHeadersPrefix []string
}

// TokenWebhookConfig is --authentication-token-webhook-*.
type TokenWebhookConfig struct {
	// ConfigFile is a kubeconfig naming the webhook; empty means none.
	ConfigFile string
	// CacheTTL is how long answers are remembered (kube-apiserver: 2m).
	CacheTTL time.Duration
	// Version is the TokenReview version sent (kube-apiserver: v1beta1).
	Version string
}

// authentication is the built authentication: the chain, and what the
// rest of the server needs to know of it.
type authentication struct {
	request authenticator.Request
	// clearHeaders removes the front-proxy headers after authentication;
	// nil without a front proxy.
	clearHeaders func(http.Header)
	// trust is what extension-apiserver-authentication publishes.
	trust func() clusterauthenticationtrust.Info
	// run starts the reloading of files; it stops with ctx.
	run func(ctx context.Context)
}

// caReloadInterval is how often CA files are re-read.
const caReloadInterval = time.Minute

// authenticationMetrics are the unregistered metrics of the reloads of
// --authentication-config and of the JWT authenticators (of the file and
// of the --oidc-* flags), for the server named identity.
func authenticationMetrics(identity string) authnconfig.Metrics {
	return authnconfig.Metrics{Reloads: authnconfig.NewReloadMetrics(identity), JWT: jwt.NewMetrics(identity)}
}

// buildAuthentication builds kube-apiserver's chain, in kube-apiserver's
// order (its pkg/kubeapiserver/authenticator):
//
//  1. request-header (front proxy), so that a proxy's certificate is not
//     taken for its own identity when it names a user;
//  2. x509 client certificates;
//  3. bearer tokens: one union of token authenticators, local ones first
//     (token file, then service-account and bootstrap tokens), remote
//     ones last (JWT issuers of --authentication-config or --oidc-*, then
//     the webhook), so that a token a local authenticator knows never
//     leaves the server;
//
// then system:authenticated is added to whoever they accept, and
// anonymous comes last, behind a fail-on-error union: a request whose
// credential is bad is a 401, never anonymous. In front of all that, as
// kube-apiserver's AuthorizeClientBearerToken puts it, is the loopback
// token: system:apiserver in system:authenticated and system:masters,
// outside the token cache.
//
// generatedCA is kapi's own CA, the client CA when --client-ca-file is not
// given. apiAudiences are the audiences tokens must be meant for.
//
// serviceAccountTokens are the service-account and bootstrap token
// authenticators (satokens.go), which read the audiences a TokenReview
// asks for from the request's context.
//
// The union is behind kube-apiserver's token cache: an accepted token is
// remembered for cache.SuccessTTL (10 seconds), with the audit annotations
// and warnings its authenticator gave, and concurrent requests with the
// same token share one authentication. So a token keeps working for up to
// 10 seconds after what it names is deleted, as with kube-apiserver.
// tokenCache records the cache's metrics, webhookX509 the calls to a token
// webhook whose certificate has a deprecated trait.
func buildAuthentication(o *Config, generatedCA *cafile.Bundle, loopbackToken string, serviceAccountTokens []authenticator.Token, apiAudiences []string, m authnconfig.Metrics, tokenCache *cache.Metrics, webhookX509 *metrics.WebhookX509, log *slog.Logger) (*authentication, error) {
	out := &authentication{}
	var reloaders []*cafile.File

	var requests []authenticator.Request

	var proxyCA *cafile.File
	rh := o.Authentication.RequestHeader
	if rh.ClientCAFile != "" {
		var err error
		if proxyCA, err = cafile.New(rh.ClientCAFile, log.With("component", "requestheader-client-ca")); err != nil {
			return nil, fmt.Errorf("--requestheader-client-ca-file: %w", err)
		}
		reloaders = append(reloaders, proxyCA)
		headers := headerrequest.Headers{Username: rh.UsernameHeaders, UID: rh.UIDHeaders, Group: rh.GroupHeaders, ExtraPrefixes: rh.ExtraHeadersPrefix}
		requests = append(requests, headerrequest.New(proxyCA.Pool, rh.AllowedNames, headers))
		out.clearHeaders = headers.Clear
	}

	clientCA := cafile.Static(generatedCA)
	if o.ClientCAFile != "" {
		var err error
		if clientCA, err = cafile.New(o.ClientCAFile, log.With("component", "client-ca")); err != nil {
			return nil, fmt.Errorf("--client-ca-file: %w", err)
		}
		reloaders = append(reloaders, clientCA)
	}
	requests = append(requests, x509auth.New(clientCA.Pool))

	// The token authenticators, in kube-apiserver's order.
	var tokens []authenticator.Token
	if o.TokenAuthFile != "" {
		tf, err := tokenfile.NewCSV(o.TokenAuthFile, log.With("component", "token-file"))
		if err != nil {
			return nil, fmt.Errorf("--token-auth-file: %w", err)
		}
		tokens = append(tokens, tf)
	}
	// Service-account tokens, then bootstrap tokens: local
	// authenticators before the remote ones below.
	tokens = append(tokens, serviceAccountTokens...)
	var structured *authnconfig.Dynamic
	if file := o.Authentication.ConfigFile; file != "" {
		if o.Authentication.OIDC.IssuerURL != "" {
			return nil, errors.New("authentication-config file and oidc-* flags are mutually exclusive")
		}
		var err error
		if structured, err = authnconfig.NewDynamic(file, o.AnonymousAuth, o.Authentication.AnonymousAuthFlagSet, log.With("component", "authentication-config"), m); err != nil {
			return nil, err
		}
		tokens = append(tokens, structured)
	}
	if oidc := o.Authentication.OIDC; oidc.IssuerURL != "" && oidc.ClientID != "" {
		cfg, err := oidc.jwtConfig()
		if err != nil {
			return nil, fmt.Errorf("--oidc-ca-file: %w", err)
		}
		cfg.Metrics = m.JWT
		a, err := jwt.New(cfg)
		if err != nil {
			return nil, err
		}
		tokens = append(tokens, a)
	}
	if wh := o.Authentication.TokenWebhook; wh.ConfigFile != "" {
		a, err := webhook.NewFromKubeconfig(wh.ConfigFile, wh.Version, apiAudiences, webhook.DefaultBackoff, webhookX509, log.With("component", "token-webhook"))
		if err != nil {
			return nil, fmt.Errorf("--authentication-token-webhook-config-file: %w", err)
		}
		// The webhook's own cache: its refusals too, not its errors.
		tokens = append(tokens, cache.New(a, cache.Options{
			SuccessTTL: wh.CacheTTL, FailureTTL: wh.CacheTTL,
			DefaultAudiences: apiAudiences, Metrics: tokenCache, Logger: log,
		}))
	}
	// The same union, behind the cache of successes, reads
	// "Authorization: Bearer" and, for WebSockets, the token subprotocol.
	tokenAuth := cache.New(tokenunion.New(tokens...), cache.Options{
		SuccessTTL: cache.SuccessTTL, CacheErrors: true,
		DefaultAudiences: apiAudiences, Metrics: tokenCache, Logger: log,
	})
	requests = append(requests, bearertoken.New(tokenAuth), websocket.New(tokenAuth))

	chain := authenticator.Request(group.NewAuthenticatedGroupAdder(union.New(requests...)))
	switch {
	case structured != nil:
		// The file's anonymous section (or --anonymous-auth without
		// one) may change with the file.
		chain = union.NewFailOnError(chain, structured.Anonymous())
	case o.AnonymousAuth:
		chain = union.NewFailOnError(chain, anonymous.New())
	}
	loopback := bearertoken.New(tokenfile.New(map[string]*user.DefaultInfo{
		loopbackToken: {Name: user.APIServerUser, UID: "kapi-loopback", Groups: []string{user.AllAuthenticated, user.SystemPrivilegedGrp}},
	}))
	out.request = union.New(loopback, chain)

	out.trust = func() clusterauthenticationtrust.Info {
		info := clusterauthenticationtrust.Info{ClientCA: clientCA.Current().PEM}
		if proxyCA != nil {
			info.RequestHeaderCA = proxyCA.Current().PEM
			info.RequestHeaderUsername = rh.UsernameHeaders
			info.RequestHeaderUID = rh.UIDHeaders
			info.RequestHeaderGroup = rh.GroupHeaders
			info.RequestHeaderExtraPrefix = rh.ExtraHeadersPrefix
			info.RequestHeaderAllowed = rh.AllowedNames
		}
		return info
	}
	out.run = func(ctx context.Context) {
		for _, f := range reloaders {
			go f.Run(ctx, caReloadInterval)
		}
		if structured != nil {
			interval := o.Authentication.ConfigReloadInterval
			if interval <= 0 {
				interval = time.Minute
			}
			go structured.Run(ctx, interval)
		}
	}
	return out, nil
}
