package filters

import (
	"log/slog"
	"net/http"
	"slices"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kapi-dev/kapi/pkg/authentication/authenticator"
	"github.com/kapi-dev/kapi/pkg/authentication/user"
	"github.com/kapi-dev/kapi/pkg/endpoints/request"
	"github.com/kapi-dev/kapi/pkg/endpoints/responsewriters"
	"github.com/kapi-dev/kapi/pkg/metrics"
)

// WithAuthentication authenticates each request with auth and puts the
// user into its context.
//
// A request with invalid credentials (auth returns an error), or with
// none that auth accepts, gets a 401 Unauthorized Status. A request with
// no credentials at all becomes system:anonymous only if auth includes
// the anonymous authenticator.
//
// apiAudiences, if not empty, are the audiences the server accepts: a
// credential valid only for other audiences is rejected.
//
// Once the user is known, the credentials (the Authorization header, and
// through clearRequestHeaders the headers --requestheader-* names) are
// removed from the request, so that nothing after this filter, and no
// server a request is proxied to, sees them. clearRequestHeaders is nil
// when no front proxy is configured.
//
// HTTP/2 multiplexes many requests on one connection, which makes it
// cheap to abuse (CVE-2023-44487, CVE-2023-39325). Like kube-apiserver,
// the filter closes the HTTP/2 connection after a request that failed to
// authenticate or was anonymous.
//
// Each attempt is counted in m (authentication_attempts,
// authentication_duration_seconds, authenticated_user_requests); m may be
// nil.
//
// A nil logger discards the log. auth must not be nil: a server
// without authentication uses an authenticator that accepts everyone.
func WithAuthentication(handler http.Handler, auth authenticator.Request, apiAudiences []string, clearRequestHeaders func(http.Header), m *metrics.Registry, logger *slog.Logger) http.Handler {
	if auth == nil {
		panic("filters.WithAuthentication: nil authenticator")
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		resp, ok, err := auth.AuthenticateRequest(r)
		switch {
		case err != nil:
			m.ObserveAuthentication(metrics.AuthenticationError, "", time.Since(start))
			logger.Error("Unable to authenticate the request", "err", err, "method", r.Method, "uri", r.RequestURI)
			unauthorized(w, r)
			return
		case !ok:
			m.ObserveAuthentication(metrics.AuthenticationFailure, "", time.Since(start))
			unauthorized(w, r)
			return
		case !audiencesAcceptable(apiAudiences, resp.Audiences):
			m.ObserveAuthentication(metrics.AuthenticationError, "", time.Since(start))
			logger.Error("Unable to authenticate the request: no audience in common",
				"audiences", resp.Audiences, "accepted", apiAudiences, "method", r.Method, "uri", r.RequestURI)
			unauthorized(w, r)
			return
		}
		m.ObserveAuthentication(metrics.AuthenticationSuccess, resp.User.GetName(), time.Since(start))

		r.Header.Del("Authorization")
		if clearRequestHeaders != nil {
			clearRequestHeaders(r.Header)
		}

		if r.ProtoMajor == 2 && isAnonymous(resp.User) {
			// Serve this request, then send GOAWAY.
			w.Header().Set("Connection", "close")
		}
		handler.ServeHTTP(w, r.WithContext(request.WithUser(r.Context(), resp.User)))
	})
}

func unauthorized(w http.ResponseWriter, r *http.Request) {
	if r.ProtoMajor == 2 {
		w.Header().Set("Connection", "close")
	}
	responsewriters.WriteErrorStatus(w, r, apierrors.NewUnauthorized("Unauthorized"))
}

// audiencesAcceptable reports whether a credential valid for
// credentialAudiences may be used with a server accepting apiAudiences.
// An authenticator that does not know the audiences of its credentials
// (client certificates, say) reports none, and is trusted.
func audiencesAcceptable(apiAudiences, credentialAudiences []string) bool {
	if len(apiAudiences) == 0 || len(credentialAudiences) == 0 {
		return true
	}
	for _, a := range credentialAudiences {
		if slices.Contains(apiAudiences, a) {
			return true
		}
	}
	return false
}

func isAnonymous(u user.Info) bool {
	return u.GetName() == user.Anonymous || slices.Contains(u.GetGroups(), user.AllUnauthenticated)
}
