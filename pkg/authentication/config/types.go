// Package config reads --authentication-config: an
// apiserver.config.k8s.io/v1 AuthenticationConfiguration, decoded strictly
// and validated with kube-apiserver's messages, and turns it into JWT
// authenticators and the anonymous settings.
package config

// AuthenticationConfiguration is apiserver.config.k8s.io/v1's, with the
// same JSON.
type AuthenticationConfiguration struct {
	APIVersion string             `json:"apiVersion,omitempty"`
	Kind       string             `json:"kind,omitempty"`
	JWT        []JWTAuthenticator `json:"jwt"`
	Anonymous  *AnonymousConfig   `json:"anonymous,omitempty"`
}

// JWTAuthenticator is one issuer.
type JWTAuthenticator struct {
	Issuer               Issuer                `json:"issuer"`
	ClaimValidationRules []ClaimValidationRule `json:"claimValidationRules,omitempty"`
	ClaimMappings        ClaimMappings         `json:"claimMappings"`
	UserValidationRules  []UserValidationRule  `json:"userValidationRules,omitempty"`
}

// Issuer says whose tokens are accepted, and for which audiences.
type Issuer struct {
	URL                  string   `json:"url"`
	DiscoveryURL         string   `json:"discoveryURL,omitempty"`
	CertificateAuthority string   `json:"certificateAuthority,omitempty"`
	Audiences            []string `json:"audiences"`
	AudienceMatchPolicy  string   `json:"audienceMatchPolicy,omitempty"`
	EgressSelectorType   string   `json:"egressSelectorType,omitempty"`
}

// ClaimValidationRule is either claim+requiredValue or a CEL expression
// with a message.
type ClaimValidationRule struct {
	Claim         string `json:"claim,omitempty"`
	RequiredValue string `json:"requiredValue,omitempty"`
	Expression    string `json:"expression,omitempty"`
	Message       string `json:"message,omitempty"`
}

// ClaimMappings make the user from the claims.
type ClaimMappings struct {
	Username PrefixedClaimOrExpression `json:"username"`
	Groups   PrefixedClaimOrExpression `json:"groups,omitempty"`
	UID      ClaimOrExpression         `json:"uid"`
	Extra    []ExtraMapping            `json:"extra,omitempty"`
}

// PrefixedClaimOrExpression is a claim with a prefix (which must be given,
// possibly empty) or a CEL expression.
type PrefixedClaimOrExpression struct {
	Claim      string  `json:"claim,omitempty"`
	Prefix     *string `json:"prefix,omitempty"`
	Expression string  `json:"expression,omitempty"`
}

// ClaimOrExpression is a claim or a CEL expression.
type ClaimOrExpression struct {
	Claim      string `json:"claim,omitempty"`
	Expression string `json:"expression,omitempty"`
}

// ExtraMapping fills one extra key.
type ExtraMapping struct {
	Key             string `json:"key"`
	ValueExpression string `json:"valueExpression"`
}

// UserValidationRule is a CEL expression over the mapped user.
type UserValidationRule struct {
	Expression string `json:"expression"`
	Message    string `json:"message,omitempty"`
}

// AnonymousConfig replaces --anonymous-auth.
type AnonymousConfig struct {
	Enabled    bool                 `json:"enabled"`
	Conditions []AnonymousCondition `json:"conditions,omitempty"`
}

// AnonymousCondition allows anonymous requests to one path.
type AnonymousCondition struct {
	Path string `json:"path"`
}
