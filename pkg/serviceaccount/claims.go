package serviceaccount

import (
	"encoding/json"
	"errors"
	"strings"
)

// LegacyIssuer is the issuer of the tokens kube-apiserver's token
// controller writes into service-account-token Secrets.
const LegacyIssuer = "kubernetes/serviceaccount"

// Durations of kube-apiserver's expiration extension: a pod-bound token
// requested for WarnOnlyExpirationSeconds (what the kubelet asks for by
// default) is valid for ExtendedExpirationSeconds, and only warned about
// after the time it was requested for.
const (
	WarnOnlyExpirationSeconds = 60*60 + 7
	ExtendedExpirationSeconds = 24 * 365 * 60 * 60
)

// Ref names an object a token speaks of.
type Ref struct {
	Name string `json:"name,omitempty"`
	UID  string `json:"uid,omitempty"`
}

// Kubernetes is the private claim "kubernetes.io" of a bound token. Its
// fields are in the order kube-apiserver's payload has them (by name).
type Kubernetes struct {
	Namespace      string `json:"namespace,omitempty"`
	Node           *Ref   `json:"node,omitempty"`
	Pod            *Ref   `json:"pod,omitempty"`
	Secret         *Ref   `json:"secret,omitempty"`
	ServiceAccount *Ref   `json:"serviceaccount,omitempty"`
	// WarnAfter is set on tokens whose expiry was extended: after it the
	// token still works, and kube-apiserver notes it as stale.
	WarnAfter int64 `json:"warnafter,omitempty"`
}

// Audience is the "aud" claim. It is written as an array, as
// kube-apiserver writes it, and read as a string or an array (RFC 7519).
type Audience []string

// UnmarshalJSON accepts a single string or an array of strings.
func (a *Audience) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*a = Audience{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return errors.New("aud must be a string or an array of strings")
	}
	*a = many
	return nil
}

// Claims is the payload of a service-account token, bound or legacy.
// The fields are in the order kube-apiserver writes them: by claim name.
type Claims struct {
	Audience   Audience    `json:"aud,omitempty"`
	Expiry     int64       `json:"exp,omitempty"`
	IssuedAt   int64       `json:"iat,omitempty"`
	Issuer     string      `json:"iss,omitempty"`
	ID         string      `json:"jti,omitempty"`
	Kubernetes *Kubernetes `json:"kubernetes.io,omitempty"`

	// The claims of a legacy token.
	LegacyNamespace          string `json:"kubernetes.io/serviceaccount/namespace,omitempty"`
	LegacySecretName         string `json:"kubernetes.io/serviceaccount/secret.name,omitempty"`
	LegacyServiceAccountName string `json:"kubernetes.io/serviceaccount/service-account.name,omitempty"`
	LegacyServiceAccountUID  string `json:"kubernetes.io/serviceaccount/service-account.uid,omitempty"`

	NotBefore int64  `json:"nbf,omitempty"`
	Subject   string `json:"sub,omitempty"`
}

// IsLegacy tells a legacy token from a bound one by its issuer.
func (c *Claims) IsLegacy() bool { return c.Issuer == LegacyIssuer }

// UserName is the user a service account authenticates as,
// "system:serviceaccount:<namespace>:<name>".
func UserName(namespace, name string) string {
	return "system:serviceaccount:" + namespace + ":" + name
}

// SplitUserName returns the namespace and name of a service account's user
// name, or false if it is not one.
func SplitUserName(userName string) (namespace, name string, ok bool) {
	rest, ok := strings.CutPrefix(userName, "system:serviceaccount:")
	if !ok {
		return "", "", false
	}
	namespace, name, ok = strings.Cut(rest, ":")
	if !ok || namespace == "" || name == "" || strings.Contains(name, ":") {
		return "", "", false
	}
	return namespace, name, true
}

// Groups are the groups of a service account's user: every service
// account, and those of its namespace.
func Groups(namespace string) []string {
	return []string{"system:serviceaccounts", "system:serviceaccounts:" + namespace}
}

// BoundRequest is what a bound token is issued for.
type BoundRequest struct {
	Issuer    string
	Audiences []string
	// Namespace and ServiceAccount name the account.
	Namespace      string
	ServiceAccount Ref
	// Pod, Secret and Node are the objects the token is bound to, when
	// any: a Pod, a Secret or a Node; a pod-bound token also names the
	// pod's node.
	Pod, Secret, Node *Ref
	// IssuedAt is when the token is issued; ExpirationSeconds after it, it
	// expires. WarnAfterSeconds, when positive, sets warnafter.
	IssuedAt          int64
	ExpirationSeconds int64
	WarnAfterSeconds  int64
	// ID is the jti, unique per token.
	ID string
}

// BoundClaims are the claims kube-apiserver writes for a TokenRequest.
func BoundClaims(r BoundRequest) *Claims {
	k := &Kubernetes{
		Namespace:      r.Namespace,
		ServiceAccount: &Ref{Name: r.ServiceAccount.Name, UID: r.ServiceAccount.UID},
		Pod:            r.Pod,
		Secret:         r.Secret,
		Node:           r.Node,
	}
	if r.WarnAfterSeconds > 0 {
		k.WarnAfter = r.IssuedAt + r.WarnAfterSeconds
	}
	return &Claims{
		Audience:   r.Audiences,
		Expiry:     r.IssuedAt + r.ExpirationSeconds,
		IssuedAt:   r.IssuedAt,
		Issuer:     r.Issuer,
		ID:         r.ID,
		Kubernetes: k,
		NotBefore:  r.IssuedAt,
		Subject:    UserName(r.Namespace, r.ServiceAccount.Name),
	}
}

// LegacyClaims are the claims of a token kept in a service-account-token
// Secret.
func LegacyClaims(namespace, serviceAccountName, serviceAccountUID, secretName string) *Claims {
	return &Claims{
		Issuer:                   LegacyIssuer,
		LegacyNamespace:          namespace,
		LegacySecretName:         secretName,
		LegacyServiceAccountName: serviceAccountName,
		LegacyServiceAccountUID:  serviceAccountUID,
		Subject:                  UserName(namespace, serviceAccountName),
	}
}
