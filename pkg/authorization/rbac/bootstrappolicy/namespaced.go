package bootstrappolicy

import rbacv1 "k8s.io/api/rbac/v1"

// roleSpecs are the Roles of kube-system and kube-public.
var roleSpecs = []roleSpec{
	{namespace: "kube-public", name: "system:controller:bootstrap-signer", rules: rules(
		rule(read...).groups(core).resources("configmaps"),
		rule("update").groups(core).resources("configmaps").names("cluster-info"),
		eventsRule,
	)},
	{namespace: "kube-system", name: "extension-apiserver-authentication-reader", rules: rules(
		rule(read...).groups(core).resources("configmaps").names("extension-apiserver-authentication"),
	)},
	{namespace: "kube-system", name: "system::leader-locking-kube-controller-manager", rules: rules(
		rule("create", "get", "list", "update", "watch").groups("coordination.k8s.io").resources("leases"),
		rule("create", "get", "list", "update", "watch").groups("coordination.k8s.io").resources("leasecandidates"),
	)},
	{namespace: "kube-system", name: "system::leader-locking-kube-scheduler", rules: rules(
		rule("create", "get", "list", "update", "watch").groups("coordination.k8s.io").resources("leases"),
		rule("create", "get", "list", "update", "watch").groups("coordination.k8s.io").resources("leasecandidates"),
	)},
	{namespace: "kube-system", name: "system:controller:bootstrap-signer", rules: rules(
		rule(read...).groups(core).resources("secrets"),
	)},
	{namespace: "kube-system", name: "system:controller:cloud-provider", rules: rules(
		rule("create", "get", "list", "watch").groups(core).resources("configmaps"),
	)},
	{namespace: "kube-system", name: "system:controller:token-cleaner", rules: rules(
		rule("delete", "get", "list", "watch").groups(core).resources("secrets"),
		eventsRule,
	)},
}

// roleBindingSpecs bind the Roles of roleSpecs.
var roleBindingSpecs = []roleBindingSpec{
	{namespace: "kube-public", name: "system:controller:bootstrap-signer", role: "system:controller:bootstrap-signer", subjects: []rbacv1.Subject{serviceAccount("kube-system", "bootstrap-signer")}},
	{namespace: "kube-system", name: "system::extension-apiserver-authentication-reader", role: "extension-apiserver-authentication-reader", subjects: []rbacv1.Subject{user("system:kube-controller-manager"), user("system:kube-scheduler")}},
	{namespace: "kube-system", name: "system::leader-locking-kube-controller-manager", role: "system::leader-locking-kube-controller-manager", subjects: []rbacv1.Subject{user("system:kube-controller-manager"), serviceAccount("kube-system", "kube-controller-manager"), serviceAccount("kube-system", "leader-election-controller")}},
	{namespace: "kube-system", name: "system::leader-locking-kube-scheduler", role: "system::leader-locking-kube-scheduler", subjects: []rbacv1.Subject{user("system:kube-scheduler"), serviceAccount("kube-system", "kube-scheduler")}},
	{namespace: "kube-system", name: "system:controller:bootstrap-signer", role: "system:controller:bootstrap-signer", subjects: []rbacv1.Subject{serviceAccount("kube-system", "bootstrap-signer")}},
	{namespace: "kube-system", name: "system:controller:cloud-provider", role: "system:controller:cloud-provider", subjects: []rbacv1.Subject{serviceAccount("kube-system", "cloud-provider")}},
	{namespace: "kube-system", name: "system:controller:token-cleaner", role: "system:controller:token-cleaner", subjects: []rbacv1.Subject{serviceAccount("kube-system", "token-cleaner")}},
}
