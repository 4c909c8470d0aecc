package cafile

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"log/slog"
	"math/big"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func caPEM(t *testing.T, cn string) ([]byte, *x509.Certificate) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: cn}, IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := x509.ParseCertificate(der)
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), c
}

func trusts(f *File, c *x509.Certificate) bool {
	_, err := c.Verify(x509.VerifyOptions{Roots: f.Pool()})
	return err == nil
}

func TestReloadFollowsTheFileAndKeepsTheOldBundleOnGarbage(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ca.crt")
	oldPEM, oldCA := caPEM(t, "old")
	newPEM, newCA := caPEM(t, "new")
	if err := os.WriteFile(path, oldPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := New(path, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	if !trusts(f, oldCA) || trusts(f, newCA) {
		t.Fatal("initial bundle is not the file's")
	}
	os.WriteFile(path, newPEM, 0o600)
	if err := f.Reload(); err != nil {
		t.Fatal(err)
	}
	if trusts(f, oldCA) || !trusts(f, newCA) {
		t.Fatal("the rotated CA is not in force")
	}
	os.WriteFile(path, []byte("half-written"), 0o600)
	if err := f.Reload(); err == nil {
		t.Fatal("a file without certificates was accepted")
	}
	if !trusts(f, newCA) {
		t.Fatal("an invalid file replaced the bundle in force")
	}
}

func TestNewRefusesAFileWithoutCertificates(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ca.crt")
	os.WriteFile(path, []byte("nothing"), 0o600)
	if _, err := New(path, slog.New(slog.DiscardHandler)); err == nil {
		t.Fatal("New accepted a file without certificates")
	}
}
