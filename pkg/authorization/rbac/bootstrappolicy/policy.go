// Package bootstrappolicy is the RBAC policy kube-apiserver 1.37 creates
// at start-up: every ClusterRole, ClusterRoleBinding, Role and
// RoleBinding of a fresh cluster, with kube-apiserver's names, labels,
// annotations, rules (in its order), subjects and aggregation rules.
//
// The policy is data: the declarations in clusterroles.go,
// controllers.go, bindings.go and namespaced.go, written with the small
// rule builder below, and Default, which turns them into API objects.
// Every object carries the label kubernetes.io/bootstrapping=rbac-defaults
// and the annotation rbac.authorization.kubernetes.io/autoupdate=true; the
// reconciler (package reconciliation) keeps them in place at every start
// unless an administrator sets the annotation to "false".
//
// The policy is the one kube-apiserver 1.37.1 creates with its default
// feature gates: rules upstream adds only behind a gate that is off by
// default are not here, and the rules of gates on by default are.
//
// The aggregated roles (admin, edit, view) are declared without rules:
// their rules are the union of the roles their aggregationRule selects,
// which the ClusterRole aggregation controller computes. The test
// compares all 141 objects with testdata/kube-apiserver-policy.json,
// recorded from kube-apiserver 1.37.1, the aggregated ones after running
// the aggregation over this policy.
package bootstrappolicy

import (
	"sort"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const (
	// AutoUpdateAnnotation marks an object the reconciler may update;
	// an administrator opts an object out by setting it to "false".
	AutoUpdateAnnotation = "rbac.authorization.kubernetes.io/autoupdate"
	// BootstrappingLabel marks every object of the policy.
	BootstrappingLabel = "kubernetes.io/bootstrapping"
	// AggregateToLabelPrefix starts the label that adds a ClusterRole's
	// rules to admin, edit or view: rbac.authorization.k8s.io/aggregate-to-<role>.
	AggregateToLabelPrefix = "rbac.authorization.k8s.io/aggregate-to-"

	bootstrappingValue = "rbac-defaults"
	controllerPrefix   = "system:controller:"
	// controllerNamespace holds the service accounts of
	// kube-controller-manager's controllers, which the controller roles
	// are bound to.
	controllerNamespace = metav1.NamespaceSystem
)

// Policy is the whole bootstrap policy, in the order the reconciler
// applies it.
type Policy struct {
	ClusterRoles        []rbacv1.ClusterRole
	ClusterRoleBindings []rbacv1.ClusterRoleBinding
	Roles               []rbacv1.Role
	RoleBindings        []rbacv1.RoleBinding
	// ClusterRolesToAggregate maps the name a role had before it became
	// aggregated to the role that now carries its own rules: a cluster
	// that customised admin, edit or view before 1.9 keeps those rules
	// in system:aggregate-to-*.
	ClusterRolesToAggregate map[string]string
	// ClusterRoleBindingsToSplit maps a binding that once granted more
	// to the binding now split from it: system:discovery granted the
	// public info to everyone before system:public-info-viewer existed,
	// and a cluster that changed its subjects keeps them.
	ClusterRoleBindingsToSplit map[string]rbacv1.ClusterRoleBinding
}

// Default returns kube-apiserver 1.37's bootstrap policy. Every call
// returns new objects, which the caller may change.
func Default() Policy {
	p := Policy{
		ClusterRolesToAggregate: map[string]string{
			"admin": "system:aggregate-to-admin",
			"edit":  "system:aggregate-to-edit",
			"view":  "system:aggregate-to-view",
		},
		ClusterRoleBindingsToSplit: map[string]rbacv1.ClusterRoleBinding{},
	}
	for _, s := range clusterRoleSpecs {
		p.ClusterRoles = append(p.ClusterRoles, s.object())
	}
	for _, c := range controllerSpecs {
		p.ClusterRoles = append(p.ClusterRoles, clusterRoleSpec{name: controllerPrefix + c.name, rules: c.rules}.object())
	}
	for _, s := range clusterRoleBindingSpecs {
		p.ClusterRoleBindings = append(p.ClusterRoleBindings, s.object())
	}
	for _, c := range controllerSpecs {
		b := clusterRoleBindingSpec{name: controllerPrefix + c.name, subjects: []rbacv1.Subject{serviceAccount(controllerNamespace, c.name)}}
		p.ClusterRoleBindings = append(p.ClusterRoleBindings, b.object())
	}
	for _, s := range roleSpecs {
		p.Roles = append(p.Roles, rbacv1.Role{ObjectMeta: meta(s.namespace, s.name, nil), Rules: copyRules(s.rules)})
	}
	for _, s := range roleBindingSpecs {
		p.RoleBindings = append(p.RoleBindings, rbacv1.RoleBinding{
			ObjectMeta: meta(s.namespace, s.name, nil),
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: s.role},
			Subjects:   append([]rbacv1.Subject(nil), s.subjects...),
		})
	}
	for _, b := range p.ClusterRoleBindings {
		if b.Name == "system:public-info-viewer" {
			p.ClusterRoleBindingsToSplit["system:discovery"] = *b.DeepCopy()
		}
	}
	return p
}

// clusterRoleSpec declares a ClusterRole.
type clusterRoleSpec struct {
	name string
	// aggregateTo, when set, labels the role so that its rules are
	// aggregated into the role of that name (admin, edit or view).
	aggregateTo string
	// aggregates, when set, makes the role an aggregated one: its rules
	// are those of the roles labelled aggregate-to-<aggregates>.
	aggregates string
	rules      []rbacv1.PolicyRule
}

func (s clusterRoleSpec) object() rbacv1.ClusterRole {
	var extra map[string]string
	if s.aggregateTo != "" {
		extra = map[string]string{AggregateToLabelPrefix + s.aggregateTo: "true"}
	}
	r := rbacv1.ClusterRole{ObjectMeta: meta("", s.name, extra), Rules: copyRules(s.rules)}
	if s.aggregates != "" {
		r.AggregationRule = &rbacv1.AggregationRule{ClusterRoleSelectors: []metav1.LabelSelector{
			{MatchLabels: map[string]string{AggregateToLabelPrefix + s.aggregates: "true"}},
		}}
	}
	return r
}

// clusterRoleBindingSpec declares a ClusterRoleBinding to the
// ClusterRole of the same name, as every bootstrap binding is.
type clusterRoleBindingSpec struct {
	name     string
	subjects []rbacv1.Subject
}

func (s clusterRoleBindingSpec) object() rbacv1.ClusterRoleBinding {
	return rbacv1.ClusterRoleBinding{
		ObjectMeta: meta("", s.name, nil),
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: s.name},
		Subjects:   append([]rbacv1.Subject(nil), s.subjects...),
	}
}

// controllerSpec declares the role of one of kube-controller-manager's
// controllers: ClusterRole system:controller:<name>, bound to the service
// account kube-system/<name> the controller runs as.
type controllerSpec struct {
	name  string
	rules []rbacv1.PolicyRule
}

// roleSpec and roleBindingSpec declare the namespaced objects.
type roleSpec struct {
	namespace, name string
	rules           []rbacv1.PolicyRule
}

type roleBindingSpec struct {
	namespace, name string
	role            string
	subjects        []rbacv1.Subject
}

func meta(namespace, name string, extraLabels map[string]string) metav1.ObjectMeta {
	labels := map[string]string{BootstrappingLabel: bootstrappingValue}
	for k, v := range extraLabels {
		labels[k] = v
	}
	return metav1.ObjectMeta{
		Namespace:   namespace,
		Name:        name,
		Labels:      labels,
		Annotations: map[string]string{AutoUpdateAnnotation: "true"},
	}
}

func copyRules(rules []rbacv1.PolicyRule) []rbacv1.PolicyRule {
	if rules == nil {
		return nil
	}
	out := make([]rbacv1.PolicyRule, len(rules))
	for i := range rules {
		rules[i].DeepCopyInto(&out[i])
	}
	return out
}

// The rule builder. kube-apiserver sorts the verbs, groups, resources,
// names and URLs of each bootstrap rule, and so does build: a
// declaration may list them in any order.

// core is the API group of the legacy /api/v1 resources.
const core = ""

var (
	read      = []string{"get", "list", "watch"}
	readWrite = []string{"get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"}
	// eventsRule lets a component record events through either events API.
	eventsRule = rule("create", "update", "patch").groups(core, "events.k8s.io").resources("events")
)

// ruleBuilder is a PolicyRule under construction.
type ruleBuilder struct{ r rbacv1.PolicyRule }

func rule(verbs ...string) ruleBuilder {
	return ruleBuilder{rbacv1.PolicyRule{Verbs: append([]string(nil), verbs...)}}
}

func (b ruleBuilder) groups(g ...string) ruleBuilder {
	b.r.APIGroups = append(append([]string(nil), b.r.APIGroups...), g...)
	return b
}

func (b ruleBuilder) resources(r ...string) ruleBuilder {
	b.r.Resources = append(append([]string(nil), b.r.Resources...), r...)
	return b
}

func (b ruleBuilder) names(n ...string) ruleBuilder {
	b.r.ResourceNames = append(append([]string(nil), b.r.ResourceNames...), n...)
	return b
}

func (b ruleBuilder) urls(u ...string) ruleBuilder {
	b.r.NonResourceURLs = append(append([]string(nil), b.r.NonResourceURLs...), u...)
	return b
}

func (b ruleBuilder) build() rbacv1.PolicyRule {
	r := *b.r.DeepCopy()
	for _, s := range [][]string{r.Verbs, r.APIGroups, r.Resources, r.ResourceNames, r.NonResourceURLs} {
		sort.Strings(s)
	}
	return r
}

func rules(bs ...ruleBuilder) []rbacv1.PolicyRule {
	out := make([]rbacv1.PolicyRule, len(bs))
	for i, b := range bs {
		out[i] = b.build()
	}
	return out
}

func user(name string) rbacv1.Subject {
	return rbacv1.Subject{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: name}
}

func group(name string) rbacv1.Subject {
	return rbacv1.Subject{APIGroup: rbacv1.GroupName, Kind: rbacv1.GroupKind, Name: name}
}

// serviceAccount subjects carry no API group, as kube-apiserver writes them.
func serviceAccount(namespace, name string) rbacv1.Subject {
	return rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Namespace: namespace, Name: name}
}
