package serviceaccount

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	jose "github.com/go-jose/go-jose/v4"
	"k8s.io/client-go/util/keyutil"
)

// KeyID is the kid kube-apiserver writes in the header of the tokens a key
// signs: the unpadded base64url SHA-256 of the key's PKIX DER encoding.
func KeyID(pub crypto.PublicKey) (string, error) {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(der)
	return base64.RawURLEncoding.EncodeToString(sum[:]), nil
}

// Algorithm is the JWS algorithm a key signs with, as kube-apiserver
// chooses it: RS256 for RSA, ES256/384/512 by the ECDSA curve.
func Algorithm(pub crypto.PublicKey) (jose.SignatureAlgorithm, error) {
	switch k := pub.(type) {
	case *rsa.PublicKey:
		return jose.RS256, nil
	case *ecdsa.PublicKey:
		switch k.Curve {
		case elliptic.P256():
			return jose.ES256, nil
		case elliptic.P384():
			return jose.ES384, nil
		case elliptic.P521():
			return jose.ES512, nil
		}
		return "", fmt.Errorf("unsupported ECDSA curve %s", k.Curve.Params().Name)
	}
	return "", fmt.Errorf("unsupported key type %T", pub)
}

// Signer signs tokens with one private key.
type Signer struct {
	signer jose.Signer
	alg    jose.SignatureAlgorithm
	kid    string
}

// NewSigner returns a signer for an RSA or ECDSA private key.
func NewSigner(key crypto.Signer) (*Signer, error) {
	alg, err := Algorithm(key.Public())
	if err != nil {
		return nil, err
	}
	kid, err := KeyID(key.Public())
	if err != nil {
		return nil, err
	}
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: jose.JSONWebKey{Key: key, KeyID: kid}}, nil)
	if err != nil {
		return nil, err
	}
	return &Signer{signer: s, alg: alg, kid: kid}, nil
}

// KeyID is the kid of the tokens s signs.
func (s *Signer) KeyID() string { return s.kid }

// Sign returns the compact serialization of a token with claims c.
func (s *Signer) Sign(c *Claims) (string, error) {
	payload, err := json.Marshal(c)
	if err != nil {
		return "", err
	}
	jws, err := s.signer.Sign(payload)
	if err != nil {
		return "", err
	}
	return jws.CompactSerialize()
}

// signatureAlgorithms are the algorithms a token may be signed with.
var signatureAlgorithms = []jose.SignatureAlgorithm{
	jose.RS256, jose.RS384, jose.RS512,
	jose.ES256, jose.ES384, jose.ES512,
	jose.PS256, jose.PS384, jose.PS512,
}

// Verifier checks tokens' signatures against public keys.
type Verifier struct {
	keys  []PublicKey
	byKID map[string][]int
}

// PublicKey is a key tokens are verified with.
type PublicKey struct {
	Key       crypto.PublicKey
	KeyID     string
	Algorithm jose.SignatureAlgorithm
}

// NewVerifier returns a verifier for RSA and ECDSA public keys.
func NewVerifier(keys []crypto.PublicKey) (*Verifier, error) {
	v := &Verifier{byKID: map[string][]int{}}
	for _, k := range keys {
		alg, err := Algorithm(k)
		if err != nil {
			return nil, err
		}
		kid, err := KeyID(k)
		if err != nil {
			return nil, err
		}
		v.byKID[kid] = append(v.byKID[kid], len(v.keys))
		v.keys = append(v.keys, PublicKey{Key: k, KeyID: kid, Algorithm: alg})
	}
	return v, nil
}

// Keys are the verifier's keys, in the order given.
func (v *Verifier) Keys() []PublicKey { return v.keys }

// Errors of Parse and Verify.
var (
	ErrMalformed        = errors.New("malformed token")
	ErrInvalidSignature = errors.New("invalid signature")
)

// Token is a parsed token whose signature is not checked yet.
type Token struct {
	jws *jose.JSONWebSignature
	// Claims are read without verification: use them to decide whether
	// this token is one to verify (its issuer), nothing more.
	Claims Claims
}

// LooksLikeJWT tells whether s has the three dot-separated parts of a
// compact JWS; other bearer tokens are not parsed at all.
func LooksLikeJWT(s string) bool {
	return strings.Count(s, ".") == 2
}

// Parse reads a token without verifying it.
func Parse(s string) (*Token, error) {
	if !LooksLikeJWT(s) {
		return nil, ErrMalformed
	}
	jws, err := jose.ParseSigned(s, signatureAlgorithms)
	if err != nil || len(jws.Signatures) != 1 {
		return nil, ErrMalformed
	}
	t := &Token{jws: jws}
	if err := json.Unmarshal(jws.UnsafePayloadWithoutVerification(), &t.Claims); err != nil {
		return nil, ErrMalformed
	}
	return t, nil
}

// Verify checks the token's signature: with the keys of its kid first,
// then with every other key (a token's kid is only a hint, and tokens
// signed before kids existed have none).
//
// The error is the last key's, as kube-apiserver reports it.
func (v *Verifier) Verify(t *Token) error {
	kid := t.jws.Signatures[0].Header.KeyID
	err := ErrInvalidSignature
	idx := v.byKID[kid]
	for _, i := range idx {
		if _, err = t.jws.Verify(v.keys[i].Key); err == nil {
			return nil
		}
	}
	for _, k := range v.keys {
		if len(idx) > 0 && k.KeyID == kid {
			continue
		}
		if _, err = t.jws.Verify(k.Key); err == nil {
			return nil
		}
	}
	return err
}

// ReadPublicKeys reads the keys of --service-account-key-file: PEM public
// keys, certificates or private keys (whose public halves are used), RSA
// or ECDSA, several per file.
func ReadPublicKeys(path string) ([]crypto.PublicKey, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	keys, err := keyutil.ParsePublicKeysPEM(data)
	if err == nil {
		out := make([]crypto.PublicKey, len(keys))
		for i, k := range keys {
			out[i] = k
		}
		return out, nil
	}
	priv, perr := keyutil.ParsePrivateKeyPEM(data)
	if perr != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	s, ok := priv.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("%s: %T is not a key", path, priv)
	}
	return []crypto.PublicKey{s.Public()}, nil
}

// ReadSigningKey reads --service-account-signing-key-file, a PEM RSA or
// ECDSA private key.
func ReadSigningKey(path string) (crypto.Signer, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	priv, err := keyutil.ParsePrivateKeyPEM(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	s, ok := priv.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("%s: %T cannot sign", path, priv)
	}
	return s, nil
}
