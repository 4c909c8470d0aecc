package admission

import "k8s.io/apimachinery/pkg/runtime/schema"

// excludedResources are kube-apiserver's resources that admission
// webhooks (with the ExcludeAdmissionWebhookVirtualResources gate, on by
// default) and admission policies never see: the reviews of the
// authentication and authorization APIs. They are not stored, and a
// webhook or policy that intercepted them could lock a cluster out of its
// own authentication and authorization. Every version of each is
// excluded.
var excludedResources = map[schema.GroupResource]bool{
	{Group: "authentication.k8s.io", Resource: "selfsubjectreviews"}:       true,
	{Group: "authentication.k8s.io", Resource: "tokenreviews"}:             true,
	{Group: "authorization.k8s.io", Resource: "localsubjectaccessreviews"}: true,
	{Group: "authorization.k8s.io", Resource: "selfsubjectaccessreviews"}:  true,
	{Group: "authorization.k8s.io", Resource: "selfsubjectrulesreviews"}:   true,
	{Group: "authorization.k8s.io", Resource: "subjectaccessreviews"}:      true,
}

// Excluded says whether resource is one that admission webhooks and
// policies leave alone.
func Excluded(resource schema.GroupResource) bool { return excludedResources[resource] }
