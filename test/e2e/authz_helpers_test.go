package e2e

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/kapi-dev/kapi/pkg/testserver"
)

// userConfig is a client of s that authenticates as name in groups with a
// client certificate signed by the server's CA, as the oracle's alice
// does: no uid, no extra.
func userConfig(t *testing.T, s *testserver.Server, name string, groups ...string) *rest.Config {
	t.Helper()
	caPEM, err := os.ReadFile(filepath.Join(s.DataDir, "pki", "ca.crt"))
	if err != nil {
		t.Fatal(err)
	}
	caKeyPEM, err := os.ReadFile(filepath.Join(s.DataDir, "pki", "ca.key"))
	if err != nil {
		t.Fatal(err)
	}
	ca, err := tls.X509KeyPair(caPEM, caKeyPEM)
	if err != nil {
		t.Fatal(err)
	}
	caCert, err := x509.ParseCertificate(ca.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()),
		Subject:      pkix.Name{CommonName: name, Organization: groups},
		NotBefore:    time.Now().Add(-time.Minute),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &key.PublicKey, ca.PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	cfg := rest.AnonymousClientConfig(s.ClientConfig)
	cfg.CertData = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	cfg.KeyData = pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})
	return cfg
}

// writeKubeconfig writes a kubeconfig for cfg (a client certificate user)
// for kubectl.
func writeKubeconfig(t *testing.T, cfg *rest.Config) string {
	t.Helper()
	b64 := base64.StdEncoding.EncodeToString
	content := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: kapi
  cluster:
    server: %s
    certificate-authority-data: %s
users:
- name: u
  user:
    client-certificate-data: %s
    client-key-data: %s
contexts:
- name: kapi
  context: {cluster: kapi, user: u}
current-context: kapi
`, cfg.Host, b64(cfg.CAData), b64(cfg.CertData), b64(cfg.KeyData))
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// recordedReview is one SubjectAccessReview a webhook received.
type recordedReview struct {
	Path string         `json:"path"`
	Body map[string]any `json:"body"`
}

// authzWebhook is the authorization webhook the oracle was pointed at when
// the recordings were made (the same policy, served here over TLS on
// loopback): alice is allowed everything except in namespace "denied"
// (denied, "webhook says no") and "noop" (no opinion, "no opinion here");
// on the path /fail it answers 500 for alice; anyone else, and anyone
// on the path /nothing, gets no opinion and no reason. It records every review it is sent.
type authzWebhook struct {
	srv *httptest.Server

	mu       sync.Mutex
	received []recordedReview
}

func newAuthzWebhook(t *testing.T) *authzWebhook {
	t.Helper()
	w := &authzWebhook{}
	w.srv = httptest.NewTLSServer(http.HandlerFunc(w.serve))
	t.Cleanup(w.srv.Close)
	return w
}

func (w *authzWebhook) serve(rw http.ResponseWriter, r *http.Request) {
	data, _ := io.ReadAll(r.Body)
	var body map[string]any
	if err := json.Unmarshal(data, &body); err != nil {
		http.Error(rw, err.Error(), http.StatusBadRequest)
		return
	}
	w.mu.Lock()
	w.received = append(w.received, recordedReview{Path: r.URL.RequestURI(), Body: body})
	w.mu.Unlock()

	spec, _ := body["spec"].(map[string]any)
	ra, _ := spec["resourceAttributes"].(map[string]any)
	status := map[string]any{"allowed": false}
	if spec["user"] == "alice" && !strings.HasSuffix(r.URL.Path, "/nothing") {
		switch {
		case ra["namespace"] == "denied":
			status = map[string]any{"allowed": false, "denied": true, "reason": "webhook says no"}
		case ra["namespace"] == "noop":
			status = map[string]any{"allowed": false, "reason": "no opinion here"}
		case strings.HasSuffix(r.URL.Path, "/fail"):
			http.Error(rw, "boom", http.StatusInternalServerError)
			return
		default:
			status = map[string]any{"allowed": true, "reason": "webhook says yes"}
		}
	}
	rw.Header().Set("Content-Type", "application/json")
	json.NewEncoder(rw).Encode(map[string]any{"apiVersion": body["apiVersion"], "kind": "SubjectAccessReview", "status": status})
}

// take returns and forgets what the webhook received.
func (w *authzWebhook) take() []recordedReview {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.received
	w.received = nil
	return out
}

// kubeconfig writes the kubeconfig kapi reaches the webhook with: its URL
// with path, and its CA as certificate-authority-data.
func (w *authzWebhook) kubeconfig(t *testing.T, path string) string {
	t.Helper()
	caPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: w.srv.Certificate().Raw})
	content := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: wh
  cluster:
    server: %s%s
    certificate-authority-data: %s
users:
- name: apiserver
  user: {}
contexts:
- name: wh
  context: {cluster: wh, user: apiserver}
current-context: wh
`, w.srv.URL, path, base64.StdEncoding.EncodeToString(caPEM))
	file := filepath.Join(t.TempDir(), "webhook.kubeconfig")
	if err := os.WriteFile(file, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

// abacPolicy is the policy file the oracle ran with: bob may do anything.
const abacPolicy = `{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"user": "bob", "namespace": "*", "resource": "*", "apiGroup": "*"}}
`

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
