// Package union asks several token authenticators about one bearer token,
// as kube-apiserver's token union does: the token file, service-account
// tokens, bootstrap tokens, JWT issuers and the webhook each get a look at
// the same "Authorization: Bearer" value, in that order.
package union

import (
	"context"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"

	"github.com/kapi-dev/kapi/pkg/authentication/authenticator"
)

// Authenticator is a list of token authenticators.
type Authenticator []authenticator.Token

// New returns the union of tokens, asked in order.
func New(tokens ...authenticator.Token) Authenticator { return tokens }

// AuthenticateToken returns the first success. An error does not stop the
// search (a JWT that one issuer rejects may be another's); if no
// authenticator accepts the token, the errors are returned together, or
// none if every authenticator simply did not know it.
func (u Authenticator) AuthenticateToken(ctx context.Context, token string) (*authenticator.Response, bool, error) {
	var errs []error
	for _, a := range u {
		resp, ok, err := a.AuthenticateToken(ctx, token)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if ok {
			return resp, true, nil
		}
	}
	return nil, false, utilerrors.NewAggregate(errs)
}
