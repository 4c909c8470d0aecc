// Package filters holds the filters of the chain every request goes
// through before the API handlers: one file per filter, each a
// func WithX(handler http.Handler, ...) http.Handler that does one thing
// and passes the request on. Errors are answered with kube-apiserver's
// Status, through responsewriters.WriteErrorStatus.
//
// Chain composes the chain; the server is built with it and its tests
// test it. From the outside in, the order is kube-apiserver's (with the filters kapi does not have yet left out):
//
//	WithPanicRecovery      a panic anywhere below becomes a 500, not a dead server
//	WithCacheControl       every response is no-cache, private, errors included
//	WithAuditInit          the audit ID (Audit-Id header on every response) and the audit state
//	WithRequestInfo        parses the path; everything below needs it
//	WithTimeout            bounds all that follows, authentication and authorization webhooks included
//	WithWarningRecorder    inside the timeout (warnings go to the timeout writer's private headers),
//	                       outside authentication (authenticators may warn)
//	WithAuthentication     puts the user in the context
//	WithAudit              audit events, naming the authenticated user
//	WithImpersonation      after authentication (it checks what the authenticated user may impersonate),
//	                       before everything that acts on the user: limits, authorization, handlers
//	WithMaxInFlightLimit   after authentication, because system:masters are exempt;
//	                       limits the expensive work: authorization webhooks and handlers
//	  or WithPriorityAndFairness, in its place (--enable-priority-and-fairness): after
//	                       impersonation, because it classifies by the (impersonated) user
//	WithAuthorization      403 unless allowed
//	WithMetrics            counts the requests that reach a handler, as kube-apiserver does
//	handler
//
// Filters that wrap the ResponseWriter keep Flush and Hijack working
// (watch needs the first, exec and port-forward upgrades the second), and
// expose Unwrap for http.ResponseController. The timeout writer is the
// exception to Unwrap: reaching past it would bypass the lock that keeps
// a late handler from writing over a 504.
package filters
