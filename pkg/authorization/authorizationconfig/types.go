// Package authorizationconfig reads --authorization-config, kube-apiserver's
// structured authorization configuration (AuthorizationConfiguration of
// apiserver.config.k8s.io/v1): the ordered list of authorizers, several
// webhooks each with its own connection, cache, failure policy and CEL
// match conditions.
//
// The types are kapi's own, with the JSON of kube-apiserver's, so that the
// same file configures both. Decoding is strict (an unknown or repeated
// field is an error, as kube-apiserver's is), defaults are applied as
// kube-apiserver's v1 defaults them, and Validate reports every problem at
// once in kube-apiserver's words and field paths.
package authorizationconfig

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Group is the API group of the configuration file; v1, v1beta1 and
// v1alpha1 share the shape kapi reads.
const Group = "apiserver.config.k8s.io"

// Kind is the kind of the configuration file.
const Kind = "AuthorizationConfiguration"

// The authorizer types an entry may have.
const (
	TypeWebhook     = "Webhook"
	TypeRBAC        = "RBAC"
	TypeNode        = "Node"
	TypeABAC        = "ABAC"
	TypeAlwaysAllow = "AlwaysAllow"
	TypeAlwaysDeny  = "AlwaysDeny"
)

// Failure policies of a webhook.
const (
	FailurePolicyNoOpinion = "NoOpinion"
	FailurePolicyDeny      = "Deny"
)

// Connection types of a webhook.
const (
	ConnectionInClusterConfig = "InClusterConfig"
	ConnectionKubeConfigFile  = "KubeConfigFile"
)

// AuthorizationConfiguration is the whole file.
type AuthorizationConfiguration struct {
	metav1.TypeMeta `json:",inline"`
	// Authorizers are asked in order, after the system:masters check.
	Authorizers []AuthorizerConfiguration `json:"authorizers"`
}

// AuthorizerConfiguration is one entry of the chain.
type AuthorizerConfiguration struct {
	// Type is one of the Type constants.
	Type string `json:"type"`
	// Name identifies the entry in reasons, logs and metrics; a DNS
	// subdomain, unique in the file.
	Name string `json:"name"`
	// Webhook is set exactly when Type is Webhook.
	Webhook *WebhookConfiguration `json:"webhook,omitempty"`
}

// WebhookConfiguration says how to ask one webhook.
type WebhookConfiguration struct {
	AuthorizedTTL             metav1.Duration `json:"authorizedTTL"`
	CacheAuthorizedRequests   *bool           `json:"cacheAuthorizedRequests,omitempty"`
	UnauthorizedTTL           metav1.Duration `json:"unauthorizedTTL"`
	CacheUnauthorizedRequests *bool           `json:"cacheUnauthorizedRequests,omitempty"`
	// Timeout bounds one call: more than 0s, at most 30s.
	Timeout metav1.Duration `json:"timeout"`
	// SubjectAccessReviewVersion is the version sent: v1 or v1beta1.
	SubjectAccessReviewVersion string `json:"subjectAccessReviewVersion"`
	// MatchConditionSubjectAccessReviewVersion is the version the match
	// conditions see as `request`: v1, required with match conditions.
	MatchConditionSubjectAccessReviewVersion string `json:"matchConditionSubjectAccessReviewVersion"`
	// FailurePolicy is the decision when the webhook cannot be asked.
	FailurePolicy  string                `json:"failurePolicy"`
	ConnectionInfo WebhookConnectionInfo `json:"connectionInfo"`
	// MatchConditions must all be true for the webhook to be asked.
	MatchConditions []WebhookMatchCondition `json:"matchConditions"`
}

// WebhookConnectionInfo says where a webhook is.
type WebhookConnectionInfo struct {
	Type           string  `json:"type"`
	KubeConfigFile *string `json:"kubeConfigFile"`
}

// WebhookMatchCondition is a CEL expression over the SubjectAccessReview
// spec, `request`, that must be true for the webhook to be asked.
type WebhookMatchCondition struct {
	Expression string `json:"expression"`
}
