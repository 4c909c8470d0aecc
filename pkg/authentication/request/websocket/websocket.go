// Package websocket authenticates WebSocket requests by a bearer token
// carried as a subprotocol, as kube-apiserver does: browsers cannot set an
// Authorization header on a WebSocket, so a client offers the subprotocol
// "base64url.bearer.authorization.k8s.io.<token, base64url without
// padding>" next to the one it really speaks.
package websocket

import (
	"encoding/base64"
	"errors"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/kapi-dev/kapi/pkg/authentication/authenticator"
)

const tokenPrefix = "base64url.bearer.authorization.k8s.io."

// Authenticator hands the subprotocol's token to a token authenticator.
type Authenticator struct {
	auth authenticator.Token
}

// New returns a subprotocol authenticator over auth (the same token
// union as bearer tokens).
func New(auth authenticator.Token) *Authenticator { return &Authenticator{auth: auth} }

// AuthenticateRequest implements authenticator.Request. Requests that are
// not WebSocket upgrades, or offer no token subprotocol, carry no
// credential. Two token subprotocols, a token that does not decode, or a
// token with no other subprotocol to answer with, are errors. On success
// the token subprotocol is removed, so that it is not echoed back.
func (a *Authenticator) AuthenticateRequest(req *http.Request) (*authenticator.Response, bool, error) {
	if !isWebSocket(req) {
		return nil, false, nil
	}
	var token string
	seen := false
	var others []string
	for _, line := range req.Header.Values("Sec-Websocket-Protocol") {
		for _, p := range strings.Split(line, ",") {
			p = strings.TrimSpace(p)
			if !strings.HasPrefix(p, tokenPrefix) {
				others = append(others, p)
				continue
			}
			if seen {
				return nil, false, errors.New("multiple base64.bearer.authorization tokens specified")
			}
			seen = true
			b, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(p, tokenPrefix))
			if err != nil {
				return nil, false, errors.New("invalid base64.bearer.authorization token encoding")
			}
			if !utf8.Valid(b) {
				return nil, false, errors.New("invalid base64.bearer.authorization token")
			}
			token = string(b)
		}
	}
	if token == "" {
		return nil, false, nil
	}
	if len(others) == 0 {
		return nil, false, errors.New("missing additional subprotocol")
	}
	resp, ok, err := a.auth.AuthenticateToken(req.Context(), token)
	if ok {
		req.Header.Set("Sec-Websocket-Protocol", strings.Join(others, ","))
	}
	if !ok && err == nil {
		err = errors.New("invalid bearer token")
	}
	return resp, ok, err
}

// isWebSocket: "Connection: upgrade" (among others) and "Upgrade: websocket".
func isWebSocket(req *http.Request) bool {
	if !strings.EqualFold(req.Header.Get("Upgrade"), "websocket") {
		return false
	}
	for _, line := range req.Header.Values("Connection") {
		for _, v := range strings.Split(line, ",") {
			if strings.EqualFold(strings.TrimSpace(v), "upgrade") {
				return true
			}
		}
	}
	return false
}
