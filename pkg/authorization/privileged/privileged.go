// Package privileged allows everything to members of privileged groups.
//
// kube-apiserver asks this authorizer first, for the group system:masters,
// whatever --authorization-mode says: cluster administrators must never be
// locked out by a mistake in RBAC or an unreachable webhook.
package privileged

import (
	"context"
	"errors"
	"slices"

	"github.com/kapi-dev/kapi/pkg/authorization/authorizer"
)

// errNoUser reports a request that reached authorization without passing
// authentication, which is a bug in the filter chain.
var errNoUser = errors.New("no user on request")

// Authorizer allows any request by a member of one of its groups and has no
// opinion on the others.
type Authorizer struct {
	groups []string
}

// New returns an authorizer for the given privileged groups, typically
// user.SystemPrivilegedGrp.
func New(groups ...string) *Authorizer {
	return &Authorizer{groups: slices.Clone(groups)}
}

// Authorize implements authorizer.Authorizer.
func (p *Authorizer) Authorize(_ context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
	u := a.GetUser()
	if u == nil {
		return authorizer.DecisionNoOpinion, "", errNoUser
	}
	for _, g := range u.GetGroups() {
		if slices.Contains(p.groups, g) {
			return authorizer.DecisionAllow, "", nil
		}
	}
	return authorizer.DecisionNoOpinion, "", nil
}
