// Package authorization builds kapi's authorizer from --authorization-mode.
//
// The packages below it hold the authorizers themselves; this one decides
// how they are chained.
package authorization

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	utilerrors "k8s.io/apimachinery/pkg/util/errors"

	"github.com/kapi-dev/kapi/pkg/authentication/user"
	"github.com/kapi-dev/kapi/pkg/authorization/anonymousguard"
	"github.com/kapi-dev/kapi/pkg/authorization/authorizer"
	"github.com/kapi-dev/kapi/pkg/authorization/authorizerfactory"
	"github.com/kapi-dev/kapi/pkg/authorization/path"
	"github.com/kapi-dev/kapi/pkg/authorization/privileged"
	"github.com/kapi-dev/kapi/pkg/authorization/union"
)

// The values --authorization-mode accepts, as spelled by kube-apiserver.
const (
	ModeAlwaysAllow = "AlwaysAllow"
	ModeAlwaysDeny  = "AlwaysDeny"
	ModeABAC        = "ABAC"
	ModeWebhook     = "Webhook"
	ModeRBAC        = "RBAC"
	ModeNode        = "Node"
)

// ModeChoices returns every mode kube-apiserver accepts, in its order, for
// the flag's help text. Not all of them are implemented by kapi yet; New
// says which when asked for one.
func ModeChoices() []string {
	return []string{ModeAlwaysAllow, ModeAlwaysDeny, ModeABAC, ModeWebhook, ModeRBAC, ModeNode}
}

// Built are the authorizers of the modes that need more than their name
// to be made: RBAC and Node read the API through informers, which the
// caller owns, so the caller builds them and hands them in. A nil field
// means the mode cannot be used.
type Built struct {
	RBAC authorizer.Authorizer
	Node authorizer.Authorizer
}

// implemented maps the modes kapi can serve with built to their
// authorizers.
func implemented(built Built) map[string]authorizer.Authorizer {
	m := map[string]authorizer.Authorizer{
		ModeAlwaysAllow: authorizerfactory.NewAlwaysAllowAuthorizer(),
		ModeAlwaysDeny:  authorizerfactory.NewAlwaysDenyAuthorizer(),
	}
	if built.RBAC != nil {
		m[ModeRBAC] = built.RBAC
	}
	if built.Node != nil {
		m[ModeNode] = built.Node
	}
	return m
}

// New returns the authorizer for the ordered list of --authorization-mode
// values. Every problem with the list is reported at once, in
// kube-apiserver's words where it has them.
//
// The chain, asked in order until one authorizer allows or denies:
//
//  1. privileged: members of system:masters may do anything. As in
//     kube-apiserver, this comes before every mode, so an administrator
//     cannot be locked out by a mode's configuration.
//  2. path: anyone may reach anonymousguard.PublicPaths (/healthz, /livez,
//     /readyz, /version), so that health checks work without credentials
//     whatever the modes are.
//  3. the modes, in the order given, with the anonymous guard placed
//     immediately before AlwaysAllow.
//
// Why there and nowhere else: the guard exists because AlwaysAllow cannot
// tell an anonymous request from an authenticated one. A mode before
// AlwaysAllow makes its own decisions, so it still gets to allow anonymous
// requests it was configured to allow (an RBAC binding to
// system:unauthenticated, a webhook's verdict); a mode after AlwaysAllow is
// never reached. With no AlwaysAllow in the list there is nothing to guard.
// The guard is placed whether or not --anonymous-auth is on, because an
// authenticated user can still act as system:anonymous by impersonation,
// and the rule is about the identity, not about how it was obtained.
func New(modes []string, built Built) (authorizer.Authorizer, error) {
	available := implemented(built)
	if err := validate(modes, available); err != nil {
		return nil, err
	}

	public, err := path.New(anonymousguard.PublicPaths())
	if err != nil {
		return nil, err // PublicPaths is fixed and valid: only a bug gets here
	}
	chain := []authorizer.Authorizer{
		privileged.New(user.SystemPrivilegedGrp),
		public,
	}
	for _, mode := range modes {
		if mode == ModeAlwaysAllow {
			chain = append(chain, anonymousguard.New())
		}
		chain = append(chain, available[mode])
	}
	return union.New(chain...), nil
}

func validate(modes []string, available map[string]authorizer.Authorizer) error {
	var errs []error
	if len(modes) == 0 {
		errs = append(errs, errors.New("at least one authorization-mode must be passed"))
	}
	for _, mode := range modes {
		switch {
		case available[mode] != nil:
		case slices.Contains(ModeChoices(), mode):
			errs = append(errs, fmt.Errorf("authorization-mode %q is not implemented by kapi yet; implemented modes are %s",
				mode, strings.Join(implementedModes(available), ", ")))
		default:
			errs = append(errs, fmt.Errorf("authorization-mode %q is not a valid mode", mode))
		}
	}
	if hasDuplicates(modes) {
		errs = append(errs, fmt.Errorf("authorization-mode %q has mode specified more than once", modes))
	}
	return utilerrors.NewAggregate(errs)
}

// implementedModes lists the implemented modes in ModeChoices order.
func implementedModes(available map[string]authorizer.Authorizer) []string {
	var out []string
	for _, m := range ModeChoices() {
		if available[m] != nil {
			out = append(out, m)
		}
	}
	return out
}

func hasDuplicates(modes []string) bool {
	seen := make(map[string]bool, len(modes))
	for _, m := range modes {
		if seen[m] {
			return true
		}
		seen[m] = true
	}
	return false
}
