// Package webhook is the Webhook authorization mode: each question is
// sent to a remote service as a SubjectAccessReview, the way
// kube-apiserver sends it, and the answer is cached.
//
// The same authorizer serves the legacy flags
// (--authorization-webhook-config-file and its TTL and version flags)
// and each webhook of an --authorization-config file; the latter adds a
// name, a timeout, a failure policy and match conditions, which the
// legacy form fixes (30s, NoOpinion, none).
//
// What is cached, and for how long: the answer to one exact
// SubjectAccessReview spec (user, groups, extra, attributes and
// selectors), for the authorized TTL when allowed and the unauthorized
// TTL otherwise. Failures are not cached, so a webhook that comes back
// is asked again at once. Requests whose attributes are very large are
// not cached at all, so that clients cannot fill the cache with junk.
package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	authorizationv1beta1 "k8s.io/api/authorization/v1beta1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/util/cache"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kapi-dev/kapi/pkg/authentication/user"
	"github.com/kapi-dev/kapi/pkg/authorization/authorizer"
)

// Defaults of kube-apiserver's flags and of the legacy configuration.
const (
	DefaultAuthorizedTTL   = 5 * time.Minute
	DefaultUnauthorizedTTL = 30 * time.Second
	// DefaultTimeout is how long the legacy form waits for an answer.
	DefaultTimeout = 30 * time.Second
)

// cacheSize bounds the number of cached answers, as kube-apiserver's.
const cacheSize = 8192

// maxCachedAttrSize is the size of the client-chosen attributes (names,
// paths) above which an answer is not cached.
const maxCachedAttrSize = 10000

// DefaultRetryBackoff is kube-apiserver's backoff between attempts when
// the webhook fails in a way worth retrying (a 5xx, 429, timeout or reset
// connection): 500ms, growing by half, five attempts in all.
func DefaultRetryBackoff() wait.Backoff {
	return wait.Backoff{Duration: 500 * time.Millisecond, Factor: 1.5, Jitter: 0.2, Steps: 5}
}

// Matcher decides from the review about to be sent whether the webhook
// is asked at all (the matchConditions of --authorization-config). An
// error means a condition could not be evaluated and none was false.
type Matcher interface {
	Match(ctx context.Context, review *authorizationv1.SubjectAccessReview) (bool, error)
}

// Config describes one webhook.
type Config struct {
	// Name names the webhook in errors and logs ("" for the legacy one).
	Name string
	// REST is where and how to reach it, usually from a kubeconfig file
	// (LoadKubeconfig) or the in-cluster configuration. Its Host is the
	// full URL the reviews are POSTed to.
	REST *rest.Config
	// Version is the SubjectAccessReview version sent, "v1" or "v1beta1".
	Version string
	// AuthorizedTTL and UnauthorizedTTL are how long answers are cached;
	// zero does not cache them.
	AuthorizedTTL, UnauthorizedTTL time.Duration
	// Timeout bounds one attempt.
	Timeout time.Duration
	// DecisionOnError is the decision when the webhook cannot be asked or
	// a match condition fails to evaluate: NoOpinion (the legacy
	// behaviour, failurePolicy NoOpinion) or Deny.
	DecisionOnError authorizer.Decision
	// Matcher, if not nil, selects the requests the webhook is asked about.
	Matcher Matcher
	// RetryBackoff is the backoff between attempts; the zero value is
	// DefaultRetryBackoff.
	RetryBackoff wait.Backoff
	// Observer, if not nil, is told of every round trip to the webhook
	// and every evaluation of the match conditions.
	Observer Observer
}

// Observer receives what kube-apiserver's webhook authorizer metrics
// count. result is "success", "canceled", "timeout" or "error".
type Observer interface {
	// WebhookEvaluated is one round trip to webhook name.
	WebhookEvaluated(name, result string, elapsed time.Duration)
	// WebhookFailedOpen is a failure turned into NoOpinion.
	WebhookFailedOpen(name, result string)
	// MatchConditionsEvaluated is one evaluation of the webhook's match
	// conditions: excluded if they did not match, failed if one failed.
	MatchConditionsEvaluated(name string, excluded, failed bool, elapsed time.Duration)
}

// LoadKubeconfig reads the kubeconfig file that says where a webhook is:
// its cluster's server is the URL, with its CA, and its user's
// credentials (client certificate, token) are presented to it.
func LoadKubeconfig(path string) (*rest.Config, error) {
	rules := &clientcmd.ClientConfigLoadingRules{ExplicitPath: path}
	return clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{}).ClientConfig()
}

// Authorizer asks a webhook.
type Authorizer struct {
	cfg    Config
	url    string
	client *http.Client
	cache  *cache.LRUExpireCache
}

var (
	_ authorizer.Authorizer   = (*Authorizer)(nil)
	_ authorizer.RuleResolver = (*Authorizer)(nil)
)

// New returns the authorizer of one webhook.
func New(cfg Config) (*Authorizer, error) {
	switch cfg.Version {
	case "v1", "v1beta1":
	default:
		return nil, fmt.Errorf("unsupported webhook authorizer version %q, supported versions are %q, %q", cfg.Version, "v1", "v1beta1")
	}
	if cfg.REST == nil {
		return nil, errors.New("webhook: no connection configuration")
	}
	if cfg.RetryBackoff.Steps == 0 {
		cfg.RetryBackoff = DefaultRetryBackoff()
	}
	transport, err := rest.TransportFor(cfg.REST)
	if err != nil {
		return nil, err
	}
	u := cfg.REST.Host
	if !strings.Contains(u, "://") {
		u = "https://" + u
	}
	if cfg.REST.APIPath != "" {
		u = strings.TrimRight(u, "/") + "/" + strings.TrimLeft(cfg.REST.APIPath, "/")
	}
	// kube-apiserver's client tells the webhook how long it will wait, as
	// every client-go request with a timeout does.
	if cfg.Timeout > 0 {
		parsed, err := url.Parse(u)
		if err != nil {
			return nil, err
		}
		q := parsed.Query()
		q.Set("timeout", cfg.Timeout.String())
		parsed.RawQuery = q.Encode()
		u = parsed.String()
	}
	return &Authorizer{
		cfg:    cfg,
		url:    u,
		client: &http.Client{Transport: transport, Timeout: cfg.Timeout},
		cache:  cache.NewLRUExpireCache(cacheSize),
	}, nil
}

// Review is the SubjectAccessReview kube-apiserver sends a webhook for
// attrs; match conditions are evaluated over it too.
func Review(attrs authorizer.Attributes) *authorizationv1.SubjectAccessReview {
	r := &authorizationv1.SubjectAccessReview{
		TypeMeta: metav1.TypeMeta{APIVersion: authorizationv1.SchemeGroupVersion.String(), Kind: "SubjectAccessReview"},
	}
	if u := attrs.GetUser(); u != nil {
		r.Spec.User = u.GetName()
		r.Spec.UID = u.GetUID()
		r.Spec.Groups = u.GetGroups()
		if extra := u.GetExtra(); extra != nil {
			r.Spec.Extra = map[string]authorizationv1.ExtraValue{}
			for k, v := range extra {
				r.Spec.Extra[k] = v
			}
		}
	}
	if !attrs.IsResourceRequest() {
		r.Spec.NonResourceAttributes = &authorizationv1.NonResourceAttributes{Path: attrs.GetPath(), Verb: attrs.GetVerb()}
		return r
	}
	ra := &authorizationv1.ResourceAttributes{
		Namespace:   attrs.GetNamespace(),
		Verb:        attrs.GetVerb(),
		Group:       attrs.GetAPIGroup(),
		Version:     attrs.GetAPIVersion(),
		Resource:    attrs.GetResource(),
		Subresource: attrs.GetSubresource(),
		Name:        attrs.GetName(),
	}
	// Selectors only narrow a request, so the requirements that parsed
	// are sent even when a later one did not, and requirements the API
	// cannot express (<, >) are dropped: the webhook then judges a
	// broader request, never a narrower one.
	if fs, _ := attrs.GetFieldSelector(); len(fs) > 0 {
		var reqs []metav1.FieldSelectorRequirement
		for _, f := range fs {
			switch f.Operator {
			case selection.Equals, selection.DoubleEquals, selection.In:
				reqs = append(reqs, metav1.FieldSelectorRequirement{Key: f.Field, Operator: metav1.FieldSelectorOpIn, Values: []string{f.Value}})
			case selection.NotEquals, selection.NotIn:
				reqs = append(reqs, metav1.FieldSelectorRequirement{Key: f.Field, Operator: metav1.FieldSelectorOpNotIn, Values: []string{f.Value}})
			}
		}
		if len(reqs) > 0 {
			ra.FieldSelector = &authorizationv1.FieldSelectorAttributes{Requirements: reqs}
		}
	}
	if ls, _ := attrs.GetLabelSelector(); len(ls) > 0 {
		var reqs []metav1.LabelSelectorRequirement
		for _, l := range ls {
			req := metav1.LabelSelectorRequirement{Key: l.Key()}
			if v := l.ValuesUnsorted(); len(v) > 0 {
				req.Values = v
			}
			switch l.Operator() {
			case selection.Equals, selection.DoubleEquals, selection.In:
				req.Operator = metav1.LabelSelectorOpIn
			case selection.NotEquals, selection.NotIn:
				req.Operator = metav1.LabelSelectorOpNotIn
			case selection.Exists:
				req.Operator = metav1.LabelSelectorOpExists
			case selection.DoesNotExist:
				req.Operator = metav1.LabelSelectorOpDoesNotExist
			default:
				continue
			}
			reqs = append(reqs, req)
		}
		if len(reqs) > 0 {
			ra.LabelSelector = &authorizationv1.LabelSelectorAttributes{Requirements: reqs}
		}
	}
	r.Spec.ResourceAttributes = ra
	return r
}

// Authorize asks the webhook, or its cache, about attrs. The webhook's
// reason is passed on. When it cannot be asked the decision is the
// configured DecisionOnError, with the error: the chain goes on to the
// next authorizer, and a request no one allows is then a 500 rather than
// a misleading 403.
func (a *Authorizer) Authorize(ctx context.Context, attrs authorizer.Attributes) (authorizer.Decision, string, error) {
	review := Review(attrs)
	if a.cfg.Matcher != nil {
		start := time.Now()
		ok, err := a.cfg.Matcher.Match(ctx, review)
		if a.cfg.Observer != nil {
			a.cfg.Observer.MatchConditionsEvaluated(a.cfg.Name, err == nil && !ok, err != nil, time.Since(start))
		}
		if err != nil {
			return a.cfg.DecisionOnError, "", err
		}
		if !ok {
			return authorizer.DecisionNoOpinion, "", nil
		}
	}
	key, err := json.Marshal(review.Spec)
	if err != nil {
		return a.cfg.DecisionOnError, "", err
	}
	var status authorizationv1.SubjectAccessReviewStatus
	if cached, ok := a.cache.Get(string(key)); ok {
		status = cached.(authorizationv1.SubjectAccessReviewStatus)
	} else {
		status, err = a.ask(ctx, review)
		if err != nil {
			if a.cfg.Observer != nil && a.cfg.DecisionOnError == authorizer.DecisionNoOpinion && ctx.Err() == nil {
				a.cfg.Observer.WebhookFailedOpen(a.cfg.Name, evaluationResult(ctx, err))
			}
			return a.cfg.DecisionOnError, "", err
		}
		if cacheable(attrs) {
			ttl := a.cfg.UnauthorizedTTL
			if status.Allowed {
				ttl = a.cfg.AuthorizedTTL
			}
			if ttl > 0 {
				a.cache.Add(string(key), status, ttl)
			}
		}
	}
	switch {
	case status.Allowed && status.Denied:
		return authorizer.DecisionDeny, status.Reason, errors.New("webhook subject access review returned both allow and deny response")
	case status.Denied:
		return authorizer.DecisionDeny, status.Reason, nil
	case status.Allowed:
		return authorizer.DecisionAllow, status.Reason, nil
	}
	return authorizer.DecisionNoOpinion, status.Reason, nil
}

// RulesFor cannot list a webhook's rules: the answer is marked
// incomplete, as kube-apiserver's is.
func (a *Authorizer) RulesFor(context.Context, user.Info, string) ([]authorizationv1.ResourceRule, []authorizationv1.NonResourceRule, bool, error) {
	return nil, nil, true, errors.New("webhook authorizer does not support user rule resolution")
}

func cacheable(attrs authorizer.Attributes) bool {
	n := len(attrs.GetNamespace()) + len(attrs.GetVerb()) + len(attrs.GetAPIGroup()) + len(attrs.GetAPIVersion()) +
		len(attrs.GetResource()) + len(attrs.GetSubresource()) + len(attrs.GetName()) + len(attrs.GetPath())
	return n < maxCachedAttrSize
}

// retryable is an error worth another attempt: the webhook may answer
// next time.
type retryable struct{ error }

// ask sends review, retrying transient failures with the backoff.
func (a *Authorizer) ask(ctx context.Context, review *authorizationv1.SubjectAccessReview) (authorizationv1.SubjectAccessReviewStatus, error) {
	body, err := a.encode(review)
	if err != nil {
		return authorizationv1.SubjectAccessReviewStatus{}, err
	}
	var status authorizationv1.SubjectAccessReviewStatus
	var lastErr error
	backoff := a.cfg.RetryBackoff
	err = wait.ExponentialBackoffWithContext(ctx, backoff, func(ctx context.Context) (bool, error) {
		start := time.Now()
		status, lastErr = a.post(ctx, body)
		if a.cfg.Observer != nil {
			a.cfg.Observer.WebhookEvaluated(a.cfg.Name, evaluationResult(ctx, lastErr), time.Since(start))
		}
		var r retryable
		if errors.As(lastErr, &r) {
			return false, nil
		}
		return true, lastErr
	})
	if lastErr != nil {
		var r retryable
		if errors.As(lastErr, &r) {
			return status, r.error
		}
		return status, lastErr
	}
	return status, err
}

// evaluationResult classifies the outcome of a round trip as
// kube-apiserver's metrics do.
func evaluationResult(ctx context.Context, err error) string {
	switch {
	case err == nil:
		return "success"
	case ctx.Err() != nil:
		return "canceled"
	case utilnet.IsTimeout(err) || errors.Is(err, context.DeadlineExceeded) || apierrors.IsTimeout(err):
		return "timeout"
	default:
		return "error"
	}
}

// encode writes the review in the configured version.
func (a *Authorizer) encode(review *authorizationv1.SubjectAccessReview) ([]byte, error) {
	if a.cfg.Version == "v1" {
		return json.Marshal(review)
	}
	s := review.Spec
	old := &authorizationv1beta1.SubjectAccessReview{
		TypeMeta: metav1.TypeMeta{APIVersion: authorizationv1beta1.SchemeGroupVersion.String(), Kind: "SubjectAccessReview"},
		Spec: authorizationv1beta1.SubjectAccessReviewSpec{
			User: s.User, UID: s.UID, Groups: s.Groups,
		},
	}
	if s.Extra != nil {
		old.Spec.Extra = map[string]authorizationv1beta1.ExtraValue{}
		for k, v := range s.Extra {
			old.Spec.Extra[k] = authorizationv1beta1.ExtraValue(v)
		}
	}
	if ra := s.ResourceAttributes; ra != nil {
		old.Spec.ResourceAttributes = &authorizationv1beta1.ResourceAttributes{
			Namespace: ra.Namespace, Verb: ra.Verb, Group: ra.Group, Version: ra.Version,
			Resource: ra.Resource, Subresource: ra.Subresource, Name: ra.Name,
			FieldSelector: ra.FieldSelector, LabelSelector: ra.LabelSelector,
		}
	}
	if nra := s.NonResourceAttributes; nra != nil {
		old.Spec.NonResourceAttributes = &authorizationv1beta1.NonResourceAttributes{Path: nra.Path, Verb: nra.Verb}
	}
	return json.Marshal(old)
}

// post makes one attempt. Only the status of the answer is read: the
// versions' statuses have the same fields. Errors are worded as
// client-go words them, since kube-apiserver reaches its webhooks with
// client-go and its 500s quote them.
func (a *Authorizer) post(ctx context.Context, body []byte) (authorizationv1.SubjectAccessReviewStatus, error) {
	var status authorizationv1.SubjectAccessReviewStatus
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.url, bytes.NewReader(body))
	if err != nil {
		return status, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, */*")
	resp, err := a.client.Do(req)
	if err != nil {
		// A connection the webhook reset may be a webhook restarting; as
		// in kube-apiserver, that alone is retried.
		if utilnet.IsConnectionReset(err) || utilnet.IsHTTP2ConnectionLost(err) {
			return status, retryable{err}
		}
		return status, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 10<<20))
	if err != nil {
		return status, err
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		err := responseError(resp, data)
		if apierrors.IsInternalError(err) || apierrors.IsTimeout(err) || apierrors.IsTooManyRequests(err) {
			return status, retryable{err}
		}
		if _, delay := apierrors.SuggestsClientDelay(err); delay {
			return status, retryable{err}
		}
		return status, err
	}
	var answer struct {
		metav1.TypeMeta `json:",inline"`
		Status          authorizationv1.SubjectAccessReviewStatus `json:"status"`
	}
	if err := json.Unmarshal(data, &answer); err != nil {
		return status, fmt.Errorf("decoding the webhook's answer: %w", err)
	}
	if answer.Kind != "" && answer.Kind != "SubjectAccessReview" {
		return status, fmt.Errorf("the webhook answered with a %s, not a SubjectAccessReview", answer.Kind)
	}
	return answer.Status, nil
}

// responseError is the error of a failed answer: the Status the webhook
// sent, or one made from the code and the text of the body.
func responseError(resp *http.Response, data []byte) error {
	var st metav1.Status
	if json.Unmarshal(data, &st) == nil && st.Kind == "Status" && st.Status == metav1.StatusFailure {
		return &apierrors.StatusError{ErrStatus: st}
	}
	message := "unknown"
	if ct := resp.Header.Get("Content-Type"); ct == "" || strings.HasPrefix(ct, "text/plain") {
		message = strings.TrimSpace(truncate(data))
	}
	retryAfter, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
	return apierrors.NewGenericServerResponse(resp.StatusCode, http.MethodPost, schema.GroupResource{}, "", message, retryAfter, true)
}

func truncate(b []byte) string {
	if len(b) > 256 {
		return string(b[:256]) + "..."
	}
	return string(b)
}
