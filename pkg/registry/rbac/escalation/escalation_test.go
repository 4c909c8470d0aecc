package escalation

import (
	"context"
	"errors"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kapi-dev/kapi/pkg/authentication/user"
	"github.com/kapi-dev/kapi/pkg/authorization/authorizer"
	"github.com/kapi-dev/kapi/pkg/endpoints/request"
)

// fakeRules holds alice's rules and the roles by name.
type fakeRules struct {
	held  []rbacv1.PolicyRule
	err   error
	roles map[string][]rbacv1.PolicyRule
}

func (f fakeRules) UserRules(user.Info, string) ([]rbacv1.PolicyRule, error) { return f.held, f.err }
func (f fakeRules) RoleRefRules(ref rbacv1.RoleRef, _ string) ([]rbacv1.PolicyRule, error) {
	r, ok := f.roles[ref.Name]
	if !ok {
		return nil, apierrors.NewNotFound(rbacv1.Resource("role"), ref.Name)
	}
	return r, nil
}

// allowing allows exactly the listed "verb resource/name" attributes.
func allowing(grants ...string) authorizer.Authorizer {
	return authorizer.AuthorizerFunc(func(_ context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
		for _, g := range grants {
			if g == a.GetVerb()+" "+a.GetResource()+"/"+a.GetName() {
				return authorizer.DecisionAllow, "", nil
			}
		}
		return authorizer.DecisionNoOpinion, "", nil
	})
}

var (
	alice      = &user.DefaultInfo{Name: "alice", Groups: []string{"system:authenticated"}}
	clusterCtx = request.WithRequestInfo(request.WithUser(context.Background(), alice),
		&request.RequestInfo{IsResourceRequest: true, Verb: "create", APIGroup: "rbac.authorization.k8s.io", APIVersion: "v1", Resource: "clusterroles"})
	clusterRoles = rbacv1.Resource("clusterroles")
)

// The oracle's answers to alice (who may create clusterroles and holds no
// other rule) creating, with dryRun, a ClusterRole with the rules below,
// and one with an aggregationRule.
func TestRoleEscalationMessages(t *testing.T) {
	g := &Guard{Authorizer: allowing(), Rules: fakeRules{held: []rbacv1.PolicyRule{
		{APIGroups: []string{rbacv1.GroupName}, Resources: []string{"clusterroles"}, Verbs: []string{"create", "update"}},
	}}}
	rules := []rbacv1.PolicyRule{
		{NonResourceURLs: []string{"/x", "/y/*"}, Verbs: []string{"get"}},
		{APIGroups: []string{"", "apps"}, Resources: []string{"pods", "deployments"}, Verbs: []string{"get", "list"}, ResourceNames: []string{"a", "b"}},
	}
	err := g.CheckRole(clusterCtx, clusterRoles, "h-rbac-agg", rules, false)
	want := `clusterroles.rbac.authorization.k8s.io "h-rbac-agg" is forbidden: user "alice" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:
{APIGroups:[""], Resources:["deployments"], ResourceNames:["a"], Verbs:["get" "list"]}
{APIGroups:[""], Resources:["deployments"], ResourceNames:["b"], Verbs:["get" "list"]}
{APIGroups:[""], Resources:["pods"], ResourceNames:["a"], Verbs:["get" "list"]}
{APIGroups:[""], Resources:["pods"], ResourceNames:["b"], Verbs:["get" "list"]}
{APIGroups:["apps"], Resources:["deployments"], ResourceNames:["a"], Verbs:["get" "list"]}
{APIGroups:["apps"], Resources:["deployments"], ResourceNames:["b"], Verbs:["get" "list"]}
{APIGroups:["apps"], Resources:["pods"], ResourceNames:["a"], Verbs:["get" "list"]}
{APIGroups:["apps"], Resources:["pods"], ResourceNames:["b"], Verbs:["get" "list"]}
{NonResourceURLs:["/x"], Verbs:["get"]}
{NonResourceURLs:["/y/*"], Verbs:["get"]}`
	if err == nil || err.Error() != want || !apierrors.IsForbidden(err) {
		t.Errorf("got  %v\nwant %s", err, want)
	}

	err = g.CheckRole(clusterCtx, clusterRoles, "h-rbac-agg", nil, true)
	want = `clusterroles.rbac.authorization.k8s.io "h-rbac-agg" is forbidden: must have cluster-admin privileges to use the aggregationRule`
	if err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
}

// A user holding a rule through several narrower ones, or through
// wildcards, holds it; what is missing is named after compaction.
func TestRoleCoveredByWildcardsAndSeveralRules(t *testing.T) {
	g := &Guard{Authorizer: allowing(), Rules: fakeRules{held: []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get"}},
		{APIGroups: []string{"*"}, Resources: []string{"pods"}, Verbs: []string{"list"}},
		{APIGroups: []string{""}, Resources: []string{"*/status"}, Verbs: []string{"*"}},
		{NonResourceURLs: []string{"/logs/*"}, Verbs: []string{"get"}},
		{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get"}, ResourceNames: []string{"s1"}},
	}}}
	covered := []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"pods", "pods/status", "nodes/status"}, Verbs: []string{"get"}},
		{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"list"}},
		{NonResourceURLs: []string{"/logs/a", "/logs/*"}, Verbs: []string{"get"}},
		{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get"}, ResourceNames: []string{"s1"}},
	}
	if err := g.CheckRole(clusterCtx, clusterRoles, "r", covered, false); err != nil {
		t.Errorf("covered rules refused: %v", err)
	}
	// A name-restricted rule does not cover all names; pods/log is not a
	// status subresource.
	err := g.CheckRole(clusterCtx, clusterRoles, "r", []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"secrets", "pods/log"}, Verbs: []string{"get", "watch"}},
	}, false)
	want := `clusterroles.rbac.authorization.k8s.io "r" is forbidden: user "alice" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:
{APIGroups:[""], Resources:["pods/log"], Verbs:["get" "watch"]}
{APIGroups:[""], Resources:["secrets"], Verbs:["get" "watch"]}`
	if err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
}

// The rules that could be resolved count; the others are named.
func TestResolutionErrorsAreReported(t *testing.T) {
	g := &Guard{Authorizer: allowing(), Rules: fakeRules{err: errors.New(`clusterrole.rbac.authorization.k8s.io "gone" not found`)}}
	err := g.CheckRole(clusterCtx, clusterRoles, "r", []rbacv1.PolicyRule{{NonResourceURLs: []string{"/x"}, Verbs: []string{"get"}}}, false)
	want := `clusterroles.rbac.authorization.k8s.io "r" is forbidden: user "alice" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:
{NonResourceURLs:["/x"], Verbs:["get"]}; resolution errors: [clusterrole.rbac.authorization.k8s.io "gone" not found]`
	if err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
}

func TestWhoSkipsTheCheck(t *testing.T) {
	rules := []rbacv1.PolicyRule{{NonResourceURLs: []string{"/x"}, Verbs: []string{"get"}}}
	none := fakeRules{}
	cases := []struct {
		name  string
		guard *Guard
		ctx   context.Context
	}{
		{"no guard", nil, clusterCtx},
		{"system:masters", &Guard{Authorizer: allowing(), Rules: none},
			request.WithUser(clusterCtx, &user.DefaultInfo{Name: "root", Groups: []string{"system:masters"}})},
		{"escalate on the resource", &Guard{Authorizer: allowing("escalate clusterroles/"), Rules: none}, clusterCtx},
	}
	for _, tc := range cases {
		if err := tc.guard.CheckRole(tc.ctx, clusterRoles, "r", rules, true); err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
	if err := (&Guard{Authorizer: allowing(), Rules: none}).CheckRole(clusterCtx, clusterRoles, "r", rules, false); err == nil {
		t.Error("a user without the rule nor escalate may write it")
	}
}

// bind is asked for the role the binding names, in the binding's
// namespace; a missing role is reported under the binding's resource.
func TestBinding(t *testing.T) {
	ctx := request.WithNamespace(request.WithUser(context.Background(), alice), "h-rbac")
	roles := fakeRules{roles: map[string][]rbacv1.PolicyRule{
		"deployer": {{APIGroups: []string{"apps"}, Resources: []string{"deployments"}, Verbs: []string{"create", "delete"}}},
		"empty":    nil,
	}}
	rolebindings := rbacv1.Resource("rolebindings")
	ref := func(kind, name string) rbacv1.RoleRef {
		return rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: kind, Name: name}
	}
	g := &Guard{Authorizer: allowing("bind roles/deployer"), Rules: roles}
	if err := g.CheckBinding(ctx, rolebindings, "b", ref("Role", "deployer")); err != nil {
		t.Errorf("bind on the role by name: %v", err)
	}
	if err := g.CheckBinding(ctx, rolebindings, "b", ref("ClusterRole", "deployer")); err == nil {
		t.Error("bind on the Role deployer allowed binding the ClusterRole deployer")
	}
	if err := g.CheckBinding(ctx, rolebindings, "b", ref("Role", "empty")); err != nil {
		t.Errorf("a role with no rules: %v", err)
	}
	err := g.CheckBinding(ctx, rolebindings, "b", ref("Role", "nope"))
	if want := `rolebindings.rbac.authorization.k8s.io "nope" not found`; err == nil || err.Error() != want || !apierrors.IsNotFound(err) {
		t.Errorf("missing role: got %v, want %s", err, want)
	}
}
