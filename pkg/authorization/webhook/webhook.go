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
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	authorizationv1beta1 "k8s.io/api/authorization/v1beta1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/util/cache"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"

	"github.com/kapi-dev/kapi/pkg/authentication/user"
	"github.com/kapi-dev/kapi/pkg/authorization/authorizer"
	webhookclient "github.com/kapi-dev/kapi/pkg/client/webhook"
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
// the webhook fails in a way worth retrying (webhookclient.ShouldRetry): 500ms,
// growing by half, five attempts in all.
func DefaultRetryBackoff() wait.Backoff {
	return webhookclient.RetryBackoff(500 * time.Millisecond)
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

// LoadKubeconfig reads the kubeconfig file that says where a webhook is
// (webhookclient.LoadKubeconfig).
func LoadKubeconfig(path string) (*rest.Config, error) {
	return webhookclient.LoadKubeconfig(path)
}

// Authorizer asks a webhook.
type Authorizer struct {
	cfg    Config
	client *rest.RESTClient
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
	rc := rest.CopyConfig(cfg.REST)
	rc.Timeout = cfg.Timeout
	client, err := webhookclient.NewClient(rc)
	if err != nil {
		return nil, err
	}
	return &Authorizer{
		cfg:    cfg,
		client: client,
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
// ask sends review, retrying transient failures with the backoff, and
// returns the status of the answer.
func (a *Authorizer) ask(ctx context.Context, review *authorizationv1.SubjectAccessReview) (authorizationv1.SubjectAccessReviewStatus, error) {
	body, err := a.encode(review)
	if err != nil {
		return authorizationv1.SubjectAccessReviewStatus{}, err
	}
	result := webhookclient.CallWithRetry(ctx, a.cfg.RetryBackoff, nil, func() rest.Result {
		start := time.Now()
		result := webhookclient.Post(ctx, a.client, body)
		if a.cfg.Observer != nil {
			a.cfg.Observer.WebhookEvaluated(a.cfg.Name, evaluationResult(ctx, result.Error()), time.Since(start))
		}
		return result
	})
	if err := result.Error(); err != nil {
		return authorizationv1.SubjectAccessReviewStatus{}, err
	}
	var code int
	if result.StatusCode(&code); code == 0 {
		// The context ended before the first attempt.
		return authorizationv1.SubjectAccessReviewStatus{}, context.Cause(ctx)
	}
	return decodeStatus(result)
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

// decodeStatus reads the status of the webhook's answer. Only the
// status is read: the versions' statuses have the same fields.
func decodeStatus(result rest.Result) (authorizationv1.SubjectAccessReviewStatus, error) {
	data, err := result.Raw()
	if err != nil {
		return authorizationv1.SubjectAccessReviewStatus{}, err
	}
	var answer struct {
		metav1.TypeMeta `json:",inline"`
		Status          authorizationv1.SubjectAccessReviewStatus `json:"status"`
	}
	if err := json.Unmarshal(data, &answer); err != nil {
		return answer.Status, fmt.Errorf("decoding the webhook's answer: %w", err)
	}
	if answer.Kind != "" && answer.Kind != "SubjectAccessReview" {
		return authorizationv1.SubjectAccessReviewStatus{}, fmt.Errorf("the webhook answered with a %s, not a SubjectAccessReview", answer.Kind)
	}
	return answer.Status, nil
}
