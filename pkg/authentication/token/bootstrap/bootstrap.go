// Package bootstrap authenticates bootstrap tokens (--enable-bootstrap-token-auth),
// as kube-apiserver does: a token "<id>.<secret>" is valid while the
// Secret kube-system/bootstrap-token-<id> of type
// bootstrap.kubernetes.io/token holds the same id and secret, is not
// expired and allows usage-bootstrap-authentication. Its user is
// system:bootstrap:<id>, in system:bootstrappers and the Secret's
// auth-extra-groups.
//
// Every refusal is "not mine" (ok=false, no error), as in kube-apiserver:
// the bearer token authenticator turns it into a 401.
package bootstrap

import (
	"context"
	"crypto/subtle"
	"regexp"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kapi-dev/kapi/pkg/authentication/authenticator"
	"github.com/kapi-dev/kapi/pkg/authentication/user"
)

// Names of the bootstrap token API.
const (
	SecretType    = "bootstrap.kubernetes.io/token"
	SecretPrefix  = "bootstrap-token-"
	DefaultGroup  = "system:bootstrappers"
	UserPrefix    = "system:bootstrap:"
	keyID         = "token-id"
	keySecret     = "token-secret"
	keyExpiration = "expiration"
	keyUsageAuthn = "usage-bootstrap-authentication"
	keyGroups     = "auth-extra-groups"
)

var (
	tokenRE = regexp.MustCompile(`^([a-z0-9]{6})\.([a-z0-9]{16})$`)
	groupRE = regexp.MustCompile(`^system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]$`)
)

// SecretGetter reads Secrets of kube-system; a missing one is an error.
type SecretGetter interface {
	GetSecret(namespace, name string) (*corev1.Secret, error)
}

// Authenticator authenticates bootstrap tokens.
type Authenticator struct {
	secrets SecretGetter
	now     func() time.Time
}

// New returns an authenticator reading Secrets through secrets; now is the
// clock (nil for time.Now).
func New(secrets SecretGetter, now func() time.Time) *Authenticator {
	if now == nil {
		now = time.Now
	}
	return &Authenticator{secrets: secrets, now: now}
}

var _ authenticator.Token = &Authenticator{}

// AuthenticateToken implements authenticator.Token.
func (a *Authenticator) AuthenticateToken(ctx context.Context, token string) (*authenticator.Response, bool, error) {
	m := tokenRE.FindStringSubmatch(token)
	if m == nil {
		return nil, false, nil
	}
	id, secret := m[1], m[2]
	s, err := a.secrets.GetSecret("kube-system", SecretPrefix+id)
	if err != nil || s.DeletionTimestamp != nil || string(s.Type) != SecretType || s.Data == nil {
		return nil, false, nil
	}
	if subtle.ConstantTimeCompare(s.Data[keySecret], []byte(secret)) != 1 || string(s.Data[keyID]) != id {
		return nil, false, nil
	}
	if exp := string(s.Data[keyExpiration]); exp != "" {
		t, err := time.Parse(time.RFC3339, exp)
		if err != nil || a.now().After(t) {
			return nil, false, nil
		}
	}
	if string(s.Data[keyUsageAuthn]) != "true" {
		return nil, false, nil
	}
	groups := []string{DefaultGroup}
	if extra := string(s.Data[keyGroups]); extra != "" {
		for _, g := range strings.Split(extra, ",") {
			if !groupRE.MatchString(g) {
				return nil, false, nil
			}
			groups = append(groups, g)
		}
	}
	slices.Sort(groups)
	groups = slices.Compact(groups)
	return &authenticator.Response{User: &user.DefaultInfo{Name: UserPrefix + id, Groups: groups}}, true, nil
}
