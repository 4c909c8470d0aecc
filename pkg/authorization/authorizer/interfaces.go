// Package authorizer defines how a request's attributes are judged.
package authorizer

import (
	"context"

	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kapi-dev/kapi/pkg/authentication/user"
)

// Attributes are what an authorizer sees of a request.
type Attributes interface {
	GetUser() user.Info
	GetVerb() string
	IsReadOnly() bool
	GetNamespace() string
	GetResource() string
	GetSubresource() string
	GetName() string
	GetAPIGroup() string
	GetAPIVersion() string
	IsResourceRequest() bool
	GetPath() string
	// GetFieldSelector and GetLabelSelector are the requirements of the
	// selectors of a list, watch or deletecollection request, so that an
	// authorizer may allow a narrowed read ("pods on my node") that it
	// would not allow unrestricted. Selectors only narrow a request: an
	// authorizer that ignores them stays safe. err is the selector's parse
	// error; requirements parsed before it may still be returned.
	GetFieldSelector() (fields.Requirements, error)
	GetLabelSelector() (labels.Requirements, error)
}

// Decision is an authorizer's verdict.
type Decision int

const (
	// DecisionDeny means the request is forbidden, and no later
	// authorizer is asked.
	DecisionDeny Decision = iota
	// DecisionAllow means the request may proceed.
	DecisionAllow
	// DecisionNoOpinion passes the question to the next authorizer.
	DecisionNoOpinion
)

// Authorizer judges a request. reason explains the decision to the user.
type Authorizer interface {
	Authorize(ctx context.Context, a Attributes) (decision Decision, reason string, err error)
}

// AuthorizerFunc adapts a function to Authorizer.
type AuthorizerFunc func(ctx context.Context, a Attributes) (Decision, string, error)

func (f AuthorizerFunc) Authorize(ctx context.Context, a Attributes) (Decision, string, error) {
	return f(ctx, a)
}

// AttributesRecord is a plain Attributes.
type AttributesRecord struct {
	User            user.Info
	Verb            string
	Namespace       string
	APIGroup        string
	APIVersion      string
	Resource        string
	Subresource     string
	Name            string
	ResourceRequest bool
	Path            string

	FieldSelectorRequirements fields.Requirements
	FieldSelectorParsingErr   error
	LabelSelectorRequirements labels.Requirements
	LabelSelectorParsingErr   error
}

func (a AttributesRecord) GetUser() user.Info      { return a.User }
func (a AttributesRecord) GetVerb() string         { return a.Verb }
func (a AttributesRecord) GetNamespace() string    { return a.Namespace }
func (a AttributesRecord) GetResource() string     { return a.Resource }
func (a AttributesRecord) GetSubresource() string  { return a.Subresource }
func (a AttributesRecord) GetName() string         { return a.Name }
func (a AttributesRecord) GetAPIGroup() string     { return a.APIGroup }
func (a AttributesRecord) GetAPIVersion() string   { return a.APIVersion }
func (a AttributesRecord) IsResourceRequest() bool { return a.ResourceRequest }
func (a AttributesRecord) GetPath() string         { return a.Path }

func (a AttributesRecord) GetFieldSelector() (fields.Requirements, error) {
	return a.FieldSelectorRequirements, a.FieldSelectorParsingErr
}

func (a AttributesRecord) GetLabelSelector() (labels.Requirements, error) {
	return a.LabelSelectorRequirements, a.LabelSelectorParsingErr
}

// IsReadOnly reports whether the verb only reads.
func (a AttributesRecord) IsReadOnly() bool {
	switch a.Verb {
	case "get", "list", "watch":
		return true
	}
	return false
}

// RuleResolver lists what a user may do, as SelfSubjectRulesReview
// reports it (`kubectl auth can-i --list`). Authorizers that can say so
// (RBAC, the Node authorizer, a webhook that cannot) implement it beside
// Authorizer.
type RuleResolver interface {
	// RulesFor returns the rules u has in namespace, cluster-wide ones
	// included. incomplete is true when the answer may leave rules out
	// (an authorizer that cannot list, a binding that failed to resolve);
	// err then says why.
	RulesFor(ctx context.Context, u user.Info, namespace string) (resourceRules []authorizationv1.ResourceRule, nonResourceRules []authorizationv1.NonResourceRule, incomplete bool, err error)
}
