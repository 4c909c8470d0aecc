package cmd

import (
	"log/slog"
	"net/http"

	"github.com/kapi-dev/kapi/pkg/authentication/authenticator"
	"github.com/kapi-dev/kapi/pkg/authorization/authorizer"
	"github.com/kapi-dev/kapi/pkg/endpoints/request"
	"github.com/kapi-dev/kapi/pkg/metrics"
	"github.com/kapi-dev/kapi/pkg/server/filters"
)

// handlerChain wraps the delegation chain in the filter chain. From the
// outside in: panic recovery, cache control, request info, timeout (so it
// covers authentication and authorization), warnings, authentication,
// max-in-flight (after authentication, so system:masters is never
// throttled out), authorization, metrics. It runs once in front of every
// server of the chain.
func handlerChain(o *Options, authn authenticator.Request, authz authorizer.Authorizer, reg *metrics.Registry, log *slog.Logger) func(http.Handler) http.Handler {
	resolver := request.NewRequestInfoFactory()
	longRunning := request.LongRunningCheck(request.IsLongRunning)
	return func(h http.Handler) http.Handler {
		h = filters.WithMetrics(h, reg, longRunning)
		h = filters.WithAuthorization(h, authz, log)
		h = filters.WithMaxInFlightLimit(h, o.MaxRequestsInflight, o.MaxMutatingRequestsInflight, longRunning, reg)
		h = filters.WithAuthentication(h, authn, nil, log)
		h = filters.WithWarningRecorder(h)
		h = filters.WithTimeout(h, longRunning, o.RequestTimeout, reg, log)
		h = filters.WithRequestInfo(h, resolver)
		h = filters.WithCacheControl(h)
		h = filters.WithPanicRecovery(h, log)
		return h
	}
}
