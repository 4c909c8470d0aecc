package metrics

import (
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Results of authentication_attempts and authentication_duration_seconds.
const (
	// AuthenticationSuccess: an authenticator recognised the request.
	AuthenticationSuccess = "success"
	// AuthenticationFailure: none did (and anonymous access is off).
	AuthenticationFailure = "failure"
	// AuthenticationError: a credential was presented and is invalid, or
	// is for audiences the server does not accept.
	AuthenticationError = "error"
)

// Results of authorization_attempts_total and
// authorization_duration_seconds.
const (
	AuthorizationAllowed   = "allowed"
	AuthorizationDenied    = "denied"
	AuthorizationNoOpinion = "no-opinion"
	AuthorizationError     = "error"
)

// authBuckets are kube-apiserver's buckets of the authentication and
// authorization durations: 1ms doubling to about 16s.
var authBuckets = prometheus.ExponentialBuckets(0.001, 2, 15)

// auth are the metrics of the authentication and authorization filters
// with kube-apiserver's names and help.
type auth struct {
	users          *prometheus.CounterVec
	authnAttempts  *prometheus.CounterVec
	authnDurations *prometheus.HistogramVec
	authzAttempts  *prometheus.CounterVec
	authzDurations *prometheus.HistogramVec
}

func newAuth() auth {
	return auth{
		users: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "authenticated_user_requests",
			Help: "[ALPHA] Counter of authenticated requests broken out by username.",
		}, []string{"username"}),
		authnAttempts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "authentication_attempts",
			Help: "[ALPHA] Counter of authenticated attempts.",
		}, []string{"result"}),
		authnDurations: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "authentication_duration_seconds",
			Help:    "[ALPHA] Authentication duration in seconds broken out by result.",
			Buckets: authBuckets,
		}, []string{"result"}),
		authzAttempts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "authorization_attempts_total",
			Help: "[ALPHA] Counter of authorization attempts broken down by result. It can be either 'allowed', 'denied', 'no-opinion' or 'error'.",
		}, []string{"result"}),
		authzDurations: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "authorization_duration_seconds",
			Help:    "[ALPHA] Authorization duration in seconds broken out by result.",
			Buckets: authBuckets,
		}, []string{"result"}),
	}
}

func (a auth) collectors() []prometheus.Collector {
	return []prometheus.Collector{a.users, a.authnAttempts, a.authnDurations, a.authzAttempts, a.authzDurations}
}

// ObserveAuthentication records one authentication: its result (one of
// the Authentication* constants), how long it took and, on success, the
// category of the user's name (see usernameCategory). A nil Registry
// records nothing.
func (r *Registry) ObserveAuthentication(result, username string, elapsed time.Duration) {
	if r == nil {
		return
	}
	if result == AuthenticationSuccess {
		r.auth.users.WithLabelValues(usernameCategory(username)).Inc()
	}
	r.auth.authnAttempts.WithLabelValues(result).Inc()
	r.auth.authnDurations.WithLabelValues(result).Observe(elapsed.Seconds())
}

// ObserveAuthorization records one decision of the authorization filter:
// its result (one of the Authorization* constants) and how long it took.
// A nil Registry records nothing.
func (r *Registry) ObserveAuthorization(result string, elapsed time.Duration) {
	if r == nil {
		return
	}
	r.auth.authzAttempts.WithLabelValues(result).Inc()
	r.auth.authzDurations.WithLabelValues(result).Observe(elapsed.Seconds())
}

// usernameCategory keeps the cardinality of authenticated_user_requests
// small and real names out of it, as kube-apiserver does: a few
// well-known internal identities keep their name, what looks like an
// e-mail address is "email_id", and everyone else is "other".
func usernameCategory(name string) string {
	switch {
	case name == "admin", name == "client", name == "kube_proxy", name == "kubelet",
		name == "system:serviceaccount:kube-system:default":
		return name
	case strings.Contains(name, "@"):
		return "email_id"
	default:
		return "other"
	}
}
