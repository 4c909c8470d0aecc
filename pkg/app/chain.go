package app

import (
	"log/slog"
	"net/http"

	"github.com/kapi-dev/kapi/pkg/authentication/authenticator"
	"github.com/kapi-dev/kapi/pkg/authorization/authorizer"
	"github.com/kapi-dev/kapi/pkg/metrics"
	"github.com/kapi-dev/kapi/pkg/server/filters"
)

// handlerChain wraps the delegation chain in the filter chain
// (filters.Chain, whose documentation gives the order and why). It runs
// once in front of every server of the chain.
func handlerChain(o *Config, authn authenticator.Request, clearRequestHeaders func(http.Header), authz authorizer.Authorizer, a auditing, reg *metrics.Registry, fc flowControl, log *slog.Logger) func(http.Handler) http.Handler {
	return filters.Chain(filters.ChainConfig{
		Authenticator: authn, Authorizer: authz, ClearRequestHeaders: clearRequestHeaders,
		MaxRequestsInFlight: o.MaxRequestsInflight, MaxMutatingRequestsInFlight: o.MaxMutatingRequestsInflight,
		// kube-apiserver lets a request without a deadline wait a
		// quarter of --request-timeout.
		FlowControl: fc.controller, WorkEstimator: fc.estimate, RequestWaitLimit: o.RequestTimeout / 4,
		RequestTimeout: o.RequestTimeout, Metrics: reg, Logger: log,
		AuditBackend: a.backend, AuditPolicy: a.policy, AuditMetrics: a.metrics,
	})
}
