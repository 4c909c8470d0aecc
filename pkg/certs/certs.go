// Package certs maintains kapi's zero-config PKI: a CA, the API server's
// serving certificate, an administrator's client certificate, the
// service-account signing keys and an admin.kubeconfig that uses them.
//
// EnsureBootstrap is idempotent. The first call creates everything; later
// calls keep what is there and replace only what no longer fits: a
// certificate that is missing, unreadable, not issued by the CA, expiring
// within RenewBefore, or (for the serving certificate) not valid for every
// name asked for. The CA and the service-account keys are never replaced,
// since replacing them would silently invalidate every credential issued
// with them; when they are unusable EnsureBootstrap fails and says which
// file to look at.
//
// All keys are ECDSA P-256: generating one takes microseconds, where a
// 2048-bit RSA key takes tens of milliseconds, and kapi's first start must
// stay well under a second.
//
// Concurrent calls on the same directory are not coordinated; kapi runs
// one server per data dir.
package certs

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"time"
)

// File names inside the directory, as kubeadm names the same files.
const (
	CACertFileName                  = "ca.crt"
	CAKeyFileName                   = "ca.key"
	ServingCertFileName             = "apiserver.crt"
	ServingKeyFileName              = "apiserver.key"
	AdminCertFileName               = "admin.crt"
	AdminKeyFileName                = "admin.key"
	ServiceAccountKeyFileName       = "sa.key"
	ServiceAccountPublicKeyFileName = "sa.pub"
	KubeconfigFileName              = "admin.kubeconfig"
)

// Identities and names written into the certificates and the kubeconfig.
const (
	// AdminUser and AdminGroup are the admin certificate's subject. The
	// group is the one kube-apiserver's privileged authorizer allows
	// everything to.
	AdminUser  = "kubernetes-admin"
	AdminGroup = "system:masters"

	KubeconfigCluster = "kapi"
	KubeconfigUser    = "admin"
	KubeconfigContext = "kapi"

	// DefaultServerURL is used when Options.ServerURL is empty.
	DefaultServerURL = "https://127.0.0.1:6443"
)

// Validity periods.
const (
	CALifetime   = 10 * 365 * 24 * time.Hour
	LeafLifetime = 365 * 24 * time.Hour
	// RenewBefore is how long before it expires a certificate is replaced
	// at start-up. It is generous because certificates are only looked at
	// when kapi starts, and an edge server may run for months between
	// restarts.
	RenewBefore = 90 * 24 * time.Hour
	// backdate is subtracted from NotBefore so that a client whose clock is
	// a little behind still accepts a certificate made a moment ago.
	backdate = 5 * time.Minute
)

// Options says what the PKI must be valid for.
type Options struct {
	// ExtraSANs are host names (a leading "*." is allowed) or IP addresses
	// the serving certificate must be valid for, on top of the defaults.
	ExtraSANs []string
	// ServiceIP is the first address of the service cluster IP range, the
	// ClusterIP of the "kubernetes" Service that in-cluster clients dial.
	// Nil leaves it out.
	ServiceIP net.IP
	// ServerURL is the server written into admin.kubeconfig; its host is
	// added to the serving certificate's names. It must be https. Empty
	// means DefaultServerURL.
	ServerURL string
	// Logger is told which files are replaced and why; nil discards it.
	Logger *slog.Logger
}

// Bundle is the PKI in a directory, ready for the server to use.
type Bundle struct {
	Dir string

	// Paths of the files, for the flags of the same meaning
	// (--client-ca-file, --tls-cert-file, --service-account-key-file, ...).
	CACertFile                  string
	CAKeyFile                   string
	ServingCertFile             string
	ServingKeyFile              string
	AdminCertFile               string
	AdminKeyFile                string
	ServiceAccountKeyFile       string
	ServiceAccountPublicKeyFile string
	KubeconfigFile              string

	// CA is the certificate that signs the others. CAPool holds it and any
	// other certificate in ca.crt, to verify client certificates with.
	CA     *x509.Certificate
	CAPool *x509.CertPool
	// ServingCert is the serving certificate and key, with Leaf set.
	ServingCert tls.Certificate

	// Written lists, by file name and in order, the files this call created
	// or replaced; empty when everything was reused.
	Written []string
}

// EnsureBootstrap makes sure dir holds a complete PKI for opts, creating dir
// (mode 0700) and whatever is missing or stale, and returns it.
func EnsureBootstrap(dir string, opts Options) (*Bundle, error) {
	serverURL := opts.ServerURL
	if serverURL == "" {
		serverURL = DefaultServerURL
	}
	u, err := url.Parse(serverURL)
	if err != nil {
		return nil, fmt.Errorf("server URL %q: %w", serverURL, err)
	}
	if u.Scheme != "https" || u.Hostname() == "" {
		return nil, fmt.Errorf("server URL %q must be https://host[:port]", serverURL)
	}
	hosts, err := servingHosts(opts, u.Hostname())
	if err != nil {
		return nil, err
	}

	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	b := &bootstrap{dir: dir, now: time.Now(), log: log}

	ca, err := b.ensureCA()
	if err != nil {
		return nil, err
	}
	serving, err := b.ensureLeaf(ca, servingCert(hosts))
	if err != nil {
		return nil, err
	}
	admin, err := b.ensureLeaf(ca, adminCert)
	if err != nil {
		return nil, err
	}
	if err := b.ensureServiceAccountKeys(); err != nil {
		return nil, err
	}
	if err := b.ensureKubeconfig(serverURL, ca.certPEM, admin); err != nil {
		return nil, err
	}

	if len(b.written) > 0 {
		// The renames above are durable only once the directory is.
		if err := syncDir(dir); err != nil {
			return nil, err
		}
	}

	pair, err := keyPair(serving.certPEM, serving.keyPEM)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.path(ServingCertFileName), err) // just written or verified: a bug
	}
	return &Bundle{
		Dir:                         dir,
		CACertFile:                  b.path(CACertFileName),
		CAKeyFile:                   b.path(CAKeyFileName),
		ServingCertFile:             b.path(ServingCertFileName),
		ServingKeyFile:              b.path(ServingKeyFileName),
		AdminCertFile:               b.path(AdminCertFileName),
		AdminKeyFile:                b.path(AdminKeyFileName),
		ServiceAccountKeyFile:       b.path(ServiceAccountKeyFileName),
		ServiceAccountPublicKeyFile: b.path(ServiceAccountPublicKeyFileName),
		KubeconfigFile:              b.path(KubeconfigFileName),
		CA:                          ca.cert,
		CAPool:                      ca.pool,
		ServingCert:                 pair,
		Written:                     b.written,
	}, nil
}

// bootstrap is the state of one EnsureBootstrap call.
type bootstrap struct {
	dir string
	// now is fixed for the whole call, so that every check and every new
	// certificate agree on the time.
	now     time.Time
	written []string
	log     *slog.Logger
}

func (b *bootstrap) path(name string) string { return filepath.Join(b.dir, name) }

// write replaces the file name with data, atomically: a crash leaves the old
// file or the new one, never half of one.
func (b *bootstrap) write(name string, data []byte, perm os.FileMode) error {
	if err := WriteFileAtomic(b.path(name), data, perm); err != nil {
		return err
	}
	b.written = append(b.written, name)
	return nil
}

func (b *bootstrap) logReplace(what, reason string) {
	b.log.Info("Replacing "+what, "dir", b.dir, "reason", reason)
}

// WriteFileAtomic replaces the file at path with data: readers see the old
// content or the new, never a partly written file.
func WriteFileAtomic(path string, data []byte, perm os.FileMode) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if err = f.Chmod(perm); err != nil {
		return err
	}
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// keyPair is tls.X509KeyPair with Leaf always set (it is not when the
// GODEBUG setting x509keypairleaf=0 is in effect).
func keyPair(certPEM, keyPEM []byte) (tls.Certificate, error) {
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil || pair.Leaf != nil {
		return pair, err
	}
	pair.Leaf, err = x509.ParseCertificate(pair.Certificate[0])
	return pair, err
}
