package certs

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"

	"k8s.io/client-go/util/keyutil"
)

// ensureServiceAccountKeys makes sure sa.key holds the key that signs
// service-account tokens (--service-account-signing-key-file) and sa.pub the
// public keys that verify them (--service-account-key-file).
//
// sa.pub may hold more keys than sa.key's, so that tokens signed by a
// previous key stay valid during a rotation; it must hold sa.key's. A
// missing sa.pub is derived from sa.key. A missing sa.key is an error when
// sa.pub exists, because a new key would make every issued token invalid.
func (b *bootstrap) ensureServiceAccountKeys() error {
	keyPEM, keyErr := os.ReadFile(b.path(ServiceAccountKeyFileName))
	pubPEM, pubErr := os.ReadFile(b.path(ServiceAccountPublicKeyFileName))
	keyMissing, pubMissing := errors.Is(keyErr, fs.ErrNotExist), errors.Is(pubErr, fs.ErrNotExist)
	switch {
	case keyMissing && pubMissing:
		return b.createServiceAccountKeys()
	case keyMissing:
		return fmt.Errorf("%s exists but %s does not: restore it, or remove both to create a new key (which invalidates every service-account token issued)",
			b.path(ServiceAccountPublicKeyFileName), b.path(ServiceAccountKeyFileName))
	case keyErr != nil:
		return keyErr
	case pubErr != nil && !pubMissing:
		return pubErr
	}

	parsed, err := keyutil.ParsePrivateKeyPEM(keyPEM)
	if err != nil {
		return fmt.Errorf("%s: %w", b.path(ServiceAccountKeyFileName), err)
	}
	signer, ok := parsed.(crypto.Signer)
	if !ok {
		return fmt.Errorf("%s: %T cannot sign", b.path(ServiceAccountKeyFileName), parsed)
	}
	if pubMissing {
		return b.writeServiceAccountPublicKey(signer.Public())
	}
	pubs, err := keyutil.ParsePublicKeysPEM(pubPEM)
	if err != nil {
		return fmt.Errorf("%s: %w", b.path(ServiceAccountPublicKeyFileName), err)
	}
	if !slices.ContainsFunc(pubs, func(p any) bool { return samePublicKey(p, signer.Public()) }) {
		return fmt.Errorf("%s does not hold the public key of %s: tokens kapi signs would not verify",
			b.path(ServiceAccountPublicKeyFileName), b.path(ServiceAccountKeyFileName))
	}
	return nil
}

func (b *bootstrap) createServiceAccountKeys() error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	keyPEM, err := marshalKey(key)
	if err != nil {
		return err
	}
	if err := b.write(ServiceAccountKeyFileName, keyPEM, 0o600); err != nil {
		return err
	}
	return b.writeServiceAccountPublicKey(key.Public())
}

func (b *bootstrap) writeServiceAccountPublicKey(pub crypto.PublicKey) error {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return err
	}
	pubPEM := pem.EncodeToMemory(&pem.Block{Type: keyutil.PublicKeyBlockType, Bytes: der})
	return b.write(ServiceAccountPublicKeyFileName, pubPEM, 0o644)
}
