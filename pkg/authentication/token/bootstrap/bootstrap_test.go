package bootstrap

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

type secrets map[string]*corev1.Secret

func (s secrets) GetSecret(namespace, name string) (*corev1.Secret, error) {
	if sec, ok := s[namespace+"/"+name]; ok {
		return sec, nil
	}
	return nil, apierrors.NewNotFound(corev1.Resource("secrets"), name)
}

// secret is a bootstrap token Secret as kubeadm writes it.
func secret(data map[string]string, change func(*corev1.Secret)) secrets {
	s := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "bootstrap-token-abcdef"},
		Type:       SecretType,
		Data:       map[string][]byte{},
	}
	base := map[string]string{"token-id": "abcdef", "token-secret": "0123456789abcdef", "usage-bootstrap-authentication": "true"}
	for k, v := range base {
		s.Data[k] = []byte(v)
	}
	for k, v := range data {
		if v == "" {
			delete(s.Data, k)
			continue
		}
		s.Data[k] = []byte(v)
	}
	if change != nil {
		change(s)
	}
	return secrets{"kube-system/bootstrap-token-abcdef": s}
}

var now = time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)

// TestBootstrapTokens: kube-apiserver's rules for bootstrap tokens, each
// refusal being "not this authenticator's".
func TestBootstrapTokens(t *testing.T) {
	const token = "abcdef.0123456789abcdef"
	for _, tc := range []struct {
		name       string
		token      string
		secrets    secrets
		wantGroups []string
	}{
		{name: "valid", secrets: secret(nil, nil), wantGroups: []string{"system:bootstrappers"}},
		{name: "extra groups, sorted and unique", secrets: secret(map[string]string{"auth-extra-groups": "system:bootstrappers:worker,system:bootstrappers:a,system:bootstrappers:a"}, nil),
			wantGroups: []string{"system:bootstrappers", "system:bootstrappers:a", "system:bootstrappers:worker"}},
		{name: "not expired yet", secrets: secret(map[string]string{"expiration": "2026-11-25T13:00:00Z"}, nil), wantGroups: []string{"system:bootstrappers"}},
		{name: "expired", secrets: secret(map[string]string{"expiration": "2026-11-25T11:00:00Z"}, nil)},
		{name: "unparsable expiration", secrets: secret(map[string]string{"expiration": "tomorrow"}, nil)},
		{name: "wrong secret", secrets: secret(map[string]string{"token-secret": "fedcba9876543210"}, nil)},
		{name: "id mismatch", secrets: secret(map[string]string{"token-id": "zzzzzz"}, nil)},
		{name: "not for authentication", secrets: secret(map[string]string{"usage-bootstrap-authentication": ""}, nil)},
		{name: "usage false", secrets: secret(map[string]string{"usage-bootstrap-authentication": "false"}, nil)},
		{name: "group outside system:bootstrappers", secrets: secret(map[string]string{"auth-extra-groups": "system:masters"}, nil)},
		{name: "wrong type", secrets: secret(nil, func(s *corev1.Secret) { s.Type = corev1.SecretTypeOpaque })},
		{name: "being deleted", secrets: secret(nil, func(s *corev1.Secret) { s.DeletionTimestamp = &metav1.Time{Time: now} })},
		{name: "no secret", secrets: secrets{}},
		{name: "not a bootstrap token", token: "abcdef0123456789abcdef", secrets: secret(nil, nil)},
		{name: "upper case", token: "ABCDEF.0123456789abcdef", secrets: secret(nil, nil)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tok := tc.token
			if tok == "" {
				tok = token
			}
			a := New(tc.secrets, func() time.Time { return now })
			resp, ok, err := a.AuthenticateToken(context.Background(), tok)
			if err != nil {
				t.Fatalf("error %v: refusals are not errors", err)
			}
			if tc.wantGroups == nil {
				if ok {
					t.Fatalf("accepted as %+v", resp.User)
				}
				return
			}
			if !ok {
				t.Fatal("refused")
			}
			if resp.User.GetName() != "system:bootstrap:abcdef" {
				t.Errorf("user %q", resp.User.GetName())
			}
			if diff := cmp.Diff(tc.wantGroups, resp.User.GetGroups()); diff != "" {
				t.Errorf("groups (-want +got):\n%s", diff)
			}
		})
	}
}
