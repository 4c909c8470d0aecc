package certs

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"math/big"
	"os"

	certutil "k8s.io/client-go/util/cert"
	"k8s.io/client-go/util/keyutil"
)

// authority is a CA that can issue certificates.
type authority struct {
	cert    *x509.Certificate
	certPEM []byte // the whole of ca.crt, as clients must trust it
	key     crypto.Signer
	pool    *x509.CertPool
}

// ensureCA loads the CA from ca.crt and ca.key, or creates it when both are
// absent. Anything in between is an error: with one of the two files gone,
// creating a new CA would orphan every certificate and kubeconfig issued
// with the old one, so a person should decide.
func (b *bootstrap) ensureCA() (*authority, error) {
	certPEM, certErr := os.ReadFile(b.path(CACertFileName))
	keyPEM, keyErr := os.ReadFile(b.path(CAKeyFileName))
	certMissing, keyMissing := errors.Is(certErr, fs.ErrNotExist), errors.Is(keyErr, fs.ErrNotExist)
	switch {
	case certMissing && keyMissing:
		return b.createCA()
	case certMissing != keyMissing:
		present, absent := CACertFileName, CAKeyFileName
		if certMissing {
			present, absent = absent, present
		}
		return nil, fmt.Errorf("%s exists but %s does not: restore it, or remove both to create a new CA (which invalidates every certificate it issued)",
			b.path(present), b.path(absent))
	case certErr != nil:
		return nil, certErr
	case keyErr != nil:
		return nil, keyErr
	}
	ca, err := parseCA(certPEM, keyPEM)
	if err != nil {
		return nil, fmt.Errorf("CA in %s: %w", b.dir, err)
	}
	if b.now.After(ca.cert.NotAfter) {
		return nil, fmt.Errorf("CA in %s expired on %s: remove %s and %s to create a new one",
			b.dir, ca.cert.NotAfter.UTC().Format("2006-01-02"), CACertFileName, CAKeyFileName)
	}
	return ca, nil
}

// parseCA reads a CA from PEM. certPEM may hold several certificates (for
// example an old and a new CA during a rotation): all of them are trusted,
// and the one matching the key signs.
func parseCA(certPEM, keyPEM []byte) (*authority, error) {
	certs, err := certutil.ParseCertsPEM(certPEM)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", CACertFileName, err)
	}
	parsedKey, err := keyutil.ParsePrivateKeyPEM(keyPEM)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", CAKeyFileName, err)
	}
	key, ok := parsedKey.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("%s: %T cannot sign", CAKeyFileName, parsedKey)
	}
	ca := &authority{certPEM: certPEM, key: key, pool: x509.NewCertPool()}
	for _, c := range certs {
		ca.pool.AddCert(c)
		if ca.cert == nil && samePublicKey(c.PublicKey, key.Public()) {
			ca.cert = c
		}
	}
	switch {
	case ca.cert == nil:
		return nil, fmt.Errorf("%s does not belong to any certificate in %s", CAKeyFileName, CACertFileName)
	case !ca.cert.IsCA || (ca.cert.KeyUsage != 0 && ca.cert.KeyUsage&x509.KeyUsageCertSign == 0):
		return nil, fmt.Errorf("%s: %q is not a CA certificate", CACertFileName, ca.cert.Subject.CommonName)
	}
	return ca, nil
}

func (b *bootstrap) createCA() (*authority, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	serial, err := newSerial()
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		// The time stamp keeps the names of successive CAs apart, so that a
		// trust store holding an old one does not confuse the two.
		Subject:               pkix.Name{CommonName: fmt.Sprintf("kapi-ca@%d", b.now.Unix())},
		NotBefore:             b.now.Add(-backdate),
		NotAfter:              b.now.Add(CALifetime),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	keyPEM, err := marshalKey(key)
	if err != nil {
		return nil, err
	}
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})

	// Key first: a crash between the two writes then leaves a key without
	// a certificate, which the next start reports instead of using.
	if err := b.write(CAKeyFileName, keyPEM, 0o600); err != nil {
		return nil, err
	}
	if err := b.write(CACertFileName, certPEM, 0o644); err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return &authority{cert: cert, certPEM: certPEM, key: key, pool: pool}, nil
}

// issue signs tmpl, which must carry its validity period, for a new P-256
// key, and returns the certificate and key in PEM.
func (ca *authority) issue(tmpl *x509.Certificate) (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	if tmpl.SerialNumber, err = newSerial(); err != nil {
		return nil, nil, err
	}
	// A certificate outliving its issuer would only fail later, and more
	// confusingly.
	if tmpl.NotAfter.After(ca.cert.NotAfter) {
		tmpl.NotAfter = ca.cert.NotAfter
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, key.Public(), ca.key)
	if err != nil {
		return nil, nil, err
	}
	if keyPEM, err = marshalKey(key); err != nil {
		return nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), keyPEM, nil
}

// newSerial returns a random 128-bit serial number, as RFC 5280 and the
// CA/Browser Forum recommend: unpredictable and unique without bookkeeping.
func newSerial() (*big.Int, error) {
	return rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
}

// marshalKey encodes an EC key the way kubeadm and client-go's keyutil do
// ("EC PRIVATE KEY", SEC 1), which every Kubernetes tool reads.
func marshalKey(key *ecdsa.PrivateKey) ([]byte, error) {
	der, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: keyutil.ECPrivateKeyBlockType, Bytes: der}), nil
}

func samePublicKey(a, b crypto.PublicKey) bool {
	k, ok := a.(interface{ Equal(crypto.PublicKey) bool })
	return ok && k.Equal(b)
}
