// Package rbac holds what is pure about rbac.authorization.k8s.io/v1: the
// defaults and validation of Role, ClusterRole, RoleBinding and
// ClusterRoleBinding, and the rule algebra both the RBAC authorizer and
// the escalation check of the registry need: does a rule allow a request
// (Allows), does a set of rules cover another (Covers), and how
// kube-apiserver prints the rules a user is missing (CompactString).
//
// It lives at the bottom of the layers, with the types, because the
// authorizer (pkg/authorization/rbac) and the registry
// (pkg/registry/rbac) must agree on these answers and may not import
// each other.
package rbac
