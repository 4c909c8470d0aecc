// Package authorizerfactory holds the trivial authorizers behind
// --authorization-mode=AlwaysAllow and --authorization-mode=AlwaysDeny.
package authorizerfactory

import (
	"context"

	authorizationv1 "k8s.io/api/authorization/v1"

	"github.com/kapi-dev/kapi/pkg/authentication/user"

	"github.com/kapi-dev/kapi/pkg/authorization/authorizer"
)

// AlwaysDenyReason is kube-apiserver's reason for AlwaysDeny; clients see it
// at the end of the Forbidden message.
const AlwaysDenyReason = "Everything is forbidden."

type alwaysAllow struct{}

// NewAlwaysAllowAuthorizer returns an authorizer that allows every request.
func NewAlwaysAllowAuthorizer() authorizer.Authorizer { return alwaysAllow{} }

func (alwaysAllow) Authorize(context.Context, authorizer.Attributes) (authorizer.Decision, string, error) {
	return authorizer.DecisionAllow, "", nil
}

type alwaysDeny struct{}

// NewAlwaysDenyAuthorizer returns an authorizer that allows nothing.
//
// Like kube-apiserver's, it answers NoOpinion rather than Deny: a request
// nobody allows is forbidden anyway, and later modes in the chain keep their
// say ("AlwaysDeny,RBAC" behaves like "RBAC").
func NewAlwaysDenyAuthorizer() authorizer.Authorizer { return alwaysDeny{} }

func (alwaysDeny) Authorize(context.Context, authorizer.Attributes) (authorizer.Decision, string, error) {
	return authorizer.DecisionNoOpinion, AlwaysDenyReason, nil
}

// RulesFor says that AlwaysAllow allows everything: one rule for every
// resource and one for every path, as kube-apiserver lists them.
func (alwaysAllow) RulesFor(context.Context, user.Info, string) ([]authorizationv1.ResourceRule, []authorizationv1.NonResourceRule, bool, error) {
	return []authorizationv1.ResourceRule{{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}}},
		[]authorizationv1.NonResourceRule{{Verbs: []string{"*"}, NonResourceURLs: []string{"*"}}},
		false, nil
}

// RulesFor says that AlwaysDeny allows nothing, completely.
func (alwaysDeny) RulesFor(context.Context, user.Info, string) ([]authorizationv1.ResourceRule, []authorizationv1.NonResourceRule, bool, error) {
	return nil, nil, false, nil
}
