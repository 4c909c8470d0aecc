// Package serviceaccount authenticates service-account tokens, bound and
// legacy, as kube-apiserver does: a token whose issuer is one of
// --service-account-issuer (or "kubernetes/serviceaccount" for legacy
// tokens) must be signed by one of the --service-account-key-file keys,
// be in its validity window, name one of the accepted audiences and, with
// --service-account-lookup, name a service account (and bound object)
// that still exists with the same uid. Tokens of other issuers are not
// this authenticator's: it answers "not mine" and the union asks the next.
//
// The objects are read through Getter, which pkg/app backs with the
// loopback informers' listers and a live read when the cache has not seen
// an object yet; this package knows nothing of storage.
package serviceaccount

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kapi-dev/kapi/pkg/authentication/authenticator"
	"github.com/kapi-dev/kapi/pkg/authentication/user"
	"github.com/kapi-dev/kapi/pkg/endpoints/auditcontext"
	"github.com/kapi-dev/kapi/pkg/endpoints/warning"
	sa "github.com/kapi-dev/kapi/pkg/serviceaccount"
)

// Keys of the extra a bound token's user carries.
const (
	ExtraPodName  = "authentication.kubernetes.io/pod-name"
	ExtraPodUID   = "authentication.kubernetes.io/pod-uid"
	ExtraNodeName = "authentication.kubernetes.io/node-name"
	ExtraNodeUID  = "authentication.kubernetes.io/node-uid"
)

// LegacyTokenLastUsedLabel is the label kube-apiserver keeps on the Secret
// of a legacy token: the date (UTC, 2006-01-02) it was last used.
const LegacyTokenLastUsedLabel = "kubernetes.io/legacy-token-last-used"

// LegacyTokenInvalidSinceLabel marks a legacy token's Secret as
// invalidated (by the legacy token cleaner); such a token is refused.
const LegacyTokenInvalidSinceLabel = "kubernetes.io/legacy-token-invalid-since"

// Getter reads the objects a token names. A missing object is a NotFound
// API error.
type Getter interface {
	GetServiceAccount(namespace, name string) (*corev1.ServiceAccount, error)
	GetPod(namespace, name string) (*corev1.Pod, error)
	GetSecret(namespace, name string) (*corev1.Secret, error)
	GetNode(name string) (*corev1.Node, error)
}

// LegacyTokenTracker records that a legacy token's Secret was used today.
type LegacyTokenTracker interface {
	MarkLegacyTokenUsed(namespace, secretName, date string) error
}

// Config is the authenticator's configuration.
type Config struct {
	// Issuers are --service-account-issuer: bound tokens of any of them
	// are accepted.
	Issuers []string
	// Verifier holds the --service-account-key-file keys.
	Verifier *sa.Verifier
	// APIAudiences are --api-audiences: a token must name one of them
	// (unless a TokenReview asks for other audiences).
	APIAudiences []string
	// Lookup is --service-account-lookup: the objects must exist. Bound
	// tokens are always checked against what they are bound to; Lookup
	// also makes legacy tokens need their Secret.
	Lookup bool
	// Legacy accepts tokens of issuer "kubernetes/serviceaccount".
	Legacy bool
	Getter Getter
	// Tracker, when set, receives legacy token use.
	Tracker LegacyTokenTracker
	// Now is the clock; nil is time.Now.
	Now    func() time.Time
	Logger *slog.Logger
	// Metrics counts the tokens used by kind; nil counts nothing.
	Metrics *Metrics
}

// Authenticator authenticates service-account tokens.
type Authenticator struct {
	c        Config
	issuers  map[string]bool
	verified *verifiedCache
}

// New returns the authenticator of c.
func New(c Config) *Authenticator {
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	a := &Authenticator{c: c, issuers: map[string]bool{}, verified: newVerifiedCache(verifiedCacheSize, verifiedCacheTTL)}
	for _, iss := range c.Issuers {
		a.issuers[iss] = true
	}
	return a
}

var _ authenticator.Token = &Authenticator{}

// AuthenticateToken implements authenticator.Token: the token must be
// meant for one of the audiences of ctx (authenticator.WithAudiences: a
// TokenReview's), or of the API server's. The kind of token used is
// recorded in ctx's audit annotations and, for an auto-generated legacy
// token, warned about.
func (a *Authenticator) AuthenticateToken(ctx context.Context, token string) (*authenticator.Response, bool, error) {
	auds, ok := authenticator.AudiencesFrom(ctx)
	if !ok {
		auds = a.c.APIAudiences
	}
	return a.authenticate(ctx, token, auds)
}

// errors the client never sees in detail (a 401 says "Unauthorized"), but
// the log and TokenReview's status.error do.
var (
	errExpired     = errors.New("service account token has expired")
	errNotYetValid = errors.New("service account token is not valid yet")
	errIssuedLater = errors.New("service account token is issued in the future")
	errInvalidated = errors.New("service account token has been invalidated")
	// errLegacyInvalidated is the same for a legacy token, whose
	// validator words it differently.
	errLegacyInvalidated = errors.New("Token has been invalidated")
)

// leeway is the clock skew tolerated on exp, nbf and iat, go-jose's
// default that kube-apiserver uses.
const leeway = time.Minute

// authenticate authenticates token for audiences in a request's context,
// to which it adds kube-apiserver's audit annotations and warnings about
// the kind of token used.
func (a *Authenticator) authenticate(ctx context.Context, token string, audiences []string) (*authenticator.Response, bool, error) {
	if !sa.LooksLikeJWT(token) {
		return nil, false, nil
	}
	key := sha256.Sum256([]byte(token))
	c, cached := a.verified.get(key, a.c.Now())
	if !cached {
		t, err := sa.Parse(token)
		if err != nil {
			return nil, false, nil
		}
		c = &t.Claims
		if !a.mine(c) {
			return nil, false, nil
		}
		if err := a.c.Verifier.Verify(t); err != nil {
			return nil, false, err
		}
		a.verified.put(key, c, a.c.Now())
	}
	if !a.mine(c) {
		// Legacy tokens may have been switched off since.
		return nil, false, nil
	}
	if c.IsLegacy() {
		// A token without an audience is good for the API server's.
		auditcontext.AddAnnotation(ctx, "authentication.k8s.io/legacy-token", c.Subject)
		a.c.Metrics.usedLegacy()
		return a.legacy(ctx, token, c)
	}
	return a.bound(ctx, c, audiences)
}

// mine tells whether a token's issuer is one this authenticator accepts.
func (a *Authenticator) mine(c *sa.Claims) bool {
	if c.IsLegacy() {
		return a.c.Legacy
	}
	return a.issuers[c.Issuer]
}

func (a *Authenticator) bound(ctx context.Context, c *sa.Claims, audiences []string) (*authenticator.Response, bool, error) {
	now := a.c.Now()
	switch {
	case c.Expiry != 0 && now.Add(-leeway).After(time.Unix(c.Expiry, 0)):
		return nil, false, errExpired
	case c.NotBefore != 0 && now.Add(leeway).Before(time.Unix(c.NotBefore, 0)):
		return nil, false, errNotYetValid
	case c.IssuedAt != 0 && now.Add(leeway).Before(time.Unix(c.IssuedAt, 0)):
		return nil, false, errIssuedLater
	}
	var matched []string
	for _, aud := range audiences {
		if slices.Contains(c.Audience, aud) {
			matched = append(matched, aud)
		}
	}
	if len(matched) == 0 {
		return nil, false, fmt.Errorf("token audiences %q is invalid for the target audiences %q", []string(c.Audience), audiences)
	}
	k := c.Kubernetes
	if k == nil || k.Namespace == "" || k.ServiceAccount == nil || k.ServiceAccount.Name == "" || k.ServiceAccount.UID == "" {
		return nil, false, errors.New("service account token claims are incomplete")
	}
	if c.Subject != sa.UserName(k.Namespace, k.ServiceAccount.Name) {
		return nil, false, errors.New("service account token subject does not match its claims")
	}

	acct, err := a.c.Getter.GetServiceAccount(k.Namespace, k.ServiceAccount.Name)
	if err != nil {
		return nil, false, err
	}
	if acct.DeletionTimestamp != nil && acct.DeletionTimestamp.Time.Before(now.Add(-leeway)) {
		return nil, false, errInvalidated
	}
	if string(acct.UID) != k.ServiceAccount.UID {
		return nil, false, fmt.Errorf("service account UID (%s) does not match claim (%s)", acct.UID, k.ServiceAccount.UID)
	}

	extra := map[string][]string{}
	if c.ID != "" {
		extra[user.CredentialIDKey] = []string{"JTI=" + c.ID}
	}
	switch {
	case k.Pod != nil:
		pod, err := a.c.Getter.GetPod(k.Namespace, k.Pod.Name)
		if err != nil {
			return nil, false, lookupError(err)
		}
		if string(pod.UID) != k.Pod.UID {
			return nil, false, fmt.Errorf("pod UID (%s) does not match claim (%s)", pod.UID, k.Pod.UID)
		}
		if pod.DeletionTimestamp != nil && pod.DeletionTimestamp.Time.Before(now.Add(-leeway)) {
			return nil, false, errInvalidated
		}
		extra[ExtraPodName] = []string{k.Pod.Name}
		extra[ExtraPodUID] = []string{k.Pod.UID}
	case k.Secret != nil:
		secret, err := a.c.Getter.GetSecret(k.Namespace, k.Secret.Name)
		if err != nil {
			return nil, false, lookupError(err)
		}
		if string(secret.UID) != k.Secret.UID {
			return nil, false, fmt.Errorf("secret UID (%s) does not match claim (%s)", secret.UID, k.Secret.UID)
		}
		if secret.DeletionTimestamp != nil && secret.DeletionTimestamp.Time.Before(now.Add(-leeway)) {
			return nil, false, errInvalidated
		}
	case k.Node != nil:
		// A token bound to a node; a pod-bound token's node claim only
		// tells where the pod runs and is not checked.
		node, err := a.c.Getter.GetNode(k.Node.Name)
		if err != nil {
			return nil, false, lookupError(err)
		}
		if string(node.UID) != k.Node.UID {
			return nil, false, fmt.Errorf("node UID (%s) does not match claim (%s)", node.UID, k.Node.UID)
		}
		if node.DeletionTimestamp != nil && node.DeletionTimestamp.Time.Before(now.Add(-leeway)) {
			return nil, false, errInvalidated
		}
	}
	if k.Node != nil {
		extra[ExtraNodeName] = []string{k.Node.Name}
		if k.Node.UID != "" {
			extra[ExtraNodeUID] = []string{k.Node.UID}
		}
	}
	if k.WarnAfter != 0 {
		// An extended token (a kubelet's) used past the lifetime it was
		// asked with: its holder does not refresh it.
		warnAfter := time.Unix(k.WarnAfter, 0)
		stale := now.After(warnAfter)
		if stale {
			auditcontext.AddAnnotation(ctx, "authentication.k8s.io/stale-token",
				fmt.Sprintf("subject: %s, seconds after warning threshold: %d", c.Subject, now.Unix()-warnAfter.Unix()))
		}
		a.c.Metrics.usedExtended(stale)
	}
	if len(extra) == 0 {
		extra = nil
	}
	return &authenticator.Response{
		User: &user.DefaultInfo{
			Name:   c.Subject,
			UID:    k.ServiceAccount.UID,
			Groups: sa.Groups(k.Namespace),
			Extra:  extra,
		},
		Audiences: matched,
	}, true, nil
}

// legacy authenticates a token of a service-account-token Secret. With
// lookup, the Secret must still hold this very token and the account must
// exist with the claimed uid; the Secret's last-used label is brought up
// to date at most once a day.
func (a *Authenticator) legacy(ctx context.Context, token string, c *sa.Claims) (*authenticator.Response, bool, error) {
	ns, name, uid, secretName := c.LegacyNamespace, c.LegacyServiceAccountName, c.LegacyServiceAccountUID, c.LegacySecretName
	if ns == "" || name == "" || uid == "" || secretName == "" {
		return nil, false, errors.New("service account token claims are incomplete")
	}
	if c.Subject != sa.UserName(ns, name) {
		return nil, false, errors.New("service account token subject does not match its claims")
	}
	if a.c.Lookup {
		// The errors are kube-apiserver's words: TokenReview shows them.
		secret, err := a.c.Getter.GetSecret(ns, secretName)
		if err != nil || secret.DeletionTimestamp != nil {
			return nil, false, errLegacyInvalidated
		}
		if subtle.ConstantTimeCompare(secret.Data[corev1.ServiceAccountTokenKey], []byte(token)) != 1 {
			return nil, false, errors.New("Token does not match server's copy")
		}
		acct, err := a.c.Getter.GetServiceAccount(ns, name)
		if err != nil {
			return nil, false, err
		}
		if acct.DeletionTimestamp != nil {
			return nil, false, fmt.Errorf("ServiceAccount %s/%s has been deleted", ns, name)
		}
		if string(acct.UID) != uid {
			return nil, false, fmt.Errorf("ServiceAccount UID (%s) does not match claim (%s)", acct.UID, uid)
		}
		// The legacy token cleaner marks unused auto-generated tokens
		// invalid; their use is counted and recorded, and refused.
		if secret.Labels[LegacyTokenInvalidSinceLabel] != "" {
			auditcontext.AddAnnotation(ctx, "authentication.k8s.io/legacy-token-invalidated", secret.Name+"/"+secret.Namespace)
			a.c.Metrics.usedLegacySecret(invalidatedSecret)
			a.trackLegacyUse(secret)
			return nil, false, fmt.Errorf("the token in secret %s/%s for service account %s/%s has been marked invalid. "+
				"Use tokens from the TokenRequest API or manually created secret-based tokens, or remove the '%s' label from the secret to temporarily allow use of this token",
				ns, secretName, ns, name, LegacyTokenInvalidSinceLabel)
		}
		if slices.ContainsFunc(acct.Secrets, func(ref corev1.ObjectReference) bool { return ref.Name == secret.Name }) {
			// Listed by the account: made by the token controller.
			warning.AddWarning(ctx, "Use tokens from the TokenRequest API or manually created secret-based tokens instead of auto-generated secret-based tokens.")
			auditcontext.AddAnnotation(ctx, "authentication.k8s.io/legacy-token-autogenerated-secret", secret.Name)
			a.c.Metrics.usedLegacySecret(autoSecret)
		} else {
			auditcontext.AddAnnotation(ctx, "authentication.k8s.io/legacy-token-manual-secret", secret.Name)
			a.c.Metrics.usedLegacySecret(manualSecret)
		}
		a.trackLegacyUse(secret)
	}
	return &authenticator.Response{
		User: &user.DefaultInfo{Name: c.Subject, UID: uid, Groups: sa.Groups(ns)},
		// A legacy token has no audience: it is good for the API server's.
		Audiences: a.c.APIAudiences,
	}, true, nil
}

// trackLegacyUse brings the last-used label of a legacy token's Secret
// up to date, at most once a day. A label of tomorrow's date (a server
// whose clock is ahead wrote it) is left alone, as kube-apiserver does.
func (a *Authenticator) trackLegacyUse(secret *corev1.Secret) {
	if a.c.Tracker == nil {
		return
	}
	now := a.c.Now().UTC()
	today, tomorrow := now.Format(time.DateOnly), now.AddDate(0, 0, 1).Format(time.DateOnly)
	if last := secret.Labels[LegacyTokenLastUsedLabel]; last == today || last == tomorrow {
		return
	}
	if err := a.c.Tracker.MarkLegacyTokenUsed(secret.Namespace, secret.Name, today); err != nil {
		a.c.Logger.Warn("Could not record the use of a legacy service account token", "secret", secret.Namespace+"/"+secret.Name, "err", err)
	}
}

// lookupError is what a failed read of a bound object means: a missing
// object has invalidated the token.
func lookupError(err error) error {
	if apierrors.IsNotFound(err) {
		return errInvalidated
	}
	return err
}
