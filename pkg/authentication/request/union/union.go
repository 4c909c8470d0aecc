// Package union combines request authenticators into one.
//
// kube-apiserver builds its authentication chain from two unions:
//
//	chain := union.New(x509, bearertoken, ...)           // credentials, in order
//	chain = group.NewAuthenticatedGroupAdder(chain)       // + system:authenticated
//	if anonymousAuth {
//		chain = union.NewFailOnError(chain, anonymous.New())
//	}
//
// The outer union fails on error so that a request with a bad credential is
// rejected with 401 instead of being served as system:anonymous.
package union

import (
	"net/http"

	utilerrors "k8s.io/apimachinery/pkg/util/errors"

	"github.com/kapi-dev/kapi/pkg/authentication/authenticator"
)

// Authenticator asks a list of authenticators in order.
type Authenticator struct {
	authenticators []authenticator.Request
	failOnError    bool
}

// New returns an authenticator that asks each of authenticators in turn:
// the first one that authenticates the request wins. An error does not stop
// the search, since a later authenticator may accept another credential on
// the same request. If none succeeds, the errors seen are returned together
// (the request is a 401), or none if no authenticator found a credential.
func New(authenticators ...authenticator.Request) *Authenticator {
	return &Authenticator{authenticators: authenticators}
}

// NewFailOnError is like New, except that the first error ends the search
// and is returned as is.
func NewFailOnError(authenticators ...authenticator.Request) *Authenticator {
	return &Authenticator{authenticators: authenticators, failOnError: true}
}

// AuthenticateRequest implements authenticator.Request.
func (u *Authenticator) AuthenticateRequest(req *http.Request) (*authenticator.Response, bool, error) {
	var errs []error
	for _, a := range u.authenticators {
		resp, ok, err := a.AuthenticateRequest(req)
		if err != nil {
			if u.failOnError {
				return resp, ok, err
			}
			errs = append(errs, err)
			continue
		}
		if ok {
			return resp, true, nil
		}
	}
	// NewAggregate returns nil for an empty list, so "nobody found a
	// credential" stays distinguishable from "a credential was invalid".
	return nil, false, utilerrors.NewAggregate(errs)
}
