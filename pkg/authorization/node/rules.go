package node

import (
	"slices"

	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/kapi-dev/kapi/pkg/authorization/authorizer"
)

// Rule is one rule of a node's static permissions, as RBAC writes rules.
type Rule = rbacv1.PolicyRule

func rule(groups []string, resources []string, verbs ...string) Rule {
	return Rule{APIGroups: groups, Resources: resources, Verbs: verbs}
}

var (
	core         = []string{""}
	storage      = []string{"storage.k8s.io"}
	certificates = []string{"certificates.k8s.io"}
	resource     = []string{"resource.k8s.io"}
)

// NodeRules are the rules of kube-apiserver 1.37's bootstrap ClusterRole
// system:node, which the Node authorizer applies to requests it does not
// decide through the graph. The test compares them with the role the
// oracle serves.
func NodeRules() []Rule {
	return []Rule{
		rule([]string{"authentication.k8s.io"}, []string{"tokenreviews"}, "create"),
		rule([]string{"authorization.k8s.io"}, []string{"localsubjectaccessreviews", "subjectaccessreviews"}, "create"),
		rule(core, []string{"services"}, "get", "list", "watch"),
		rule(core, []string{"nodes"}, "create", "get", "list", "watch"),
		rule(core, []string{"nodes/status"}, "patch", "update"),
		rule(core, []string{"nodes"}, "patch", "update"),
		rule([]string{"", "events.k8s.io"}, []string{"events"}, "create", "patch", "update"),
		rule(core, []string{"pods"}, "get", "list", "watch"),
		rule(core, []string{"pods"}, "create", "delete"),
		rule(core, []string{"pods/status"}, "patch", "update"),
		rule(core, []string{"pods/eviction"}, "create"),
		rule(core, []string{"configmaps", "secrets"}, "get", "list", "watch"),
		rule(core, []string{"persistentvolumeclaims", "persistentvolumes"}, "get"),
		rule(core, []string{"endpoints"}, "get"),
		rule(certificates, []string{"certificatesigningrequests"}, "create", "get", "list", "watch"),
		rule([]string{"coordination.k8s.io"}, []string{"leases"}, "create", "delete", "get", "patch", "update"),
		rule(storage, []string{"volumeattachments"}, "get"),
		rule(core, []string{"serviceaccounts/token"}, "create"),
		rule(core, []string{"persistentvolumeclaims/status"}, "get", "patch", "update"),
		rule(storage, []string{"csidrivers"}, "get", "list", "watch"),
		rule(storage, []string{"csinodes"}, "create", "delete", "get", "patch", "update"),
		rule([]string{"node.k8s.io"}, []string{"runtimeclasses"}, "get", "list", "watch"),
		rule(resource, []string{"resourceclaims"}, "get"),
		rule(resource, []string{"resourceslices"}, "deletecollection"),
		rule(certificates, []string{"clustertrustbundles"}, "get", "list", "watch"),
		rule(core, []string{"serviceaccounts"}, "get"),
		rule(certificates, []string{"podcertificaterequests"}, "create", "get", "list", "watch"),
	}
}

// rulesAllow reports whether one of rules allows the resource request
// attrs, with RBAC's matching: "*" matches any verb, group or resource,
// a resource is written resource/subresource, and resourceNames limit a
// rule to those names. Node rules have no non-resource URLs.
func rulesAllow(rules []Rule, attrs authorizer.Attributes) bool {
	if !attrs.IsResourceRequest() {
		return false
	}
	for i := range rules {
		if ruleAllows(&rules[i], attrs) {
			return true
		}
	}
	return false
}

func ruleAllows(r *Rule, attrs authorizer.Attributes) bool {
	if !matches(r.Verbs, attrs.GetVerb()) || !matches(r.APIGroups, attrs.GetAPIGroup()) {
		return false
	}
	res := attrs.GetResource()
	if sub := attrs.GetSubresource(); sub != "" {
		res += "/" + sub
		if !matches(r.Resources, res) && !slices.Contains(r.Resources, "*/"+sub) {
			return false
		}
	} else if !matches(r.Resources, res) {
		return false
	}
	return len(r.ResourceNames) == 0 || slices.Contains(r.ResourceNames, attrs.GetName())
}

func matches(values []string, v string) bool {
	return slices.Contains(values, "*") || slices.Contains(values, v)
}
