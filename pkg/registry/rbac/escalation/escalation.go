// Package escalation keeps users from granting through RBAC what they do
// not hold, as kube-apiserver's RBAC storage does.
//
// A user may create or update a Role or ClusterRole only if they already
// hold every rule in it, or may "escalate" on that resource; a binding
// only if they hold every rule of the role it names, or may "bind" that
// role (by name, so a binder can be limited to some roles). Members of
// system:masters skip the check: the server's own loopback identity is
// one, and must be able to write the bootstrap policy.
//
// The registry may not depend on the authorizer's implementation, so what
// it needs is asked through Guard's two small fields: an Authorizer for
// the escalate and bind verbs (the server's whole chain, so that any mode
// may grant them), and Rules for what a user holds.
package escalation

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/pkg/apis/rbac"
	"github.com/kapi-dev/kapi/pkg/authentication/user"
	"github.com/kapi-dev/kapi/pkg/authorization/authorizer"
	"github.com/kapi-dev/kapi/pkg/endpoints/request"
)

// Rules knows what rules users hold and roles grant.
type Rules interface {
	// UserRules returns the rules u holds in namespace, cluster-wide ones
	// included ("" for cluster-wide ones only). A non-nil error means some
	// bindings could not be resolved; the rules returned are those that
	// could, and still count: rules only ever add permissions.
	UserRules(u user.Info, namespace string) ([]rbacv1.PolicyRule, error)
	// RoleRefRules returns the rules of the role ref names: a Role of
	// namespace, or a ClusterRole.
	RoleRefRules(ref rbacv1.RoleRef, namespace string) ([]rbacv1.PolicyRule, error)
}

// Guard decides whether the user of a request may write a role or a
// binding. A nil *Guard allows everything (storage built for tests).
type Guard struct {
	Authorizer authorizer.Authorizer
	Rules      Rules
}

// fullAuthority is what a user must hold to write an aggregationRule: an
// aggregated role gathers rules from roles the writer does not control.
var fullAuthority = []rbacv1.PolicyRule{
	{Verbs: []string{rbacv1.VerbAll}, APIGroups: []string{rbacv1.APIGroupAll}, Resources: []string{rbacv1.ResourceAll}},
	{Verbs: []string{rbacv1.VerbAll}, NonResourceURLs: []string{rbacv1.NonResourceAll}},
}

// CheckRole returns nil if the request's user may store a role (of
// resource, "roles" or "clusterroles") named name with rules, in the
// request's namespace. aggregation says the role sets or changes an
// aggregationRule.
func (g *Guard) CheckRole(ctx context.Context, resource schema.GroupResource, name string, rules []rbacv1.PolicyRule, aggregation bool) error {
	u, ok := g.checked(ctx)
	if !ok {
		return nil
	}
	if g.mayEscalate(ctx, u) {
		return nil
	}
	namespace := request.NamespaceValue(ctx)
	if err := g.confirmHeld(u, namespace, rules); err != nil {
		return apierrors.NewForbidden(resource, name, err)
	}
	if aggregation {
		if err := g.confirmHeld(u, namespace, fullAuthority); err != nil {
			return apierrors.NewForbidden(resource, name, errors.New("must have cluster-admin privileges to use the aggregationRule"))
		}
	}
	return nil
}

// CheckBinding returns nil if the request's user may store a binding (of
// resource, "rolebindings" or "clusterrolebindings") named name that
// grants ref, in the request's namespace ("" for cluster bindings).
func (g *Guard) CheckBinding(ctx context.Context, resource schema.GroupResource, name string, ref rbacv1.RoleRef) error {
	u, ok := g.checked(ctx)
	if !ok {
		return nil
	}
	namespace := request.NamespaceValue(ctx)
	if g.mayBind(ctx, u, ref, namespace) {
		return nil
	}
	rules, err := g.Rules.RoleRefRules(ref, namespace)
	if apierrors.IsNotFound(err) {
		// kube-apiserver reports the missing role under the binding's
		// resource, with the role's name.
		return apierrors.NewNotFound(resource, ref.Name)
	}
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	if err := g.confirmHeld(u, namespace, rules); err != nil {
		return apierrors.NewForbidden(resource, name, err)
	}
	return nil
}

// checked returns the user to check, or false when there is nothing to
// check: no guard, no user (an unauthenticated server) or a member of
// system:masters.
func (g *Guard) checked(ctx context.Context) (user.Info, bool) {
	if g == nil {
		return nil, false
	}
	u, ok := request.UserFrom(ctx)
	if !ok || slices.Contains(u.GetGroups(), user.SystemPrivilegedGrp) {
		return nil, false
	}
	return u, true
}

// mayEscalate asks whether u may "escalate" on the resource of the
// request, as the request names it (so on create, with no name).
func (g *Guard) mayEscalate(ctx context.Context, u user.Info) bool {
	info, ok := request.RequestInfoFrom(ctx)
	if !ok {
		return false
	}
	attrs := authorizer.AttributesRecord{
		User: u, Verb: "escalate", ResourceRequest: true,
		APIGroup: info.APIGroup, APIVersion: info.APIVersion, Resource: info.Resource,
		Namespace: info.Namespace, Name: info.Name,
	}
	d, _, _ := g.Authorizer.Authorize(ctx, attrs)
	return d == authorizer.DecisionAllow
}

// mayBind asks whether u may "bind" the role ref names, in the binding's
// namespace: so a namespace admin can be allowed to hand out a
// ClusterRole within their namespace only.
func (g *Guard) mayBind(ctx context.Context, u user.Info, ref rbacv1.RoleRef, namespace string) bool {
	attrs := authorizer.AttributesRecord{
		User: u, Verb: "bind", ResourceRequest: true,
		APIGroup: ref.APIGroup, Namespace: namespace, Name: ref.Name,
	}
	switch ref.Kind {
	case "Role":
		attrs.Resource = "roles"
	case "ClusterRole":
		attrs.Resource = "clusterroles"
	default:
		return false
	}
	d, _, _ := g.Authorizer.Authorize(ctx, attrs)
	return d == authorizer.DecisionAllow
}

// confirmHeld returns an error in kube-apiserver's words when u lacks
// some of rules in namespace: the missing permissions, merged by
// resource, one per line in sorted order.
func (g *Guard) confirmHeld(u user.Info, namespace string, rules []rbacv1.PolicyRule) error {
	held, resolveErr := g.Rules.UserRules(u, namespace)
	covered, missing := rbac.Covers(held, rules)
	if covered {
		return nil
	}
	var lines []string
	for _, r := range rbac.Compact(missing) {
		lines = append(lines, rbac.CompactString(r))
	}
	slices.Sort(lines)
	lines = slices.Compact(lines)
	msg := fmt.Sprintf("user %q (groups=%q) is attempting to grant RBAC permissions not currently held:\n%s", u.GetName(), u.GetGroups(), strings.Join(lines, "\n"))
	if resolveErr != nil {
		msg += fmt.Sprintf("; resolution errors: [%v]", resolveErr)
	}
	return errors.New(msg)
}
