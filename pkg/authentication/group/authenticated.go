// Package group adds groups to the users other authenticators return.
package group

import (
	"net/http"
	"slices"

	"github.com/kapi-dev/kapi/pkg/authentication/authenticator"
	"github.com/kapi-dev/kapi/pkg/authentication/user"
)

// AuthenticatedGroupAdder puts every user its delegate authenticates into the
// group system:authenticated, which is how RBAC's default bindings (for
// example system:basic-user and system:discovery) reach all real users.
//
// The anonymous user is left alone: it is system:unauthenticated, never
// both. A user that already carries either group is returned unchanged, so
// the group is never added twice and never added to a user that another
// authenticator has deliberately marked unauthenticated.
type AuthenticatedGroupAdder struct {
	Authenticator authenticator.Request
}

// NewAuthenticatedGroupAdder wraps auth.
func NewAuthenticatedGroupAdder(auth authenticator.Request) *AuthenticatedGroupAdder {
	return &AuthenticatedGroupAdder{Authenticator: auth}
}

// AuthenticateRequest implements authenticator.Request.
func (g *AuthenticatedGroupAdder) AuthenticateRequest(req *http.Request) (*authenticator.Response, bool, error) {
	resp, ok, err := g.Authenticator.AuthenticateRequest(req)
	if err != nil || !ok {
		return nil, false, err
	}
	u := resp.User
	if u.GetName() == user.Anonymous {
		return resp, true, nil
	}
	groups := u.GetGroups()
	if slices.Contains(groups, user.AllAuthenticated) || slices.Contains(groups, user.AllUnauthenticated) {
		return resp, true, nil
	}

	// Build a new user rather than appending in place: the delegate may hand
	// out the same Info (and the same groups slice) to every request.
	withGroup := make([]string, 0, len(groups)+1)
	withGroup = append(withGroup, groups...)
	withGroup = append(withGroup, user.AllAuthenticated)
	out := *resp
	out.User = &user.DefaultInfo{
		Name:   u.GetName(),
		UID:    u.GetUID(),
		Groups: withGroup,
		Extra:  u.GetExtra(),
	}
	return &out, true, nil
}
