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

	"github.com/kapi-dev/kapi/pkg/authentication/authenticator"
	"github.com/kapi-dev/kapi/pkg/authentication/user"
)

// Authenticator authenticates any request as system:anonymous in the group
// system:unauthenticated.
type Authenticator struct{}

// New returns an anonymous authenticator.
func New() *Authenticator { return &Authenticator{} }

// AuthenticateRequest always succeeds. Each call returns a fresh user, so a
// caller that modifies it cannot affect later requests.
func (*Authenticator) AuthenticateRequest(*http.Request) (*authenticator.Response, bool, error) {
	return &authenticator.Response{
		User: &user.DefaultInfo{
			Name:   user.Anonymous,
			Groups: []string{user.AllUnauthenticated},
		},
	}, true, nil
}
