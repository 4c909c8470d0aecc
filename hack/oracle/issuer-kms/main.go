// Command issuer-kms serves, for an oracle started by
// metrics-config-reload.sh, an OpenID Connect issuer on https://-addr
// (discovery, /jwks, /token prints a token for subject jane, audience
// kapi) and the KMS v2 plugin of internal/kmstest on <dir>/kms.sock
// (/rotate?id=K makes K its key; an empty K is an invalid key ID). The
// issuer's CA is written to <dir>/ca.pem.
package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"flag"
	"log"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	josejwt "github.com/go-jose/go-jose/v4/jwt"

	"github.com/kapi-dev/kapi/internal/kmstest"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:16950", "")
	dir := flag.String("dir", "/tmp/oh", "")
	flag.Parse()
	os.MkdirAll(*dir, 0o755)
	sock := filepath.Join(*dir, "kms.sock")
	os.Remove(sock)
	p, _, err := kmstest.Serve(sock)
	if err != nil {
		log.Fatal(err)
	}
	p.Rotate("key-1")

	ck, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "issuer"}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(48 * time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, _ := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &ck.PublicKey, ck)
	os.WriteFile(filepath.Join(*dir, "ca.pem"), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644)

	sk, _ := rsa.GenerateKey(rand.Reader, 2048)
	issuer := "https://" + *addr
	jwk := jose.JSONWebKey{Key: &sk.PublicKey, KeyID: "k1", Algorithm: "RS256", Use: "sig"}
	signer, _ := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: jose.JSONWebKey{Key: sk, KeyID: "k1"}}, nil)
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"issuer": issuer, "jwks_uri": issuer + "/jwks", "id_token_signing_alg_values_supported": []string{"RS256"}})
	})
	mux.HandleFunc("/jwks", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{jwk}})
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		now := time.Now()
		tok, _ := josejwt.Signed(signer).Claims(josejwt.Claims{Issuer: issuer, Subject: "jane", Audience: josejwt.Audience{"kapi"}, IssuedAt: josejwt.NewNumericDate(now), NotBefore: josejwt.NewNumericDate(now), Expiry: josejwt.NewNumericDate(now.Add(time.Hour))}).Serialize()
		w.Write([]byte(tok))
	})
	mux.HandleFunc("/rotate", func(w http.ResponseWriter, r *http.Request) { p.Rotate(r.URL.Query().Get("id")) })
	srv := &http.Server{Addr: *addr, Handler: mux, TLSConfig: &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: ck}}}}
	log.Printf("issuer %s kms %s", issuer, p.Endpoint)
	log.Fatal(srv.ListenAndServeTLS("", ""))
}
