// Package union chains authorizers: the --authorization-mode list and the
// fixed authorizers kapi puts in front of it.
package union

import (
	"context"
	"strings"

	authorizationv1 "k8s.io/api/authorization/v1"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"

	"github.com/kapi-dev/kapi/pkg/authentication/user"

	"github.com/kapi-dev/kapi/pkg/authorization/authorizer"
)

// Authorizer asks a list of authorizers in order.
type Authorizer []authorizer.Authorizer

// New returns an authorizer that asks each of authorizers in turn. The first
// Allow or Deny is the answer, with that authorizer's reason and error.
// NoOpinion passes the question on, and so does an error: one failing
// authorizer (say, an unreachable webhook) must not hide the answer of the
// next. If nobody decides, the result is NoOpinion — which the caller treats
// as forbidden — with every reason given, one per line, and every error.
func New(authorizers ...authorizer.Authorizer) Authorizer {
	return Authorizer(authorizers)
}

// Authorize implements authorizer.Authorizer.
func (u Authorizer) Authorize(ctx context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
	var (
		errs    []error
		reasons []string
	)
	for _, az := range u {
		decision, reason, err := az.Authorize(ctx, a)
		switch decision {
		case authorizer.DecisionAllow, authorizer.DecisionDeny:
			return decision, reason, err
		}
		if err != nil {
			errs = append(errs, err)
		}
		if reason != "" {
			reasons = append(reasons, reason)
		}
	}
	return authorizer.DecisionNoOpinion, strings.Join(reasons, "\n"), utilerrors.NewAggregate(errs)
}

// Named is an authorizer with the name kube-apiserver gives it in the
// chain: the mode in lower case ("rbac", "abac"), "default" for the
// webhook of the legacy flags, or the name an --authorization-config
// entry carries.
type Named struct {
	Name string
	authorizer.Authorizer
}

// Authorize asks the authorizer and, when it has no opinion, puts its
// name in front of its reason. kube-apiserver 1.37 names every reason of
// an undecided chain so that a user reading a 403 knows which authorizer
// said what ("default: no opinion here\nabac: No policy matched."); a
// decisive reason is left as it is, being the only one.
func (n Named) Authorize(ctx context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
	d, reason, err := n.Authorizer.Authorize(ctx, a)
	if d == authorizer.DecisionNoOpinion && reason != "" && n.Name != "" {
		reason = n.Name + ": " + reason
	}
	return d, reason, err
}

// RuleResolvers lists what a user may do as the union of what each of
// its resolvers lists, in order. The answer is incomplete if any part of
// it is, and every resolver's error is reported, since a rules review
// shows whatever could be found.
type RuleResolvers []authorizer.RuleResolver

// RulesFor implements authorizer.RuleResolver.
func (rs RuleResolvers) RulesFor(ctx context.Context, u user.Info, namespace string) ([]authorizationv1.ResourceRule, []authorizationv1.NonResourceRule, bool, error) {
	var (
		resourceRules    []authorizationv1.ResourceRule
		nonResourceRules []authorizationv1.NonResourceRule
		incomplete       bool
		errs             []error
	)
	for _, r := range rs {
		rr, nr, inc, err := r.RulesFor(ctx, u, namespace)
		resourceRules = append(resourceRules, rr...)
		nonResourceRules = append(nonResourceRules, nr...)
		incomplete = incomplete || inc
		if err != nil {
			errs = append(errs, err)
		}
	}
	return resourceRules, nonResourceRules, incomplete, utilerrors.NewAggregate(errs)
}
