package filters

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/kapi-dev/kapi/pkg/audit"
	"github.com/kapi-dev/kapi/pkg/authentication/authenticator"
	"github.com/kapi-dev/kapi/pkg/authorization/authorizer"
	"github.com/kapi-dev/kapi/pkg/endpoints/request"
	"github.com/kapi-dev/kapi/pkg/flowcontrol"
	fcrequest "github.com/kapi-dev/kapi/pkg/flowcontrol/request"
	"github.com/kapi-dev/kapi/pkg/metrics"
)

// ChainConfig is what the filter chain needs, built before it.
type ChainConfig struct {
	Authenticator authenticator.Request
	Authorizer    authorizer.Authorizer
	// APIAudiences are the audiences tokens must be meant for; empty
	// accepts any (see WithAuthentication).
	APIAudiences []string
	// ClearRequestHeaders removes the front-proxy headers of
	// --requestheader-* once a request is authenticated; nil if there is
	// no front proxy.
	ClearRequestHeaders func(http.Header)
	// MaxRequestsInFlight and MaxMutatingRequestsInFlight bound the
	// requests served at once (see WithMaxInFlightLimit); 0 is unbounded.
	MaxRequestsInFlight, MaxMutatingRequestsInFlight int
	// FlowControl, when set, is API priority and fairness, which
	// replaces the max-in-flight limits (see WithPriorityAndFairness);
	// WorkEstimator gives its requests' seats, and RequestWaitLimit is
	// how long a request without a deadline may wait in a queue.
	FlowControl      *flowcontrol.Controller
	WorkEstimator    fcrequest.Estimator
	RequestWaitLimit time.Duration
	// RequestTimeout is the timeout of requests that give none.
	RequestTimeout time.Duration
	// LongRunning says which requests are exempt from the timeout and
	// the in-flight limits; nil is request.IsLongRunning.
	LongRunning request.LongRunningCheck
	Metrics     *metrics.Registry
	Logger      *slog.Logger
	// AuditBackend receives the audit events of the requests AuditPolicy
	// audits; nil for either audits nothing (see WithAudit).
	AuditBackend audit.Backend
	AuditPolicy  audit.Evaluator
	// AuditMetrics counts the levels chosen and the requests rejected;
	// nil counts nothing.
	AuditMetrics *audit.Metrics
}

// Chain returns the filter chain, in the order of the package
// documentation, that wraps the servers' handler. It is the one chain the
// server is built with, so that its tests test what is served.
func Chain(c ChainConfig) func(http.Handler) http.Handler {
	resolver := request.NewRequestInfoFactory()
	longRunning := c.LongRunning
	if longRunning == nil {
		longRunning = request.IsLongRunning
	}
	return func(h http.Handler) http.Handler {
		h = WithMetrics(h, c.Metrics, longRunning)
		h = WithAuthorization(h, c.Authorizer, c.Metrics, c.Logger)
		if c.FlowControl != nil {
			h = WithPriorityAndFairness(h, c.FlowControl, c.WorkEstimator, longRunning, c.RequestWaitLimit, c.Metrics)
		} else {
			h = WithMaxInFlightLimit(h, c.MaxRequestsInFlight, c.MaxMutatingRequestsInFlight, longRunning, c.Metrics)
		}
		h = WithImpersonation(h, c.Authorizer, c.Logger)
		h = WithAudit(h, c.AuditBackend, c.AuditPolicy, c.AuditMetrics, longRunning, c.Logger)
		h = WithAuthentication(h, c.Authenticator, c.APIAudiences, c.ClearRequestHeaders, c.Metrics, c.Logger)
		h = WithWarningRecorder(h)
		h = WithTimeout(h, longRunning, c.RequestTimeout, c.Metrics, c.Logger)
		h = WithRequestInfo(h, resolver)
		h = WithAuditInit(h)
		h = WithCacheControl(h)
		h = WithPanicRecovery(h, c.Logger)
		return h
	}
}
