// Package authenticator defines how a request's credentials become a user.
package authenticator

import (
	"context"
	"net/http"

	"github.com/kapi-dev/kapi/pkg/authentication/user"
)

// Response is the outcome of a successful authentication.
type Response struct {
	User user.Info
	// Audiences the credential was valid for, when the method knows them.
	Audiences []string
}

// Request authenticates an HTTP request. It returns ok=false with a nil
// error when the request carries no credential this authenticator handles,
// and a non-nil error when it carries one that is invalid (a 401).
type Request interface {
	AuthenticateRequest(req *http.Request) (*Response, bool, error)
}

// RequestFunc adapts a function to Request.
type RequestFunc func(req *http.Request) (*Response, bool, error)

func (f RequestFunc) AuthenticateRequest(req *http.Request) (*Response, bool, error) {
	return f(req)
}

// Token authenticates a bearer token.
type Token interface {
	AuthenticateToken(ctx context.Context, token string) (*Response, bool, error)
}
