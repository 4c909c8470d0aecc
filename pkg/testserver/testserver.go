// Package testserver starts a kapi inside a test process, on embedded etcd
// in a temporary directory, and gives the test an admin client config.
// It is meant for other projects' tests as much as for kapi's own: see
// the package Example. Options are typed; they become the app.Config the
// kapi binary builds from its flags, so a test server is the binary's
// server.
package testserver

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kapi-dev/kapi/pkg/app"
	"github.com/kapi-dev/kapi/pkg/authorization"
	"github.com/kapi-dev/kapi/pkg/controlplane"
	"github.com/kapi-dev/kapi/pkg/features"
)

// Server is a running kapi.
type Server struct {
	// ClientConfig authenticates as the admin user (system:masters).
	ClientConfig *rest.Config
	// Kubeconfig is the path of the admin kubeconfig.
	Kubeconfig string
	URL        string
	// Address is the host:port the server listens on.
	Address string
	// DataDir holds etcd's data and the certificates.
	DataDir string

	cancel context.CancelFunc
	done   chan error
}

// Options tune a test server. The zero value is kapi's defaults (as
// app.NewConfig has them) on a fresh data dir and a free port.
type Options struct {
	// DataDir reuses a data dir (to test restarts); empty means a new
	// temporary one.
	DataDir string
	// Address is the host:port to serve on (to restart a server where
	// its clients expect it); empty means a free port on 127.0.0.1.
	Address string
	// Log receives the server's log; nil discards it.
	Log io.Writer

	// TokenAuthFile is a CSV of static bearer tokens
	// (--token-auth-file).
	TokenAuthFile string
	// DisableAnonymousAuth refuses requests without credentials
	// (--anonymous-auth=false).
	DisableAnonymousAuth bool
	// Authentication sets --requestheader-* and
	// --authentication-token-webhook-*; nil means kube-apiserver's
	// defaults.
	Authentication *app.AuthenticationConfig
	// AuthorizationMode is the ordered list of authorizers
	// (--authorization-mode); nil means kapi's default, Node,RBAC.
	AuthorizationMode []string
	// Authorization sets the other authorization flags
	// (--authorization-policy-file, --authorization-webhook-*,
	// --authorization-config); nil means their defaults. Its Modes field
	// is ignored: AuthorizationMode is the list.
	Authorization *authorization.Config
	// EtcdCompactionInterval is how often etcd is compacted
	// (--etcd-compaction-interval); 0 means the default, 5 minutes.
	EtcdCompactionInterval time.Duration
	// DisableWatchCache serves every resource from etcd
	// (--watch-cache=false).
	DisableWatchCache bool
	// WatchCacheSizes override the watch cache's sizes per resource, 0
	// meaning no cache (--watch-cache-sizes).
	WatchCacheSizes map[schema.GroupResource]int
	// ServiceNodePortRange is the range node ports are allocated from
	// (--service-node-port-range); zero means 30000-32767.
	ServiceNodePortRange utilnet.PortRange
	// ServiceClusterIPRanges are the service ranges
	// (--service-cluster-ip-range): one, or two of different families,
	// primary first, for a dual-stack cluster; nil means kapi's default.
	ServiceClusterIPRanges []*net.IPNet
	// RuntimeConfig switches built-in group versions off
	// (--runtime-config), e.g. {"apps/v1": "false"}.
	RuntimeConfig controlplane.RuntimeConfig
	// FeatureGates are --feature-gates (features.Parse); the zero value
	// is kube-apiserver's defaults.
	FeatureGates features.Gates
	// DisableProfiling turns /debug/pprof off (--profiling=false).
	DisableProfiling bool
	// EtcdServers is an external etcd (--etcd-servers), for a test that
	// reads what is stored; empty means an embedded etcd in DataDir.
	EtcdServers []string
	// EncryptionProviderConfig encrypts resources at rest
	// (--encryption-provider-config), reloaded every
	// EncryptionReloadInterval (0: a minute) when
	// EncryptionProviderConfigAutomaticReload.
	EncryptionProviderConfig                string
	EncryptionProviderConfigAutomaticReload bool
	EncryptionReloadInterval                time.Duration
	// Audit is the --audit-* configuration (start from
	// app.NewAuditConfig); nil audits nothing.
	Audit *app.AuditConfig
	// AdvertiseAddress is the address of the server in the kubernetes
	// endpoints (--advertise-address); nil means the host's.
	AdvertiseAddress net.IP
	// EndpointReconcileInterval is how often the server refreshes its
	// lease in the kubernetes endpoints and repairs them; 0 means 10s.
	EndpointReconcileInterval time.Duration
	// Admission sets --enable-admission-plugins,
	// --disable-admission-plugins and --admission-control-config-file;
	// the zero value runs kube-apiserver's default plugins.
	Admission app.AdmissionConfig
	// DisablePolicyStatusController does not type check
	// ValidatingAdmissionPolicies, as a kube-apiserver without
	// kube-controller-manager does not.
	DisablePolicyStatusController bool
	// Aggregator sets --proxy-client-cert-file, --proxy-client-key-file
	// and --aggregator-reject-forwarding-redirect; nil means their
	// defaults (no client certificate, redirects rejected).
	Aggregator *app.AggregatorConfig
}

// config is the typed configuration of a test server.
func (opts Options) config() *app.Config {
	c := app.NewConfig()
	c.DataDir = opts.DataDir
	c.TokenAuthFile = opts.TokenAuthFile
	c.AnonymousAuth = !opts.DisableAnonymousAuth
	if opts.Authentication != nil {
		c.Authentication = *opts.Authentication
	}
	if opts.AuthorizationMode != nil {
		c.AuthorizationMode = opts.AuthorizationMode
	}
	if opts.Authorization != nil {
		c.Authorization = *opts.Authorization
	}
	if opts.EtcdCompactionInterval != 0 {
		c.Etcd.CompactionInterval = opts.EtcdCompactionInterval
	}
	c.WatchCache.Enabled = !opts.DisableWatchCache
	for res, size := range opts.WatchCacheSizes {
		c.WatchCache.Sizes[res] = size
	}
	if opts.ServiceNodePortRange.Size != 0 {
		c.ServiceNodePortRange = opts.ServiceNodePortRange
	}
	if n := len(opts.ServiceClusterIPRanges); n > 0 {
		c.ServiceClusterIPRange = opts.ServiceClusterIPRanges[0]
		if n > 1 {
			c.SecondaryServiceClusterIPRange = opts.ServiceClusterIPRanges[1]
		}
	}
	c.FeatureGates = opts.FeatureGates
	if opts.RuntimeConfig != nil {
		c.RuntimeConfig = opts.RuntimeConfig
	}
	c.Profiling = !opts.DisableProfiling
	c.Etcd.Servers = opts.EtcdServers
	c.Etcd.EncryptionProviderConfig = opts.EncryptionProviderConfig
	c.Etcd.EncryptionProviderConfigAutomaticReload = opts.EncryptionProviderConfigAutomaticReload
	c.Etcd.EncryptionReloadInterval = opts.EncryptionReloadInterval
	if opts.Audit != nil {
		c.Audit = *opts.Audit
	}
	c.AdvertiseAddress = opts.AdvertiseAddress
	c.EndpointReconcileInterval = opts.EndpointReconcileInterval
	c.Admission = opts.Admission
	c.DisablePolicyStatusController = opts.DisablePolicyStatusController
	if opts.Aggregator != nil {
		c.Aggregator = *opts.Aggregator
	}
	c.Logger = slog.New(slog.DiscardHandler)
	if opts.Log != nil {
		c.Logger = slog.New(slog.NewTextHandler(opts.Log, nil))
	}
	return c
}

// Start starts kapi and waits until it is ready. It is stopped when the
// test ends.
func Start(t testing.TB, opts Options) *Server {
	t.Helper()
	s, err := StartE(opts, t.TempDir)
	if err != nil {
		t.Fatalf("starting kapi: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Stop(); err != nil {
			t.Errorf("stopping kapi: %v", err)
		}
	})
	return s
}

// StartE starts kapi; tempDir makes the data dir when opts has none.
func StartE(opts Options, tempDir func() string) (*Server, error) {
	c := opts.config()
	if c.DataDir == "" {
		c.DataDir = tempDir()
	}
	addr := opts.Address
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	c.Listener = ln
	ctx, cancel := context.WithCancel(context.Background())
	srv, err := app.New(ctx, c)
	if err != nil {
		cancel()
		return nil, err
	}
	s := &Server{Kubeconfig: srv.Kubeconfig, URL: srv.URL, Address: ln.Addr().String(), DataDir: c.DataDir, cancel: cancel, done: make(chan error, 1)}
	go func() { s.done <- srv.Run(ctx) }()

	cfg, err := clientcmd.BuildConfigFromFlags("", srv.Kubeconfig)
	if err != nil {
		_ = s.Stop()
		return nil, err
	}
	s.ClientConfig = cfg
	if err := s.waitReady(30 * time.Second); err != nil {
		_ = s.Stop()
		return nil, err
	}
	return s, nil
}

// waitReady polls /readyz until it answers ok.
func (s *Server) waitReady(timeout time.Duration) error {
	client, err := rest.HTTPClientFor(s.ClientConfig)
	if err != nil {
		return err
	}
	deadline := time.Now().Add(timeout)
	last := ""
	for {
		resp, err := client.Get(s.URL + "/readyz?verbose")
		if err == nil {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			last = string(body)
		}
		select {
		case err := <-s.done:
			s.done <- err
			return fmt.Errorf("kapi stopped before it was ready: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			// What is still failing says why.
			var failing []string
			for _, line := range strings.Split(last, "\n") {
				if strings.HasPrefix(line, "[-]") {
					failing = append(failing, line)
				}
			}
			return fmt.Errorf("kapi was not ready in time: %s", strings.Join(failing, "; "))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Stop shuts kapi down and waits until it has stopped.
func (s *Server) Stop() error {
	if s.cancel == nil {
		return nil
	}
	s.cancel()
	s.cancel = nil
	return <-s.done
}
