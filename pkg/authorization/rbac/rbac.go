// Package rbac is kube-apiserver's RBAC authorizer: a request is allowed
// when a rule of a role bound to its user allows it, through a
// ClusterRoleBinding (anywhere) or a RoleBinding of the request's
// namespace; otherwise RBAC has no opinion and the next authorizer is
// asked.
//
// It reads roles and bindings from informer caches (the server's loopback
// informers), never from storage, and finds a user's bindings through an
// index by subject (index.go) rather than by walking every binding.
// The rule matching itself is package pkg/apis/rbac's, shared with the
// escalation check of the registry.
package rbac

import (
	"context"
	"fmt"
	"slices"
	"strings"

	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/client-go/tools/cache"

	"github.com/kapi-dev/kapi/pkg/apis/rbac"
	"github.com/kapi-dev/kapi/pkg/authentication/user"
	"github.com/kapi-dev/kapi/pkg/authorization/authorizer"
)

// Authorizer is the RBAC authorizer and rule resolver.
type Authorizer struct {
	roles               cache.Indexer
	roleBindings        cache.Indexer
	clusterRoles        cache.Indexer
	clusterRoleBindings cache.Indexer
}

var (
	_ authorizer.Authorizer   = (*Authorizer)(nil)
	_ authorizer.RuleResolver = (*Authorizer)(nil)
)

// New returns an authorizer over four caches. The binding caches must
// carry Indexers().
func New(roles, roleBindings, clusterRoles, clusterRoleBindings cache.Indexer) *Authorizer {
	return &Authorizer{roles: roles, roleBindings: roleBindings, clusterRoles: clusterRoles, clusterRoleBindings: clusterRoleBindings}
}

// Informers are the shared informers of the four RBAC kinds.
type Informers struct {
	Roles, RoleBindings, ClusterRoles, ClusterRoleBindings cache.SharedIndexInformer
}

// NewFromInformers adds the subject index to the binding informers of f
// and returns an authorizer over their caches. Call it before the
// informers start: an index cannot be added to a running informer.
func NewFromInformers(f Informers) (*Authorizer, error) {
	rb, crb := f.RoleBindings, f.ClusterRoleBindings
	for _, inf := range []cache.SharedIndexInformer{rb, crb} {
		if err := inf.AddIndexers(Indexers()); err != nil {
			return nil, fmt.Errorf("rbac: %w", err)
		}
	}
	return New(f.Roles.GetIndexer(), rb.GetIndexer(), f.ClusterRoles.GetIndexer(), crb.GetIndexer()), nil
}

// Authorize allows the request if a rule bound to its user allows it.
// The reason of an allow names the binding, as kube-apiserver's does
// (`RBAC: allowed by ClusterRoleBinding "x" of ClusterRole "y" to User
// "z"`). Otherwise RBAC has no opinion; the reason then lists the bindings
// whose role could not be found, if any.
func (a *Authorizer) Authorize(_ context.Context, attrs authorizer.Attributes) (authorizer.Decision, string, error) {
	req := requestOf(attrs)
	var reason string
	var errs []error
	u := attrs.GetUser()
	if u == nil {
		return authorizer.DecisionNoOpinion, "", nil
	}
	a.visit(u, attrs.GetNamespace(), func(source fmt.Stringer, rules []rbacv1.PolicyRule, err error) bool {
		if err != nil {
			errs = append(errs, err)
			return true
		}
		for i := range rules {
			if rbac.Allows(&rules[i], req) {
				reason = "RBAC: allowed by " + source.String()
				return false
			}
		}
		return true
	})
	if reason != "" {
		return authorizer.DecisionAllow, reason, nil
	}
	if len(errs) > 0 {
		return authorizer.DecisionNoOpinion, "RBAC: " + utilerrors.NewAggregate(errs).Error(), nil
	}
	return authorizer.DecisionNoOpinion, "", nil
}

func requestOf(attrs authorizer.Attributes) rbac.Request {
	return rbac.Request{
		Verb: attrs.GetVerb(), ResourceRequest: attrs.IsResourceRequest(),
		APIGroup: attrs.GetAPIGroup(), Resource: attrs.GetResource(), Subresource: attrs.GetSubresource(),
		Name: attrs.GetName(), Path: attrs.GetPath(),
	}
}

// UserRules returns every rule u holds in namespace, cluster-wide ones
// first; "" gives the cluster-wide ones only. The error lists the bindings
// that could not be resolved; the rules of the others are returned.
func (a *Authorizer) UserRules(u user.Info, namespace string) ([]rbacv1.PolicyRule, error) {
	var rules []rbacv1.PolicyRule
	var errs []error
	a.visit(u, namespace, func(_ fmt.Stringer, r []rbacv1.PolicyRule, err error) bool {
		if err != nil {
			errs = append(errs, err)
		}
		rules = append(rules, r...)
		return true
	})
	return rules, utilerrors.NewAggregate(errs)
}

// RulesFor implements authorizer.RuleResolver: u's rules in namespace, as
// SelfSubjectRulesReview reports them, one entry per rule of each binding
// (a rule with both resources and URLs, which validation forbids, would
// give one of each).
func (a *Authorizer) RulesFor(_ context.Context, u user.Info, namespace string) ([]authorizationv1.ResourceRule, []authorizationv1.NonResourceRule, bool, error) {
	rules, err := a.UserRules(u, namespace)
	var resourceRules []authorizationv1.ResourceRule
	var nonResourceRules []authorizationv1.NonResourceRule
	for _, r := range rules {
		if len(r.Resources) > 0 {
			resourceRules = append(resourceRules, authorizationv1.ResourceRule{
				Verbs: r.Verbs, APIGroups: r.APIGroups, Resources: r.Resources, ResourceNames: r.ResourceNames,
			})
		}
		if len(r.NonResourceURLs) > 0 {
			nonResourceRules = append(nonResourceRules, authorizationv1.NonResourceRule{Verbs: r.Verbs, NonResourceURLs: r.NonResourceURLs})
		}
	}
	// As kube-apiserver: a binding whose role is missing makes an error,
	// not an incomplete answer (SelfSubjectRulesReview then reports
	// incomplete false with the error as evaluationError); the rules of
	// every other binding are all there.
	return resourceRules, nonResourceRules, false, err
}

// RoleRefRules returns the rules of the role ref names: a Role of
// namespace or a ClusterRole. A missing role is a NotFound error in the
// words of client-go's listers, as kube-apiserver reports it.
func (a *Authorizer) RoleRefRules(ref rbacv1.RoleRef, namespace string) ([]rbacv1.PolicyRule, error) {
	switch ref.Kind {
	case "Role":
		obj, ok, err := a.roles.GetByKey(namespace + "/" + ref.Name)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, apierrors.NewNotFound(rbacv1.Resource("role"), ref.Name)
		}
		return obj.(*rbacv1.Role).Rules, nil
	case "ClusterRole":
		obj, ok, err := a.clusterRoles.GetByKey(ref.Name)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, apierrors.NewNotFound(rbacv1.Resource("clusterrole"), ref.Name)
		}
		return obj.(*rbacv1.ClusterRole).Rules, nil
	}
	return nil, fmt.Errorf("unsupported role reference kind: %q", ref.Kind)
}

// visitor receives the rules of one binding that applies to the user
// (source describes it, when asked: only an allow needs the words), or
// the error resolving its role. It returns false to stop.
type visitor func(source fmt.Stringer, rules []rbacv1.PolicyRule, err error) bool

// bindingSource describes a binding as kube-apiserver's reasons do.
type bindingSource struct {
	kind, name string // "RoleBinding", "name/namespace"
	namespace  string
	ref        rbacv1.RoleRef
	subjects   []rbacv1.Subject
	user       user.Info
}

func (s bindingSource) String() string {
	return fmt.Sprintf("%s %q of %s %q to %s", s.kind, s.name, s.ref.Kind, s.ref.Name, describe(s.subjects, s.namespace, s.user))
}

// visit calls v for each binding of u: ClusterRoleBindings first, then the
// RoleBindings of namespace, each group by name, so that when several
// bindings allow a request the reason is always the same one.
func (a *Authorizer) visit(u user.Info, namespace string, v visitor) {
	for _, b := range bindingsOf[*rbacv1.ClusterRoleBinding](a.clusterRoleBindings, u, "") {
		rules, err := a.RoleRefRules(b.RoleRef, "")
		source := bindingSource{kind: "ClusterRoleBinding", name: b.Name, ref: b.RoleRef, subjects: b.Subjects, user: u}
		if !v(source, rules, err) {
			return
		}
	}
	if namespace == "" {
		return
	}
	for _, b := range bindingsOf[*rbacv1.RoleBinding](a.roleBindings, u, namespace) {
		rules, err := a.RoleRefRules(b.RoleRef, namespace)
		source := bindingSource{kind: "RoleBinding", name: b.Name + "/" + b.Namespace, namespace: namespace, ref: b.RoleRef, subjects: b.Subjects, user: u}
		if !v(source, rules, err) {
			return
		}
	}
}

// bindingsOf returns the bindings of u in namespace from the subject
// index, each once, sorted by name.
func bindingsOf[T interface {
	*rbacv1.RoleBinding | *rbacv1.ClusterRoleBinding
	GetName() string
}](idx cache.Indexer, u user.Info, namespace string) []T {
	keys := make([]string, 0, 1+len(u.GetGroups()))
	keys = append(keys, userKey(namespace, u.GetName()))
	for _, g := range u.GetGroups() {
		keys = append(keys, groupKey(namespace, g))
	}
	var out []T
	for _, k := range keys {
		objs, err := idx.ByIndex(SubjectIndex, k)
		if err != nil {
			continue // the index is missing: a wiring bug, and no binding applies
		}
		for _, o := range objs {
			if b, ok := o.(T); ok && !slices.ContainsFunc(out, func(x T) bool { return x.GetName() == b.GetName() }) {
				out = append(out, b)
			}
		}
	}
	slices.SortFunc(out, func(x, y T) int { return strings.Compare(x.GetName(), y.GetName()) })
	return out
}

// describe names the first subject of a binding that applies to u, as
// kube-apiserver's reasons do: `User "alice"`, `Group "g"`,
// `ServiceAccount "name/namespace"`.
func describe(subjects []rbacv1.Subject, namespace string, u user.Info) string {
	for _, s := range subjects {
		k, ok := subjectKey(namespace, s)
		if !ok || !appliesTo(k, namespace, u) {
			continue
		}
		if s.Kind == rbacv1.ServiceAccountKind {
			ns := s.Namespace
			if ns == "" {
				ns = namespace
			}
			return fmt.Sprintf("%s %q", s.Kind, s.Name+"/"+ns)
		}
		return fmt.Sprintf("%s %q", s.Kind, s.Name)
	}
	return "" // not reached: the binding was found under one of u's keys
}

func appliesTo(key, namespace string, u user.Info) bool {
	if key == userKey(namespace, u.GetName()) {
		return true
	}
	return slices.ContainsFunc(u.GetGroups(), func(g string) bool { return key == groupKey(namespace, g) })
}
