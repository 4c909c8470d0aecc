// Package authorization builds kapi's authorizer from the authorization
// flags: --authorization-mode with the flags of its modes, or the
// structured --authorization-config file.
//
// The packages below it hold the authorizers themselves; this one decides
// how they are chained, and reloads the chain when the configuration
// file changes.
package authorization

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"

	"github.com/kapi-dev/kapi/pkg/authentication/user"
	"github.com/kapi-dev/kapi/pkg/authorization/abac"
	"github.com/kapi-dev/kapi/pkg/authorization/anonymousguard"
	"github.com/kapi-dev/kapi/pkg/authorization/authorizationconfig"
	"github.com/kapi-dev/kapi/pkg/authorization/authorizer"
	"github.com/kapi-dev/kapi/pkg/authorization/authorizerfactory"
	"github.com/kapi-dev/kapi/pkg/authorization/path"
	"github.com/kapi-dev/kapi/pkg/authorization/privileged"
	"github.com/kapi-dev/kapi/pkg/authorization/union"
	"github.com/kapi-dev/kapi/pkg/authorization/webhook"
	"github.com/kapi-dev/kapi/pkg/metrics"
)

// The values --authorization-mode accepts, as spelled by kube-apiserver.
const (
	ModeAlwaysAllow = "AlwaysAllow"
	ModeAlwaysDeny  = "AlwaysDeny"
	ModeABAC        = "ABAC"
	ModeWebhook     = "Webhook"
	ModeRBAC        = "RBAC"
	ModeNode        = "Node"
)

// ModeChoices returns every mode kube-apiserver accepts, in its order, for
// the flag's help text.
func ModeChoices() []string {
	return []string{ModeAlwaysAllow, ModeAlwaysDeny, ModeABAC, ModeWebhook, ModeRBAC, ModeNode}
}

// legacyWebhookName is the name kube-apiserver gives the webhook of
// --authorization-webhook-config-file; other modes are named after
// themselves in lower case.
const legacyWebhookName = "default"

// DefaultConfigReloadInterval is how often kube-apiserver checks
// --authorization-config for changes.
const DefaultConfigReloadInterval = time.Minute

// Built are the authorizers of the modes that need more than their name
// to be made: RBAC and Node read the API through informers, which the
// caller owns, so the caller builds them and hands them in. A nil field
// means the mode cannot be used. An authorizer that also implements
// authorizer.RuleResolver contributes to SelfSubjectRulesReview.
type Built struct {
	RBAC authorizer.Authorizer
	Node authorizer.Authorizer
}

// Config is what the authorization flags say.
type Config struct {
	// Modes is --authorization-mode, in order.
	Modes []string
	// PolicyFile is --authorization-policy-file, the ABAC policies.
	PolicyFile string
	// WebhookConfigFile is --authorization-webhook-config-file, a
	// kubeconfig saying where the webhook of mode Webhook is.
	WebhookConfigFile string
	// WebhookVersion is --authorization-webhook-version: v1beta1
	// (kube-apiserver's default) or v1.
	WebhookVersion string
	// WebhookCacheAuthorizedTTL and WebhookCacheUnauthorizedTTL are the
	// --authorization-webhook-cache-*-ttl flags; zero does not cache.
	WebhookCacheAuthorizedTTL   time.Duration
	WebhookCacheUnauthorizedTTL time.Duration
	// ConfigFile is --authorization-config. When set, it replaces Modes
	// and the webhook flags (the caller checks they were not given).
	ConfigFile string
	// ConfigReloadInterval is how often ConfigFile is checked for
	// changes; zero means DefaultConfigReloadInterval.
	ConfigReloadInterval time.Duration
	// WebhookRetryBackoff is the backoff of webhook calls; nil means
	// kube-apiserver's (webhook.DefaultRetryBackoff).
	WebhookRetryBackoff *wait.Backoff
	// Logger receives reload events and webhook failures; nil discards.
	Logger *slog.Logger
	// Metrics counts decisions, webhook calls and reloads; nil counts
	// nothing.
	Metrics *Metrics
	// WebhookX509 counts the calls to webhooks whose serving certificate
	// has a deprecated trait; nil counts nothing.
	WebhookX509 *metrics.WebhookX509
}

// DefaultConfig returns kube-apiserver's defaults for the flags other
// than the modes.
func DefaultConfig() Config {
	return Config{
		WebhookVersion:              "v1beta1",
		WebhookCacheAuthorizedTTL:   webhook.DefaultAuthorizedTTL,
		WebhookCacheUnauthorizedTTL: webhook.DefaultUnauthorizedTTL,
	}
}

// Authorization is kapi's authorizer and rule resolver: the chain the
// configuration describes, swapped whole when --authorization-config
// changes, so a request sees either the old chain or the new one.
type Authorization struct {
	cfg     Config
	built   Built
	abac    *abac.Authorizer
	current atomic.Pointer[chain]
	logger  *slog.Logger

	// What the configuration file had when it was last read, to tell a
	// change, and the non-webhook types a reload must keep.
	mu       sync.Mutex
	lastData []byte
	required []string
}

type chain struct {
	authorizer authorizer.Authorizer
	resolver   authorizer.RuleResolver
}

var (
	_ authorizer.Authorizer   = (*Authorization)(nil)
	_ authorizer.RuleResolver = (*Authorization)(nil)
)

// Authorize asks the current chain.
func (a *Authorization) Authorize(ctx context.Context, attrs authorizer.Attributes) (authorizer.Decision, string, error) {
	return a.current.Load().authorizer.Authorize(ctx, attrs)
}

// RulesFor asks the current chain's rule resolvers.
func (a *Authorization) RulesFor(ctx context.Context, u user.Info, namespace string) ([]authorizationv1.ResourceRule, []authorizationv1.NonResourceRule, bool, error) {
	return a.current.Load().resolver.RulesFor(ctx, u, namespace)
}

// New returns the authorizer of the ordered --authorization-mode values
// with kube-apiserver's defaults for the other flags.
func New(modes []string, built Built) (authorizer.Authorizer, error) {
	cfg := DefaultConfig()
	cfg.Modes = modes
	a, err := Build(cfg, built)
	if err != nil {
		return nil, err
	}
	return a, nil
}

// Build returns the authorization cfg describes. Every problem with the
// flags is reported at once, in kube-apiserver's words where it has
// them. With a configuration file, Run reloads it.
//
// The chain, asked in order until one authorizer allows or denies:
//
//  1. privileged: members of system:masters may do anything. As in
//     kube-apiserver, this comes before every mode, so an administrator
//     cannot be locked out by a mode's configuration.
//  2. path: anyone may reach anonymousguard.PublicPaths (/healthz, /livez,
//     /readyz, /version), so that health checks work without credentials
//     whatever the modes are.
//  3. the modes (or the file's authorizers), in the order given, with the
//     anonymous guard placed immediately before AlwaysAllow.
//
// Why there and nowhere else: the guard exists because AlwaysAllow cannot
// tell an anonymous request from an authenticated one. A mode before
// AlwaysAllow makes its own decisions, so it still gets to allow anonymous
// requests it was configured to allow (an RBAC binding to
// system:unauthenticated, a webhook's verdict); a mode after AlwaysAllow is
// never reached. With no AlwaysAllow in the list there is nothing to guard.
// The guard is placed whether or not --anonymous-auth is on, because an
// authenticated user can still act as system:anonymous by impersonation,
// and the rule is about the identity, not about how it was obtained.
func Build(cfg Config, built Built) (*Authorization, error) {
	a := &Authorization{cfg: cfg, built: built, logger: cfg.Logger}
	if a.logger == nil {
		a.logger = slog.New(slog.DiscardHandler)
	}
	entries, err := a.entries()
	if err != nil {
		return nil, err
	}
	c, err := a.newChain(entries)
	if err != nil {
		return nil, err
	}
	a.current.Store(c)
	return a, nil
}

// entry is one authorizer of the chain, from a mode or from the file.
type entry struct {
	typ, name string
	webhook   *authorizationconfig.WebhookConfiguration
	matcher   *authorizationconfig.Matcher
}

// entries reads the chain's description from the flags or the file.
func (a *Authorization) entries() ([]entry, error) {
	if a.cfg.ConfigFile != "" {
		c, matchers, data, err := authorizationconfig.LoadAndValidate(a.cfg.ConfigFile, nil)
		if err != nil {
			return nil, err
		}
		a.lastData = data
		a.cfg.Metrics.inUse(data)
		a.required = authorizationconfig.NonWebhookTypes(c)
		if slices.Contains(a.required, ModeABAC) {
			if a.abac, err = abac.NewFromFile(a.cfg.PolicyFile); err != nil {
				return nil, err
			}
		}
		return fileEntries(c, matchers), nil
	}
	if err := validateModes(a.cfg, a.built); err != nil {
		return nil, err
	}
	var entries []entry
	for _, mode := range a.cfg.Modes {
		switch mode {
		case ModeABAC:
			var err error
			if a.abac, err = abac.NewFromFile(a.cfg.PolicyFile); err != nil {
				return nil, err
			}
		case ModeWebhook:
			file := a.cfg.WebhookConfigFile
			entries = append(entries, entry{typ: mode, name: legacyWebhookName, webhook: &authorizationconfig.WebhookConfiguration{
				SubjectAccessReviewVersion: a.cfg.WebhookVersion,
				Timeout:                    durationOf(webhook.DefaultTimeout),
				AuthorizedTTL:              durationOf(a.cfg.WebhookCacheAuthorizedTTL),
				UnauthorizedTTL:            durationOf(a.cfg.WebhookCacheUnauthorizedTTL),
				CacheAuthorizedRequests:    ptrTo(a.cfg.WebhookCacheAuthorizedTTL != 0),
				CacheUnauthorizedRequests:  ptrTo(a.cfg.WebhookCacheUnauthorizedTTL != 0),
				FailurePolicy:              authorizationconfig.FailurePolicyNoOpinion,
				ConnectionInfo:             authorizationconfig.WebhookConnectionInfo{Type: authorizationconfig.ConnectionKubeConfigFile, KubeConfigFile: &file},
			}})
			continue
		}
		entries = append(entries, entry{typ: mode, name: strings.ToLower(mode)})
	}
	return entries, nil
}

func fileEntries(c *authorizationconfig.AuthorizationConfiguration, matchers map[int]*authorizationconfig.Matcher) []entry {
	entries := make([]entry, len(c.Authorizers))
	for i, az := range c.Authorizers {
		entries[i] = entry{typ: az.Type, name: az.Name, webhook: az.Webhook, matcher: matchers[i]}
	}
	return entries
}

// newChain builds the chain of entries.
func (a *Authorization) newChain(entries []entry) (*chain, error) {
	public, err := path.New(anonymousguard.PublicPaths())
	if err != nil {
		return nil, err // PublicPaths is fixed and valid: only a bug gets here
	}
	authorizers := []authorizer.Authorizer{privileged.New(user.SystemPrivilegedGrp), public}
	var resolvers union.RuleResolvers
	for _, e := range entries {
		az, err := a.authorizerOf(e)
		if err != nil {
			return nil, err
		}
		if e.typ == ModeAlwaysAllow {
			authorizers = append(authorizers, anonymousguard.New())
		}
		if r, ok := az.(authorizer.RuleResolver); ok {
			resolvers = append(resolvers, r)
		}
		if a.cfg.Metrics != nil {
			az = counted{Authorizer: az, typ: e.typ, name: e.name, metrics: a.cfg.Metrics}
		}
		authorizers = append(authorizers, union.Named{Name: e.name, Authorizer: az})
	}
	return &chain{authorizer: union.New(authorizers...), resolver: resolvers}, nil
}

func (a *Authorization) authorizerOf(e entry) (authorizer.Authorizer, error) {
	notEnabled := func() error {
		return fmt.Errorf("authorizer type %s is not allowed if it was not enabled at initial server startup", e.typ)
	}
	switch e.typ {
	case ModeAlwaysAllow:
		return authorizerfactory.NewAlwaysAllowAuthorizer(), nil
	case ModeAlwaysDeny:
		return authorizerfactory.NewAlwaysDenyAuthorizer(), nil
	case ModeABAC:
		if a.abac == nil {
			return nil, notEnabled()
		}
		return a.abac, nil
	case ModeRBAC:
		if a.built.RBAC == nil {
			return nil, notEnabled()
		}
		return a.built.RBAC, nil
	case ModeNode:
		if a.built.Node == nil {
			return nil, notEnabled()
		}
		return a.built.Node, nil
	case ModeWebhook:
		return a.newWebhook(e)
	}
	return nil, fmt.Errorf("unknown authorization mode %s specified", e.typ)
}

func (a *Authorization) newWebhook(e entry) (authorizer.Authorizer, error) {
	w := e.webhook
	var restConfig *rest.Config
	var err error
	switch w.ConnectionInfo.Type {
	case authorizationconfig.ConnectionInClusterConfig:
		restConfig, err = rest.InClusterConfig()
	default:
		restConfig, err = webhook.LoadKubeconfig(*w.ConnectionInfo.KubeConfigFile)
	}
	if err != nil {
		return nil, err
	}
	restConfig.Wrap(a.cfg.WebhookX509.WrapTransport)
	decisionOnError := authorizer.DecisionNoOpinion
	if w.FailurePolicy == authorizationconfig.FailurePolicyDeny {
		decisionOnError = authorizer.DecisionDeny
	}
	cfg := webhook.Config{
		Name:            e.name,
		REST:            restConfig,
		Version:         w.SubjectAccessReviewVersion,
		AuthorizedTTL:   w.AuthorizedTTL.Duration,
		UnauthorizedTTL: w.UnauthorizedTTL.Duration,
		Timeout:         w.Timeout.Duration,
		DecisionOnError: decisionOnError,
	}
	if w.CacheAuthorizedRequests != nil && !*w.CacheAuthorizedRequests {
		cfg.AuthorizedTTL = 0
	}
	if w.CacheUnauthorizedRequests != nil && !*w.CacheUnauthorizedRequests {
		cfg.UnauthorizedTTL = 0
	}
	if e.matcher != nil {
		cfg.Matcher = e.matcher
	}
	if a.cfg.WebhookRetryBackoff != nil {
		cfg.RetryBackoff = *a.cfg.WebhookRetryBackoff
	}
	if a.cfg.Metrics != nil {
		cfg.Observer = a.cfg.Metrics
	}
	return webhook.New(cfg)
}

// Run reloads --authorization-config whenever its content changes, until
// ctx is done; without a configuration file it returns at once. A file
// that no longer loads, validates or builds is logged and ignored: the
// chain in use stays, as in kube-apiserver, so a typo cannot open or
// close the cluster.
func (a *Authorization) Run(ctx context.Context) {
	if a.cfg.ConfigFile == "" {
		return
	}
	interval := a.cfg.ConfigReloadInterval
	if interval <= 0 {
		interval = DefaultConfigReloadInterval
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			a.reload()
		}
	}
}

// reload checks the file once.
func (a *Authorization) reload() {
	a.mu.Lock()
	defer a.mu.Unlock()
	data, err := os.ReadFile(a.cfg.ConfigFile)
	if err != nil {
		a.cfg.Metrics.reloadFailed()
		a.logger.Error("reloading authorization config", "err", err)
		return
	}
	if bytes.Equal(data, a.lastData) {
		return
	}
	a.lastData = data
	c, matchers, _, err := authorizationconfig.LoadAndValidate(a.cfg.ConfigFile, a.required)
	if err != nil {
		a.cfg.Metrics.reloadFailed()
		a.logger.Error("reloading authorization config", "err", err)
		return
	}
	next, err := a.newChain(fileEntries(c, matchers))
	if err != nil {
		a.cfg.Metrics.reloadFailed()
		a.logger.Error("reloading authorization config", "err", err)
		return
	}
	a.current.Store(next)
	a.cfg.Metrics.reloaded(data)
	a.logger.Info("reloaded authorization config", "file", a.cfg.ConfigFile)
}

// validateModes checks the legacy flags as kube-apiserver does, and that
// kapi can serve the modes asked for.
func validateModes(cfg Config, built Built) error {
	var errs []error
	modes := cfg.Modes
	if len(modes) == 0 {
		errs = append(errs, errors.New("at least one authorization-mode must be passed"))
	}
	for _, mode := range modes {
		switch {
		case !slices.Contains(ModeChoices(), mode):
			errs = append(errs, fmt.Errorf("authorization-mode %q is not a valid mode", mode))
		case mode == ModeABAC && cfg.PolicyFile == "":
			errs = append(errs, errors.New("authorization-mode ABAC's authorization policy file not passed"))
		case mode == ModeWebhook && cfg.WebhookConfigFile == "":
			errs = append(errs, errors.New("authorization-mode Webhook's authorization config file not passed"))
		case mode == ModeRBAC && built.RBAC == nil, mode == ModeNode && built.Node == nil:
			errs = append(errs, fmt.Errorf("authorization-mode %q is not implemented by kapi yet; implemented modes are %s",
				mode, strings.Join(implementedModes(built), ", ")))
		}
	}
	if cfg.PolicyFile != "" && !slices.Contains(modes, ModeABAC) {
		errs = append(errs, errors.New("cannot specify --authorization-policy-file without mode ABAC"))
	}
	if cfg.WebhookConfigFile != "" && !slices.Contains(modes, ModeWebhook) {
		errs = append(errs, errors.New("cannot specify --authorization-webhook-config-file without mode Webhook"))
	}
	if hasDuplicates(modes) {
		errs = append(errs, fmt.Errorf("authorization-mode %q has mode specified more than once", modes))
	}
	return utilerrors.NewAggregate(errs)
}

// implementedModes lists the modes kapi can serve with built, in
// ModeChoices order.
func implementedModes(built Built) []string {
	var out []string
	for _, m := range ModeChoices() {
		if (m != ModeRBAC || built.RBAC != nil) && (m != ModeNode || built.Node != nil) {
			out = append(out, m)
		}
	}
	return out
}

func hasDuplicates(modes []string) bool {
	seen := make(map[string]bool, len(modes))
	for _, m := range modes {
		if seen[m] {
			return true
		}
		seen[m] = true
	}
	return false
}
