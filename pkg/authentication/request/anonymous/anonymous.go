// Package anonymous authenticates every request as the anonymous user.
//
// It is the last authenticator of kube-apiserver's chain when
// --anonymous-auth is on: a request that carries no credential at all is
// served as system:anonymous, and what that user may do is left to
// authorization. A request whose credential is invalid must not reach this
// authenticator; see union.NewFailOnError.
package anonymous

import (
	"net/http"
	"slices"

	"github.com/kapi-dev/kapi/pkg/authentication/authenticator"
	"github.com/kapi-dev/kapi/pkg/authentication/user"
)

// Authenticator authenticates requests as system:anonymous in the group
// system:unauthenticated.
type Authenticator struct {
	paths []string
}

// New returns an anonymous authenticator for every request.
func New() *Authenticator { return &Authenticator{} }

// NewForPaths returns an anonymous authenticator for requests to exactly
// these paths, as the conditions of an AuthenticationConfiguration's
// anonymous section say (kube-apiserver 1.37.1 with /livez and /readyz
// allowed answered /livez/ping and /healthz with 401). No paths means
// every request.
func NewForPaths(paths []string) *Authenticator { return &Authenticator{paths: paths} }

// AuthenticateRequest succeeds unless the request's path is not among the
// allowed ones. Each call returns a fresh user, so a caller that modifies
// it cannot affect later requests.
func (a *Authenticator) AuthenticateRequest(req *http.Request) (*authenticator.Response, bool, error) {
	if len(a.paths) > 0 && !slices.Contains(a.paths, req.URL.Path) {
		return nil, false, nil
	}
	return &authenticator.Response{
		User: &user.DefaultInfo{
			Name:   user.Anonymous,
			Groups: []string{user.AllUnauthenticated},
		},
	}, true, nil
}
