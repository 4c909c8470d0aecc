package certs

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/client-go/util/keyutil"
)

var allFiles = []string{
	CAKeyFileName, CACertFileName,
	ServingKeyFileName, ServingCertFileName,
	AdminKeyFileName, AdminCertFileName,
	ServiceAccountKeyFileName, ServiceAccountPublicKeyFileName,
	KubeconfigFileName,
}

var defaultOpts = Options{
	ServiceIP: net.ParseIP("10.96.0.1"),
	ServerURL: "https://127.0.0.1:6443",
}

func ensure(t *testing.T, dir string, opts Options) *Bundle {
	t.Helper()
	b, err := EnsureBootstrap(dir, opts)
	if err != nil {
		t.Fatalf("EnsureBootstrap: %v", err)
	}
	return b
}

// snapshot returns the contents of every file in dir.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[e.Name()] = string(data)
	}
	return files
}

// changed lists the files whose contents differ between two snapshots.
func changed(before, after map[string]string) []string {
	var names []string
	for name, data := range after {
		if before[name] != data {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

func readCert(t *testing.T, path string) *x509.Certificate {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(data)
	if block == nil || block.Type != "CERTIFICATE" {
		t.Fatalf("%s: no PEM certificate", path)
	}
	c, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestFreshDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data", "pki")
	b := ensure(t, dir, defaultOpts)

	if got, want := sorted(b.Written), sorted(allFiles); !slices.Equal(got, want) {
		t.Errorf("Written = %v, want %v", got, want)
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("directory: %v, %v; want mode 0700", fi.Mode(), err)
	}
	wantMode := map[string]os.FileMode{
		CAKeyFileName: 0o600, ServingKeyFileName: 0o600, AdminKeyFileName: 0o600,
		ServiceAccountKeyFileName: 0o600, KubeconfigFileName: 0o600,
		CACertFileName: 0o644, ServingCertFileName: 0o644, AdminCertFileName: 0o644,
		ServiceAccountPublicKeyFileName: 0o644,
	}
	for name, mode := range wantMode {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if fi.Mode().Perm() != mode {
			t.Errorf("%s: mode %v, want %v", name, fi.Mode().Perm(), mode)
		}
	}
	if got := len(snapshot(t, dir)); got != len(allFiles) {
		t.Errorf("%d files in the directory, want %d (no temporary files left)", got, len(allFiles))
	}

	paths := map[string]string{
		b.CACertFile: CACertFileName, b.CAKeyFile: CAKeyFileName,
		b.ServingCertFile: ServingCertFileName, b.ServingKeyFile: ServingKeyFileName,
		b.AdminCertFile: AdminCertFileName, b.AdminKeyFile: AdminKeyFileName,
		b.ServiceAccountKeyFile: ServiceAccountKeyFileName, b.ServiceAccountPublicKeyFile: ServiceAccountPublicKeyFileName,
		b.KubeconfigFile: KubeconfigFileName,
	}
	for path, name := range paths {
		if path != filepath.Join(dir, name) {
			t.Errorf("Bundle path %q, want %q", path, filepath.Join(dir, name))
		}
	}

	ca := readCert(t, b.CACertFile)
	if !ca.IsCA || !ca.Equal(b.CA) {
		t.Errorf("ca.crt is not the Bundle's CA certificate, or not a CA")
	}
	for _, path := range []string{b.CAKeyFile, b.ServingKeyFile, b.AdminKeyFile, b.ServiceAccountKeyFile} {
		data, _ := os.ReadFile(path)
		key, err := keyutil.ParsePrivateKeyPEM(data)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		if k, ok := key.(*ecdsa.PrivateKey); !ok || k.Curve != elliptic.P256() {
			t.Errorf("%s: %T, want an ECDSA P-256 key", path, key)
		}
	}
}

func TestServingCertificateIsValidForEveryName(t *testing.T) {
	dir := t.TempDir()
	opts := defaultOpts
	opts.ServerURL = "https://kapi.internal:6443"
	opts.ExtraSANs = []string{"kapi.example.com", "192.0.2.10", "*.apps.example.com", "2001:db8::1"}
	b := ensure(t, dir, opts)

	hostname, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	names := []string{
		"localhost", "127.0.0.1", "::1", strings.ToLower(hostname),
		"kubernetes", "kubernetes.default", "kubernetes.default.svc", "kubernetes.default.svc.cluster.local",
		"10.96.0.1", "kapi.internal",
		"kapi.example.com", "192.0.2.10", "console.apps.example.com", "2001:db8::1",
	}
	serving := b.ServingCert.Leaf
	if !serving.Equal(readCert(t, b.ServingCertFile)) {
		t.Fatal("Bundle.ServingCert is not apiserver.crt")
	}
	for _, name := range names {
		_, err := serving.Verify(x509.VerifyOptions{
			DNSName:   name,
			Roots:     b.CAPool,
			KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		})
		if err != nil {
			t.Errorf("serving certificate for %q: %v", name, err)
		}
	}
	if err := serving.VerifyHostname("example.org"); err == nil {
		t.Error("serving certificate is valid for example.org, which was never asked for")
	}
	if _, err := serving.Verify(x509.VerifyOptions{Roots: b.CAPool, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err == nil {
		t.Error("serving certificate is usable as a client certificate")
	}
}

func TestAdminCertificate(t *testing.T) {
	b := ensure(t, t.TempDir(), defaultOpts)
	admin := readCert(t, b.AdminCertFile)

	if admin.Subject.CommonName != "kubernetes-admin" || !slices.Equal(admin.Subject.Organization, []string{"system:masters"}) {
		t.Errorf("admin subject = %q, want CN=kubernetes-admin,O=system:masters", admin.Subject)
	}
	if _, err := admin.Verify(x509.VerifyOptions{Roots: b.CAPool, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
		t.Errorf("admin certificate is not a client certificate of the CA: %v", err)
	}
	if _, err := admin.Verify(x509.VerifyOptions{Roots: b.CAPool, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}); err == nil {
		t.Error("admin certificate is usable as a serving certificate")
	}
	if _, err := tls.LoadX509KeyPair(b.AdminCertFile, b.AdminKeyFile); err != nil {
		t.Errorf("admin.crt and admin.key are not a pair: %v", err)
	}
}

func TestServiceAccountKeys(t *testing.T) {
	b := ensure(t, t.TempDir(), defaultOpts)

	key, err := keyutil.PrivateKeyFromFile(b.ServiceAccountKeyFile)
	if err != nil {
		t.Fatal(err)
	}
	pubs, err := keyutil.PublicKeysFromFile(b.ServiceAccountPublicKeyFile)
	if err != nil {
		t.Fatal(err)
	}
	if len(pubs) != 1 || !key.(*ecdsa.PrivateKey).PublicKey.Equal(pubs[0]) {
		t.Errorf("sa.pub holds %d keys, want exactly sa.key's", len(pubs))
	}
	data, _ := os.ReadFile(b.ServiceAccountPublicKeyFile)
	if !strings.HasPrefix(string(data), "-----BEGIN PUBLIC KEY-----") {
		t.Errorf("sa.pub is not a PEM PUBLIC KEY:\n%s", data)
	}
}

func TestSecondCallReusesEverything(t *testing.T) {
	dir := t.TempDir()
	first := ensure(t, dir, defaultOpts)
	before := snapshot(t, dir)

	second := ensure(t, dir, defaultOpts)

	if len(second.Written) != 0 {
		t.Errorf("second call wrote %v, want nothing", second.Written)
	}
	if files := changed(before, snapshot(t, dir)); len(files) != 0 {
		t.Errorf("second call changed %v", files)
	}
	if !second.CA.Equal(first.CA) || !second.ServingCert.Leaf.Equal(first.ServingCert.Leaf) {
		t.Error("second call returned different certificates")
	}
}

func TestKubeconfig(t *testing.T) {
	dir := t.TempDir()
	b := ensure(t, dir, defaultOpts)

	cfg, err := clientcmd.LoadFromFile(b.KubeconfigFile)
	if err != nil {
		t.Fatalf("clientcmd cannot load admin.kubeconfig: %v", err)
	}
	if cfg.CurrentContext != "kapi" {
		t.Errorf("current-context = %q, want kapi", cfg.CurrentContext)
	}
	if ctx := cfg.Contexts["kapi"]; ctx == nil || ctx.Cluster != "kapi" || ctx.AuthInfo != "admin" {
		t.Errorf("context kapi = %+v, want cluster kapi and user admin", ctx)
	}

	restConfig, err := clientcmd.BuildConfigFromFlags("", b.KubeconfigFile)
	if err != nil {
		t.Fatalf("building a rest.Config: %v", err)
	}
	files := snapshot(t, dir)
	if restConfig.Host != "https://127.0.0.1:6443" {
		t.Errorf("Host = %q", restConfig.Host)
	}
	tlsConfig := restConfig.TLSClientConfig
	if string(tlsConfig.CAData) != files[CACertFileName] ||
		string(tlsConfig.CertData) != files[AdminCertFileName] ||
		string(tlsConfig.KeyData) != files[AdminKeyFileName] {
		t.Error("rest.Config does not embed ca.crt, admin.crt and admin.key")
	}
	if tlsConfig.CAFile != "" || tlsConfig.CertFile != "" || tlsConfig.KeyFile != "" {
		t.Error("kubeconfig refers to files; it must embed their data to be portable")
	}
}

// TestClientGoConnects checks the whole PKI with a real TLS handshake: a
// server with the serving certificate that requires client certificates
// from the CA, and client-go configured from admin.kubeconfig alone.
func TestClientGoConnects(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, r.TLS.PeerCertificates[0].Subject.String())
	}))
	defer srv.Close()

	// The listener exists before the server starts, so its address can go
	// into the kubeconfig.
	b := ensure(t, t.TempDir(), Options{ServerURL: "https://" + srv.Listener.Addr().String()})
	srv.TLS = &tls.Config{
		Certificates: []tls.Certificate{b.ServingCert},
		ClientCAs:    b.CAPool,
		ClientAuth:   tls.RequireAndVerifyClientCert,
	}
	srv.StartTLS()

	restConfig, err := clientcmd.BuildConfigFromFlags("", b.KubeconfigFile)
	if err != nil {
		t.Fatal(err)
	}
	client, err := rest.HTTPClientFor(restConfig)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := client.Get(restConfig.Host + "/version")
	if err != nil {
		t.Fatalf("GET with the admin kubeconfig: %v", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if got, want := string(body), "CN=kubernetes-admin,O=system:masters"; got != want {
		t.Errorf("server saw client %q, want %q", got, want)
	}
}

func TestServerURLChangeRewritesOnlyTheKubeconfig(t *testing.T) {
	dir := t.TempDir()
	b := ensure(t, dir, defaultOpts)

	// Someone adds their own context and makes it current.
	cfg, err := clientcmd.LoadFromFile(b.KubeconfigFile)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Contexts["mine"] = &clientcmdapi.Context{Cluster: "kapi", AuthInfo: "admin", Namespace: "dev"}
	cfg.CurrentContext = "mine"
	if err := clientcmd.WriteToFile(*cfg, b.KubeconfigFile); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, dir)

	opts := defaultOpts
	opts.ServerURL = "https://localhost:7443" // localhost is already a SAN
	b = ensure(t, dir, opts)

	if !slices.Equal(b.Written, []string{KubeconfigFileName}) {
		t.Errorf("Written = %v, want only the kubeconfig", b.Written)
	}
	if files := changed(before, snapshot(t, dir)); !slices.Equal(files, []string{KubeconfigFileName}) {
		t.Errorf("changed %v, want only the kubeconfig", files)
	}
	cfg, err = clientcmd.LoadFromFile(b.KubeconfigFile)
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Clusters["kapi"].Server; got != "https://localhost:7443" {
		t.Errorf("server = %q, want the new URL", got)
	}
	if cfg.Contexts["mine"] == nil || cfg.CurrentContext != "mine" {
		t.Errorf("the user's context was lost: contexts %v, current %q", cfg.Contexts, cfg.CurrentContext)
	}
}

func TestNewNameReissuesServingCertificateFromTheSameCA(t *testing.T) {
	dir := t.TempDir()
	ensure(t, dir, defaultOpts)
	before := snapshot(t, dir)

	opts := defaultOpts
	opts.ExtraSANs = []string{"10.0.0.5"}
	b := ensure(t, dir, opts)

	want := []string{ServingCertFileName, ServingKeyFileName}
	if got := sorted(b.Written); !slices.Equal(got, want) {
		t.Errorf("Written = %v, want %v", got, want)
	}
	if files := changed(before, snapshot(t, dir)); !slices.Equal(files, want) {
		t.Errorf("changed %v, want %v", files, want)
	}
	if _, err := b.ServingCert.Leaf.Verify(x509.VerifyOptions{DNSName: "10.0.0.5", Roots: b.CAPool}); err != nil {
		t.Errorf("new serving certificate: %v", err)
	}

	// Asking for fewer names than the certificate has is not a reason to
	// replace it.
	if b = ensure(t, dir, defaultOpts); len(b.Written) != 0 {
		t.Errorf("dropping an extra SAN rewrote %v", b.Written)
	}
}

// loadCA reads the CA of a bootstrapped directory, to forge certificates
// with it.
func loadCA(t *testing.T, dir string) *authority {
	t.Helper()
	certPEM, _ := os.ReadFile(filepath.Join(dir, CACertFileName))
	keyPEM, _ := os.ReadFile(filepath.Join(dir, CAKeyFileName))
	ca, err := parseCA(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	return ca
}

// foreignCA creates a CA unrelated to any directory.
func foreignCA(t *testing.T) *authority {
	t.Helper()
	b := &bootstrap{dir: t.TempDir(), now: time.Now()}
	ca, err := b.createCA()
	if err != nil {
		t.Fatal(err)
	}
	return ca
}

func writeFile(t *testing.T, dir, name string, data []byte) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// replaceLeaf stores a certificate issued by ca from tmpl under the names
// of spec.
func replaceLeaf(t *testing.T, dir string, ca *authority, spec leafSpec, tmpl *x509.Certificate) {
	t.Helper()
	certPEM, keyPEM, err := ca.issue(tmpl)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, spec.certFile, certPEM)
	writeFile(t, dir, spec.keyFile, keyPEM)
}

func TestStaleCertificatesAreReplaced(t *testing.T) {
	now := time.Now()
	valid := func(subject pkix.Name, usage x509.ExtKeyUsage, dns ...string) *x509.Certificate {
		return &x509.Certificate{
			Subject: subject, NotBefore: now.Add(-time.Hour), NotAfter: now.Add(LeafLifetime),
			ExtKeyUsage: []x509.ExtKeyUsage{usage}, KeyUsage: x509.KeyUsageDigitalSignature,
			DNSNames: dns, IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		}
	}
	adminSubject := pkix.Name{CommonName: AdminUser, Organization: []string{AdminGroup}}
	serving := servingCert(hostList{})
	servingFiles := []string{ServingCertFileName, ServingKeyFileName}
	// A new admin certificate means a new kubeconfig.
	adminFiles := []string{AdminCertFileName, AdminKeyFileName, KubeconfigFileName}

	tests := []struct {
		name        string
		spoil       func(t *testing.T, dir string)
		wantWritten []string
	}{
		{
			name: "serving certificate expiring within RenewBefore",
			spoil: func(t *testing.T, dir string) {
				tmpl := valid(pkix.Name{CommonName: "kapi"}, x509.ExtKeyUsageServerAuth, "localhost")
				tmpl.NotAfter = now.Add(RenewBefore - time.Hour)
				replaceLeaf(t, dir, loadCA(t, dir), serving, tmpl)
			},
			wantWritten: servingFiles,
		},
		{
			name: "serving certificate expired",
			spoil: func(t *testing.T, dir string) {
				tmpl := valid(pkix.Name{CommonName: "kapi"}, x509.ExtKeyUsageServerAuth, "localhost")
				tmpl.NotBefore, tmpl.NotAfter = now.Add(-48*time.Hour), now.Add(-24*time.Hour)
				replaceLeaf(t, dir, loadCA(t, dir), serving, tmpl)
			},
			wantWritten: servingFiles,
		},
		{
			name: "serving certificate from another CA",
			spoil: func(t *testing.T, dir string) {
				replaceLeaf(t, dir, foreignCA(t), serving, valid(pkix.Name{CommonName: "kapi"}, x509.ExtKeyUsageServerAuth, "localhost"))
			},
			wantWritten: servingFiles,
		},
		{
			name:        "serving key missing",
			spoil:       func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, ServingKeyFileName)) },
			wantWritten: servingFiles,
		},
		{
			name:        "serving certificate corrupt",
			spoil:       func(t *testing.T, dir string) { writeFile(t, dir, ServingCertFileName, []byte("garbage")) },
			wantWritten: servingFiles,
		},
		{
			name: "serving key does not match its certificate",
			spoil: func(t *testing.T, dir string) {
				key, _ := os.ReadFile(filepath.Join(dir, AdminKeyFileName))
				writeFile(t, dir, ServingKeyFileName, key)
			},
			wantWritten: servingFiles,
		},
		{
			name: "admin certificate for another user",
			spoil: func(t *testing.T, dir string) {
				replaceLeaf(t, dir, loadCA(t, dir), adminCert, valid(pkix.Name{CommonName: "alice"}, x509.ExtKeyUsageClientAuth))
			},
			wantWritten: adminFiles,
		},
		{
			name: "admin certificate without system:masters",
			spoil: func(t *testing.T, dir string) {
				replaceLeaf(t, dir, loadCA(t, dir), adminCert, valid(pkix.Name{CommonName: AdminUser}, x509.ExtKeyUsageClientAuth))
			},
			wantWritten: adminFiles,
		},
		{
			name: "admin certificate not for client authentication",
			spoil: func(t *testing.T, dir string) {
				replaceLeaf(t, dir, loadCA(t, dir), adminCert, valid(adminSubject, x509.ExtKeyUsageServerAuth))
			},
			wantWritten: adminFiles,
		},
		{
			name:        "admin certificate missing",
			spoil:       func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, AdminCertFileName)) },
			wantWritten: adminFiles,
		},
		{
			name:        "kubeconfig missing",
			spoil:       func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, KubeconfigFileName)) },
			wantWritten: []string{KubeconfigFileName},
		},
		{
			name:        "kubeconfig corrupt",
			spoil:       func(t *testing.T, dir string) { writeFile(t, dir, KubeconfigFileName, []byte("{not yaml")) },
			wantWritten: []string{KubeconfigFileName},
		},
		{
			name: "service-account public key missing",
			spoil: func(t *testing.T, dir string) {
				os.Remove(filepath.Join(dir, ServiceAccountPublicKeyFileName))
			},
			wantWritten: []string{ServiceAccountPublicKeyFileName},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			ensure(t, dir, defaultOpts)
			tt.spoil(t, dir)
			before := snapshot(t, dir)

			b := ensure(t, dir, defaultOpts)

			if got, want := sorted(b.Written), sorted(tt.wantWritten); !slices.Equal(got, want) {
				t.Errorf("Written = %v, want %v", got, want)
			}
			for _, name := range changed(before, snapshot(t, dir)) {
				if !slices.Contains(tt.wantWritten, name) {
					t.Errorf("%s changed", name)
				}
			}
			// Whatever was replaced, the result is whole again.
			if again := ensure(t, dir, defaultOpts); len(again.Written) != 0 {
				t.Errorf("a third call still wrote %v", again.Written)
			}
			if _, err := b.ServingCert.Leaf.Verify(x509.VerifyOptions{DNSName: "localhost", Roots: b.CAPool}); err != nil {
				t.Errorf("serving certificate: %v", err)
			}
		})
	}
}

func TestUnusableKeysAreErrors(t *testing.T) {
	tests := []struct {
		name    string
		spoil   func(t *testing.T, dir string)
		wantErr string
	}{
		{
			name:    "CA key missing",
			spoil:   func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, CAKeyFileName)) },
			wantErr: "ca.crt exists but %DIR%/ca.key does not",
		},
		{
			name:    "CA certificate missing",
			spoil:   func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, CACertFileName)) },
			wantErr: "ca.key exists but %DIR%/ca.crt does not",
		},
		{
			name: "CA key belongs to another certificate",
			spoil: func(t *testing.T, dir string) {
				other, _ := marshalKey(mustKey(t))
				writeFile(t, dir, CAKeyFileName, other)
			},
			wantErr: "ca.key does not belong to any certificate in ca.crt",
		},
		{
			name: "CA certificate is not a CA",
			spoil: func(t *testing.T, dir string) {
				cert, _ := os.ReadFile(filepath.Join(dir, ServingCertFileName))
				key, _ := os.ReadFile(filepath.Join(dir, ServingKeyFileName))
				writeFile(t, dir, CACertFileName, cert)
				writeFile(t, dir, CAKeyFileName, key)
			},
			wantErr: `"kapi" is not a CA certificate`,
		},
		{
			name:    "CA certificate corrupt",
			spoil:   func(t *testing.T, dir string) { writeFile(t, dir, CACertFileName, []byte("garbage")) },
			wantErr: "ca.crt: data does not contain any valid RSA or ECDSA certificates",
		},
		{
			name: "CA expired",
			spoil: func(t *testing.T, dir string) {
				b := &bootstrap{dir: dir, now: time.Now().Add(-CALifetime - 24*time.Hour)}
				os.Remove(filepath.Join(dir, CACertFileName))
				os.Remove(filepath.Join(dir, CAKeyFileName))
				if _, err := b.createCA(); err != nil {
					t.Fatal(err)
				}
			},
			wantErr: "expired on",
		},
		{
			name:    "service-account key missing",
			spoil:   func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, ServiceAccountKeyFileName)) },
			wantErr: "sa.pub exists but %DIR%/sa.key does not",
		},
		{
			name: "service-account public key of another key",
			spoil: func(t *testing.T, dir string) {
				other := mustKey(t)
				b := &bootstrap{dir: dir}
				if err := b.writeServiceAccountPublicKey(other.Public()); err != nil {
					t.Fatal(err)
				}
			},
			wantErr: "sa.pub does not hold the public key of",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			ensure(t, dir, defaultOpts)
			tt.spoil(t, dir)
			before := snapshot(t, dir)

			b, err := EnsureBootstrap(dir, defaultOpts)
			if err == nil {
				t.Fatalf("EnsureBootstrap succeeded (wrote %v), want an error", b.Written)
			}
			if want := strings.ReplaceAll(tt.wantErr, "%DIR%", dir); !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not contain %q", err, want)
			}
			if files := changed(before, snapshot(t, dir)); len(files) != 0 {
				t.Errorf("a failed call changed %v", files)
			}
		})
	}
}

func TestExtraServiceAccountKeysAreKept(t *testing.T) {
	dir := t.TempDir()
	b := ensure(t, dir, defaultOpts)

	// A rotation in progress: sa.pub also holds the previous key.
	current, _ := os.ReadFile(b.ServiceAccountPublicKeyFile)
	previous := mustKey(t)
	der, _ := x509.MarshalPKIXPublicKey(previous.Public())
	bundle := append(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), current...)
	writeFile(t, dir, ServiceAccountPublicKeyFileName, bundle)

	if b = ensure(t, dir, defaultOpts); len(b.Written) != 0 {
		t.Errorf("wrote %v, want the rotated sa.pub kept", b.Written)
	}
}

func TestUserProvidedRSACA(t *testing.T) {
	dir := t.TempDir()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: mustSerial(t), Subject: pkix.Name{CommonName: "corp-ca"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(CALifetime),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		t.Fatal(err)
	}
	keyPEM, err := keyutil.MarshalPrivateKeyToPEM(key)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, CACertFileName, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
	writeFile(t, dir, CAKeyFileName, keyPEM)

	b := ensure(t, dir, defaultOpts)

	if slices.Contains(b.Written, CACertFileName) || slices.Contains(b.Written, CAKeyFileName) {
		t.Errorf("the provided CA was replaced: wrote %v", b.Written)
	}
	if b.CA.Subject.CommonName != "corp-ca" {
		t.Errorf("CA = %q, want the provided one", b.CA.Subject)
	}
	if _, err := readCert(t, b.AdminCertFile).Verify(x509.VerifyOptions{Roots: b.CAPool, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
		t.Errorf("admin certificate does not verify against the provided CA: %v", err)
	}
}

func TestCABundleWithSeveralCertificates(t *testing.T) {
	dir := t.TempDir()
	b := ensure(t, dir, defaultOpts)
	before := snapshot(t, dir)

	// An operator adds another trusted CA in front of kapi's own.
	other := foreignCA(t)
	writeFile(t, dir, CACertFileName, append(slices.Clone(other.certPEM), before[CACertFileName]...))

	b = ensure(t, dir, defaultOpts)

	// Clients must now trust both, so the kubeconfig embeds the new bundle.
	if !slices.Equal(b.Written, []string{KubeconfigFileName}) {
		t.Errorf("Written = %v, want only the kubeconfig", b.Written)
	}
	if b.CA.Equal(other.cert) {
		t.Error("the CA whose key is in ca.key must stay the signing CA")
	}
	otherClient, _, err := other.issue(&x509.Certificate{
		Subject: pkix.Name{CommonName: "bob"}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	})
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(otherClient)
	cert, _ := x509.ParseCertificate(block.Bytes)
	if _, err := cert.Verify(x509.VerifyOptions{Roots: b.CAPool, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
		t.Errorf("CAPool does not trust every certificate in ca.crt: %v", err)
	}
}

func TestInvalidOptions(t *testing.T) {
	tests := []struct {
		name    string
		opts    Options
		wantErr string
	}{
		{name: "plain http", opts: Options{ServerURL: "http://127.0.0.1:8080"}, wantErr: "must be https://host[:port]"},
		{name: "no host", opts: Options{ServerURL: "https://:6443"}, wantErr: "must be https://host[:port]"},
		{name: "not a URL", opts: Options{ServerURL: "https://[::1"}, wantErr: "server URL"},
		{name: "bad server host", opts: Options{ServerURL: "https://under_score:6443"}, wantErr: `server URL host: "under_score" is neither`},
		{name: "bad extra SAN", opts: Options{ExtraSANs: []string{"not a name"}}, wantErr: `extra SAN: "not a name" is neither an IP address nor a DNS name`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "pki")
			_, err := EnsureBootstrap(dir, tt.opts)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v, want %q", err, tt.wantErr)
			}
			if _, err := os.Stat(dir); !os.IsNotExist(err) {
				t.Error("invalid options still created the directory")
			}
		})
	}
}

func TestDefaultServerURL(t *testing.T) {
	b := ensure(t, t.TempDir(), Options{})
	cfg, err := clientcmd.LoadFromFile(b.KubeconfigFile)
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Clusters["kapi"].Server; got != DefaultServerURL {
		t.Errorf("server = %q, want %q", got, DefaultServerURL)
	}
}

func mustKey(t *testing.T) *ecdsa.PrivateKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func mustSerial(t *testing.T) *big.Int {
	t.Helper()
	s, err := newSerial()
	if err != nil {
		t.Fatal(err)
	}
	return s
}
