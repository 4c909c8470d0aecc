// Package bearertoken authenticates requests by the token in their
// "Authorization: Bearer <token>" header.
package bearertoken

import (
	"errors"
	"net/http"
	"strings"

	"github.com/kapi-dev/kapi/pkg/authentication/authenticator"
)

// errInvalidToken is returned when the token authenticator neither accepted
// the token nor explained why; the request is then a 401.
var errInvalidToken = errors.New("invalid bearer token")

// Authenticator extracts a bearer token and hands it to a token
// authenticator.
type Authenticator struct {
	auth authenticator.Token
}

// New returns an authenticator that checks bearer tokens with auth.
func New(auth authenticator.Token) *Authenticator {
	return &Authenticator{auth: auth}
}

// AuthenticateRequest implements authenticator.Request.
//
// A request without an Authorization header, with another scheme (Basic,
// ...), or with an empty token carries no bearer token: not ok, no error,
// so that other authenticators (or anonymous) get their turn. A token that
// is present but not accepted is an error: the client meant to
// authenticate, and must learn that it failed.
//
// The scheme is case-insensitive (RFC 9110). Only the first word after it
// is the token, as in kube-apiserver; in particular "Bearer  token" (two
// spaces) has an empty token.
func (a *Authenticator) AuthenticateRequest(req *http.Request) (*authenticator.Response, bool, error) {
	header := strings.TrimSpace(req.Header.Get("Authorization"))
	if header == "" {
		return nil, false, nil
	}
	parts := strings.SplitN(header, " ", 3)
	if len(parts) < 2 || !strings.EqualFold(parts[0], "bearer") {
		return nil, false, nil
	}
	token := parts[1]
	if token == "" {
		return nil, false, nil
	}

	resp, ok, err := a.auth.AuthenticateToken(req.Context(), token)
	if ok {
		// The token has done its job. Remove it so that nothing further
		// down (a proxy, a log line) can pick it up and reuse it.
		req.Header.Del("Authorization")
	}
	if !ok && err == nil {
		err = errInvalidToken
	}
	return resp, ok, err
}
