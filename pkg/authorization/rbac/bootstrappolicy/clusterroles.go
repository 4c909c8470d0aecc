package bootstrappolicy

// clusterRoleSpecs are the ClusterRoles of people and of the components
// other than kube-controller-manager's controllers, by name.
var clusterRoleSpecs = []clusterRoleSpec{
	// The user-facing roles are aggregated, so that a CRD's author can
	// extend them with a labelled ClusterRole. admin takes edit's rules
	// (edit is labelled aggregate-to-admin), edit takes view's.
	{name: "admin", aggregates: "admin"},
	// cluster-admin allows everything; it is bound to system:masters.
	{name: "cluster-admin", rules: rules(
		rule("*").groups("*").resources("*"),
		rule("*").urls("*"),
	)},
	{name: "edit", aggregateTo: "admin", aggregates: "edit"},
	// system:aggregate-to-* hold the bootstrap rules of admin, edit and
	// view; the aggregation copies them into those roles.
	{name: "system:aggregate-to-admin", aggregateTo: "admin", rules: rules(
		rule("create").groups("authorization.k8s.io").resources("localsubjectaccessreviews"),
		rule(readWrite...).groups("rbac.authorization.k8s.io").resources("rolebindings", "roles"),
	)},
	{name: "system:aggregate-to-edit", aggregateTo: "edit", rules: rules(
		rule(read...).groups(core).resources("pods/attach", "pods/exec", "pods/portforward", "pods/proxy", "secrets", "services/proxy"),
		rule("impersonate").groups(core).resources("serviceaccounts"),
		rule("create", "delete", "deletecollection", "patch", "update").groups(core).resources("pods", "pods/attach", "pods/exec", "pods/portforward", "pods/proxy"),
		rule("create").groups(core).resources("pods/eviction"),
		rule("create", "delete", "deletecollection", "patch", "update").groups(core).resources("configmaps", "persistentvolumeclaims", "replicationcontrollers", "replicationcontrollers/scale", "secrets", "serviceaccounts", "services", "services/proxy"),
		rule("create").groups(core).resources("serviceaccounts/token"),
		rule("create", "delete", "deletecollection", "patch", "update").groups(core, "events.k8s.io").resources("events"),
		rule("create", "delete", "deletecollection", "patch", "update").groups("apps").resources("daemonsets", "deployments", "deployments/rollback", "deployments/scale", "replicasets", "replicasets/scale", "statefulsets", "statefulsets/scale"),
		rule("create", "delete", "deletecollection", "patch", "update").groups("autoscaling").resources("horizontalpodautoscalers"),
		rule("create", "delete", "deletecollection", "patch", "update").groups("batch").resources("cronjobs", "jobs"),
		rule("create", "delete", "deletecollection", "patch", "update").groups("extensions").resources("daemonsets", "deployments", "deployments/rollback", "deployments/scale", "ingresses", "networkpolicies", "replicasets", "replicasets/scale", "replicationcontrollers/scale"),
		rule("create", "delete", "deletecollection", "patch", "update").groups("policy").resources("poddisruptionbudgets"),
		rule("create", "delete", "deletecollection", "patch", "update").groups("networking.k8s.io").resources("ingresses", "networkpolicies"),
		rule(readWrite...).groups("coordination.k8s.io").resources("leases"),
		rule("create", "delete", "deletecollection", "patch", "update").groups("resource.k8s.io").resources("resourceclaims", "resourceclaimtemplates"),
	)},
	{name: "system:aggregate-to-view", aggregateTo: "view", rules: rules(
		rule(read...).groups(core).resources("configmaps", "endpoints", "persistentvolumeclaims", "persistentvolumeclaims/status", "pods", "replicationcontrollers", "replicationcontrollers/scale", "serviceaccounts", "services", "services/status"),
		rule(read...).groups(core).resources("bindings", "limitranges", "namespaces/status", "pods/log", "pods/status", "replicationcontrollers/status", "resourcequotas", "resourcequotas/status"),
		rule(read...).groups(core).resources("namespaces"),
		rule(read...).groups(core, "events.k8s.io").resources("events"),
		rule(read...).groups("discovery.k8s.io").resources("endpointslices"),
		rule(read...).groups("apps").resources("controllerrevisions", "daemonsets", "daemonsets/status", "deployments", "deployments/scale", "deployments/status", "replicasets", "replicasets/scale", "replicasets/status", "statefulsets", "statefulsets/scale", "statefulsets/status"),
		rule(read...).groups("autoscaling").resources("horizontalpodautoscalers", "horizontalpodautoscalers/status"),
		rule(read...).groups("batch").resources("cronjobs", "cronjobs/status", "jobs", "jobs/status"),
		rule(read...).groups("extensions").resources("daemonsets", "daemonsets/status", "deployments", "deployments/scale", "deployments/status", "ingresses", "ingresses/status", "networkpolicies", "replicasets", "replicasets/scale", "replicasets/status", "replicationcontrollers/scale"),
		rule(read...).groups("policy").resources("poddisruptionbudgets", "poddisruptionbudgets/status"),
		rule(read...).groups("networking.k8s.io").resources("ingresses", "ingresses/status", "networkpolicies"),
		rule(read...).groups("resource.k8s.io").resources("resourceclaims", "resourceclaims/status", "resourceclaimtemplates"),
	)},
	{name: "system:auth-delegator", rules: rules(
		rule("create").groups("authentication.k8s.io").resources("tokenreviews"),
		rule("create").groups("authorization.k8s.io").resources("subjectaccessreviews"),
	)},
	{name: "system:basic-user", rules: rules(
		rule("create").groups("authorization.k8s.io").resources("selfsubjectaccessreviews", "selfsubjectrulesreviews"),
		rule("create").groups("authentication.k8s.io").resources("selfsubjectreviews"),
	)},
	{name: "system:certificates.k8s.io:certificatesigningrequests:nodeclient", rules: rules(
		rule("create").groups("certificates.k8s.io").resources("certificatesigningrequests/nodeclient"),
	)},
	{name: "system:certificates.k8s.io:certificatesigningrequests:selfnodeclient", rules: rules(
		rule("create").groups("certificates.k8s.io").resources("certificatesigningrequests/selfnodeclient"),
	)},
	{name: "system:certificates.k8s.io:kube-apiserver-client-approver", rules: rules(
		rule("approve").groups("certificates.k8s.io").resources("signers").names("kubernetes.io/kube-apiserver-client"),
	)},
	{name: "system:certificates.k8s.io:kube-apiserver-client-kubelet-approver", rules: rules(
		rule("approve").groups("certificates.k8s.io").resources("signers").names("kubernetes.io/kube-apiserver-client-kubelet"),
	)},
	{name: "system:certificates.k8s.io:kubelet-serving-approver", rules: rules(
		rule("approve").groups("certificates.k8s.io").resources("signers").names("kubernetes.io/kubelet-serving"),
	)},
	{name: "system:certificates.k8s.io:legacy-unknown-approver", rules: rules(
		rule("approve").groups("certificates.k8s.io").resources("signers").names("kubernetes.io/legacy-unknown"),
	)},
	{name: "system:cluster-trust-bundle-discovery", rules: rules(
		rule(read...).groups("certificates.k8s.io").resources("clustertrustbundles"),
	)},
	// system:discovery is for authenticated users only; the public
	// part of it (version, health) moved to system:public-info-viewer,
	// which anonymous users get too.
	{name: "system:discovery", rules: rules(
		rule("get").urls("/api", "/api/*", "/apis", "/apis/*", "/healthz", "/livez", "/openapi", "/openapi/*", "/readyz", "/version", "/version/"),
	)},
	{name: "system:heapster", rules: rules(
		rule(read...).groups(core).resources("events", "namespaces", "nodes", "pods"),
		rule(read...).groups("extensions").resources("deployments"),
	)},
	{name: "system:kube-aggregator", rules: rules(
		rule(read...).groups(core).resources("endpoints", "services"),
	)},
	{name: "system:kube-controller-manager", rules: rules(
		eventsRule,
		rule("create").groups("coordination.k8s.io").resources("leases"),
		rule("get", "update").groups("coordination.k8s.io").resources("leases").names("kube-controller-manager"),
		rule("create").groups(core).resources("secrets", "serviceaccounts"),
		rule("delete").groups(core).resources("secrets"),
		rule("get").groups(core).resources("configmaps", "namespaces", "secrets", "serviceaccounts"),
		rule("update").groups(core).resources("secrets", "serviceaccounts"),
		rule("create").groups("authentication.k8s.io").resources("tokenreviews"),
		rule("create").groups("authorization.k8s.io").resources("subjectaccessreviews"),
		rule("list", "watch").groups("*").resources("*"),
		rule("create").groups(core).resources("serviceaccounts/token"),
	)},
	{name: "system:kube-dns", rules: rules(
		rule("list", "watch").groups(core).resources("endpoints", "services"),
	)},
	{name: "system:kube-scheduler", rules: rules(
		eventsRule,
		rule("create").groups("coordination.k8s.io").resources("leases"),
		rule("get", "list", "update", "watch").groups("coordination.k8s.io").resources("leases").names("kube-scheduler"),
		rule(readWrite...).groups("coordination.k8s.io").resources("leasecandidates"),
		rule(read...).groups(core).resources("nodes"),
		rule("delete", "get", "list", "watch").groups(core).resources("pods"),
		rule("create").groups(core).resources("bindings", "pods/binding"),
		rule("patch", "update").groups(core).resources("pods/status"),
		rule(read...).groups(core).resources("replicationcontrollers", "services"),
		rule(read...).groups("apps", "extensions").resources("replicasets"),
		rule(read...).groups("apps").resources("statefulsets"),
		rule(read...).groups("policy").resources("poddisruptionbudgets"),
		rule(read...).groups(core).resources("persistentvolumeclaims", "persistentvolumes"),
		rule("create").groups("authentication.k8s.io").resources("tokenreviews"),
		rule("create").groups("authorization.k8s.io").resources("subjectaccessreviews"),
		rule(read...).groups("storage.k8s.io").resources("csinodes"),
		rule(read...).groups("storage.k8s.io").resources("volumeattachments"),
		rule(read...).groups(core).resources("namespaces"),
		rule(read...).groups("storage.k8s.io").resources("csidrivers"),
		rule(read...).groups("storage.k8s.io").resources("csistoragecapacities"),
		rule(read...).groups("resource.k8s.io").resources("deviceclasses"),
		rule("get", "list", "patch", "update", "watch").groups("resource.k8s.io").resources("resourceclaims"),
		rule("get", "list", "patch", "update", "watch").groups("resource.k8s.io").resources("resourceclaims/status"),
		rule("update").groups(core).resources("pods/finalizers"),
		rule(read...).groups("resource.k8s.io").resources("resourceslices"),
		rule("create", "delete").groups("resource.k8s.io").resources("resourceclaims"),
		rule(read...).groups("resource.k8s.io").resources("devicetaintrules"),
		rule("patch", "update").groups("resource.k8s.io").resources("resourceclaims/binding"),
	)},
	{name: "system:kubelet-api-admin", rules: rules(
		rule(read...).groups(core).resources("nodes"),
		rule("proxy").groups(core).resources("nodes"),
		rule("*").groups(core).resources("nodes/log", "nodes/metrics", "nodes/proxy", "nodes/stats"),
		rule("*").groups(core).resources("nodes/configz", "nodes/healthz", "nodes/pods"),
	)},
	{name: "system:monitoring", rules: rules(
		rule("get").urls("/flagz", "/healthz", "/healthz/*", "/livez", "/livez/*", "/metrics", "/metrics/slis", "/readyz", "/readyz/*", "/statusz"),
		rule("get").groups(core).resources("nodes/metrics"),
	)},
	// system:node is what kubelets needed before the Node authorizer;
	// it is kept, unbound (see bindings.go).
	{name: "system:node", rules: rules(
		rule("create").groups("authentication.k8s.io").resources("tokenreviews"),
		rule("create").groups("authorization.k8s.io").resources("localsubjectaccessreviews", "subjectaccessreviews"),
		rule(read...).groups(core).resources("services"),
		rule("create", "get", "list", "watch").groups(core).resources("nodes"),
		rule("patch", "update").groups(core).resources("nodes/status"),
		rule("patch", "update").groups(core).resources("nodes"),
		eventsRule,
		rule(read...).groups(core).resources("pods"),
		rule("create", "delete").groups(core).resources("pods"),
		rule("patch", "update").groups(core).resources("pods/status"),
		rule("create").groups(core).resources("pods/eviction"),
		rule(read...).groups(core).resources("configmaps", "secrets"),
		rule("get").groups(core).resources("persistentvolumeclaims", "persistentvolumes"),
		rule("get").groups(core).resources("endpoints"),
		rule("create", "get", "list", "watch").groups("certificates.k8s.io").resources("certificatesigningrequests"),
		rule("create", "delete", "get", "patch", "update").groups("coordination.k8s.io").resources("leases"),
		rule("get").groups("storage.k8s.io").resources("volumeattachments"),
		rule("create").groups(core).resources("serviceaccounts/token"),
		rule("get", "patch", "update").groups(core).resources("persistentvolumeclaims/status"),
		rule(read...).groups("storage.k8s.io").resources("csidrivers"),
		rule("create", "delete", "get", "patch", "update").groups("storage.k8s.io").resources("csinodes"),
		rule(read...).groups("node.k8s.io").resources("runtimeclasses"),
		rule("get").groups("resource.k8s.io").resources("resourceclaims"),
		rule("deletecollection").groups("resource.k8s.io").resources("resourceslices"),
		rule(read...).groups("certificates.k8s.io").resources("clustertrustbundles"),
		rule("get").groups(core).resources("serviceaccounts"),
		rule("create", "get", "list", "watch").groups("certificates.k8s.io").resources("podcertificaterequests"),
	)},
	{name: "system:node-bootstrapper", rules: rules(
		rule("create", "get", "list", "watch").groups("certificates.k8s.io").resources("certificatesigningrequests"),
	)},
	{name: "system:node-problem-detector", rules: rules(
		rule("get").groups(core).resources("nodes"),
		rule("patch").groups(core).resources("nodes/status"),
		eventsRule,
	)},
	{name: "system:node-proxier", rules: rules(
		rule("list", "watch").groups(core).resources("endpoints", "services"),
		rule(read...).groups(core).resources("nodes"),
		eventsRule,
		rule("list", "watch").groups("networking.k8s.io").resources("servicecidrs"),
		rule("list", "watch").groups("discovery.k8s.io").resources("endpointslices"),
	)},
	{name: "system:persistent-volume-provisioner", rules: rules(
		rule("create", "delete", "get", "list", "watch").groups(core).resources("persistentvolumes"),
		rule("get", "list", "update", "watch").groups(core).resources("persistentvolumeclaims"),
		rule(read...).groups("storage.k8s.io").resources("storageclasses"),
		rule("watch").groups(core).resources("events"),
		eventsRule,
	)},
	{name: "system:public-info-viewer", rules: rules(
		rule("get").urls("/healthz", "/livez", "/readyz", "/version", "/version/"),
	)},
	{name: "system:service-account-issuer-discovery", rules: rules(
		rule("get").urls("/.well-known/openid-configuration", "/.well-known/openid-configuration/", "/openid/v1/jwks", "/openid/v1/jwks/"),
	)},
	{name: "system:volume-scheduler", rules: rules(
		rule("get", "list", "patch", "update", "watch").groups(core).resources("persistentvolumes"),
		rule(read...).groups("storage.k8s.io").resources("storageclasses"),
		rule("get", "list", "patch", "update", "watch").groups(core).resources("persistentvolumeclaims"),
	)},
	{name: "view", aggregateTo: "edit", aggregates: "view"},
}
