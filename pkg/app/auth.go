package cmd

import (
	"crypto/x509"
	"fmt"

	"github.com/kapi-dev/kapi/pkg/authentication/authenticator"
	"github.com/kapi-dev/kapi/pkg/authentication/group"
	"github.com/kapi-dev/kapi/pkg/authentication/request/anonymous"
	"github.com/kapi-dev/kapi/pkg/authentication/request/bearertoken"
	"github.com/kapi-dev/kapi/pkg/authentication/request/union"
	x509auth "github.com/kapi-dev/kapi/pkg/authentication/request/x509"
	"github.com/kapi-dev/kapi/pkg/authentication/token/tokenfile"
	"github.com/kapi-dev/kapi/pkg/authentication/user"
	"github.com/kapi-dev/kapi/pkg/authorization"
	"github.com/kapi-dev/kapi/pkg/authorization/authorizer"
)

// buildAuthentication chains the authenticators the flags ask for: client
// certificates, the loopback token of in-process clients, static tokens,
// and anonymous last when --anonymous-auth is on.
func buildAuthentication(o *Options, clientCAs *x509.CertPool, loopbackToken string) (authenticator.Request, error) {
	tokens := []authenticator.Request{
		bearertoken.New(tokenfile.New(map[string]*user.DefaultInfo{
			loopbackToken: {Name: user.APIServerUser, UID: "kapi-loopback", Groups: []string{user.SystemPrivilegedGrp}},
		})),
	}
	if o.TokenAuthFile != "" {
		tf, err := tokenfile.NewCSV(o.TokenAuthFile)
		if err != nil {
			return nil, fmt.Errorf("--token-auth-file: %w", err)
		}
		tokens = append(tokens, bearertoken.New(tf))
	}
	chain := append([]authenticator.Request{x509auth.New(x509auth.StaticCAPool(clientCAs))}, tokens...)
	authn := authenticator.Request(group.NewAuthenticatedGroupAdder(union.New(chain...)))
	if o.AnonymousAuth {
		authn = union.NewFailOnError(authn, anonymous.New())
	}
	return authn, nil
}

// buildAuthorization is the authorizer of --authorization-mode.
func buildAuthorization(o *Options) (authorizer.Authorizer, error) {
	a, err := authorization.New(o.AuthorizationMode)
	if err != nil {
		return nil, fmt.Errorf("--authorization-mode: %w", err)
	}
	return a, nil
}
