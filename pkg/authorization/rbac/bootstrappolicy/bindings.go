package bootstrappolicy

import rbacv1 "k8s.io/api/rbac/v1"

// clusterRoleBindingSpecs bind the ClusterRoles of clusterroles.go of the
// same name (the controller roles are bound in Default).
var clusterRoleBindingSpecs = []clusterRoleBindingSpec{
	{name: "cluster-admin", subjects: []rbacv1.Subject{group("system:masters")}},
	{name: "system:basic-user", subjects: []rbacv1.Subject{group("system:authenticated")}},
	{name: "system:cluster-trust-bundle-discovery", subjects: []rbacv1.Subject{group("system:serviceaccounts")}},
	{name: "system:discovery", subjects: []rbacv1.Subject{group("system:authenticated")}},
	{name: "system:kube-controller-manager", subjects: []rbacv1.Subject{user("system:kube-controller-manager")}},
	{name: "system:kube-dns", subjects: []rbacv1.Subject{serviceAccount("kube-system", "kube-dns")}},
	{name: "system:kube-scheduler", subjects: []rbacv1.Subject{user("system:kube-scheduler")}},
	{name: "system:monitoring", subjects: []rbacv1.Subject{group("system:monitoring")}},
	// system:node is bound to no one: the Node authorizer (with the
	// NodeRestriction admission plugin) grants kubelets what they need.
	// kube-apiserver creates the binding empty all the same, for an
	// administrator who chooses to bind nodes through RBAC.
	{name: "system:node"},
	{name: "system:node-proxier", subjects: []rbacv1.Subject{user("system:kube-proxy")}},
	{name: "system:public-info-viewer", subjects: []rbacv1.Subject{group("system:authenticated"), group("system:unauthenticated")}},
	{name: "system:service-account-issuer-discovery", subjects: []rbacv1.Subject{group("system:serviceaccounts")}},
	{name: "system:volume-scheduler", subjects: []rbacv1.Subject{user("system:kube-scheduler")}},
}
