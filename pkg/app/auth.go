package app

import (
	"crypto/x509"
	"fmt"
	"log/slog"

	"github.com/kapi-dev/kapi/pkg/authentication/authenticator"
	"github.com/kapi-dev/kapi/pkg/authentication/group"
	"github.com/kapi-dev/kapi/pkg/authentication/request/anonymous"
	"github.com/kapi-dev/kapi/pkg/authentication/request/bearertoken"
	"github.com/kapi-dev/kapi/pkg/authentication/request/union"
	x509auth "github.com/kapi-dev/kapi/pkg/authentication/request/x509"
	"github.com/kapi-dev/kapi/pkg/authentication/token/tokenfile"
	"github.com/kapi-dev/kapi/pkg/authentication/user"
)

// buildAuthentication chains the authenticators the flags ask for: client
// certificates, the loopback token of in-process clients, static tokens,
// service-account and bootstrap tokens, and anonymous last when --anonymous-auth is on.
func buildAuthentication(o *Config, clientCAs *x509.CertPool, loopbackToken string, serviceAccountTokens []authenticator.Request, log *slog.Logger) (authenticator.Request, error) {
	tokens := []authenticator.Request{
		bearertoken.New(tokenfile.New(map[string]*user.DefaultInfo{
			loopbackToken: {Name: user.APIServerUser, UID: "kapi-loopback", Groups: []string{user.SystemPrivilegedGrp}},
		})),
	}
	if o.TokenAuthFile != "" {
		tf, err := tokenfile.NewCSV(o.TokenAuthFile, log.With("component", "token-file"))
		if err != nil {
			return nil, fmt.Errorf("--token-auth-file: %w", err)
		}
		tokens = append(tokens, bearertoken.New(tf))
	}
	tokens = append(tokens, serviceAccountTokens...)
	chain := append([]authenticator.Request{x509auth.New(x509auth.StaticCAPool(clientCAs))}, tokens...)
	authn := authenticator.Request(group.NewAuthenticatedGroupAdder(union.New(chain...)))
	if o.AnonymousAuth {
		authn = union.NewFailOnError(authn, anonymous.New())
	}
	return authn, nil
}
