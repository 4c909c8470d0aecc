package node

import (
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/kapi-dev/kapi/pkg/apis/rbac"
	"github.com/kapi-dev/kapi/pkg/authorization/authorizer"
	"github.com/kapi-dev/kapi/pkg/authorization/rbac/bootstrappolicy"
)

// Rule is one rule of a node's static permissions, as RBAC writes rules.
type Rule = rbacv1.PolicyRule

// NodeRules are the rules of the bootstrap ClusterRole system:node, which
// the Node authorizer applies to requests it does not decide through the
// graph. They are read from the bootstrap policy, so that the role RBAC
// serves and the rules the Node authorizer applies cannot drift apart;
// the test compares them with the role kube-apiserver 1.37 serves.
func NodeRules() []Rule {
	for _, role := range bootstrappolicy.Default().ClusterRoles {
		if role.Name == "system:node" {
			return role.Rules
		}
	}
	panic("node: the bootstrap policy has no ClusterRole system:node")
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
	return rbac.Allows(r, rbac.Request{
		Verb:            attrs.GetVerb(),
		ResourceRequest: true,
		APIGroup:        attrs.GetAPIGroup(),
		Resource:        attrs.GetResource(),
		Subresource:     attrs.GetSubresource(),
		Name:            attrs.GetName(),
	})
}
