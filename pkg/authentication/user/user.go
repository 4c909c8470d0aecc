// Package user describes the identity an authenticated request acts as.
package user

// Well-known users and groups.
const (
	Anonymous           = "system:anonymous"
	APIServerUser       = "system:apiserver"
	AllUnauthenticated  = "system:unauthenticated"
	AllAuthenticated    = "system:authenticated"
	SystemPrivilegedGrp = "system:masters"
)

// CredentialIDKey is the key of the extra field in which an authenticator
// records a stable, non-secret identifier of the credential it accepted (for
// example "X509SHA256=<fingerprint>"), so that audit logs can tell apart two
// credentials of the same user.
const CredentialIDKey = "authentication.kubernetes.io/credential-id"

// Info is the identity of a requester.
type Info interface {
	GetName() string
	GetUID() string
	GetGroups() []string
	GetExtra() map[string][]string
}

// DefaultInfo is a plain Info.
type DefaultInfo struct {
	Name   string
	UID    string
	Groups []string
	Extra  map[string][]string
}

func (i *DefaultInfo) GetName() string               { return i.Name }
func (i *DefaultInfo) GetUID() string                { return i.UID }
func (i *DefaultInfo) GetGroups() []string           { return i.Groups }
func (i *DefaultInfo) GetExtra() map[string][]string { return i.Extra }
