// Package anonymousguard keeps anonymous requests out of
// --authorization-mode=AlwaysAllow.
//
// kube-apiserver with --anonymous-auth=true (the default) and
// --authorization-mode=AlwaysAllow (also the default) lets anyone who can
// reach the port read and write everything. kapi starts with no flags at
// all, so it must not inherit that: a zero-config start is never open to
// anonymous requests. Until an authorization mode that judges anonymous
// requests by itself (RBAC, Node, Webhook) is configured, anonymous
// requests reach only the public health and version endpoints, the same
// ones RBAC's system:public-info-viewer role opens to everyone.
//
// The guard is one link of the chain built by authorization.New: a path
// authorizer allowing PublicPaths comes first, then the guard, then
// AlwaysAllow. Anything else an anonymous request asks for is denied here,
// before AlwaysAllow can allow it.
package anonymousguard

import (
	"context"
	"slices"

	"github.com/kapi-dev/kapi/pkg/authentication/user"
	"github.com/kapi-dev/kapi/pkg/authorization/authorizer"
)

// Reason is the reason of the guard's denials; the client sees it at the end
// of the Forbidden message. It says what is allowed and how to get further.
const Reason = "kapi allows anonymous requests only to /healthz, /livez, /readyz and /version " +
	"when --authorization-mode is AlwaysAllow; authenticate, e.g. with admin.kubeconfig from kapi's data dir"

// PublicPaths returns the non-resource paths anonymous requests may reach:
// those of RBAC's system:public-info-viewer role. Sub-paths such as
// /healthz/etcd are not public, in RBAC either.
func PublicPaths() []string {
	return []string{"/healthz", "/livez", "/readyz", "/version", "/version/"}
}

// Authorizer denies every anonymous request and has no opinion on the
// others.
type Authorizer struct{}

// New returns the guard.
func New() *Authorizer { return &Authorizer{} }

// Authorize implements authorizer.Authorizer.
//
// A request is anonymous if its user is system:anonymous or belongs to
// system:unauthenticated, however it got that identity (the anonymous
// authenticator, or impersonation). A request with no user at all is treated
// as anonymous too: the guard fails closed.
func (*Authorizer) Authorize(_ context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
	if isAnonymous(a.GetUser()) {
		return authorizer.DecisionDeny, Reason, nil
	}
	return authorizer.DecisionNoOpinion, "", nil
}

func isAnonymous(u user.Info) bool {
	return u == nil || u.GetName() == user.Anonymous || slices.Contains(u.GetGroups(), user.AllUnauthenticated)
}
