// Package union chains authorizers: the --authorization-mode list and the
// fixed authorizers kapi puts in front of it.
package union

import (
	"context"
	"strings"

	utilerrors "k8s.io/apimachinery/pkg/util/errors"

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
