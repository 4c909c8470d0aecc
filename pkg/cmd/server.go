package cmd

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	utilnet "k8s.io/apimachinery/pkg/util/net"

	"github.com/kapi-dev/kapi/pkg/admission"
	"github.com/kapi-dev/kapi/pkg/api/scheme"
	"github.com/kapi-dev/kapi/pkg/apiextensions"
	"github.com/kapi-dev/kapi/pkg/certs"
	"github.com/kapi-dev/kapi/pkg/controlplane"
	"github.com/kapi-dev/kapi/pkg/endpoints/discovery"
	"github.com/kapi-dev/kapi/pkg/openapi"
	"github.com/kapi-dev/kapi/pkg/printers"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/server"
	"github.com/kapi-dev/kapi/pkg/server/healthz"
	"github.com/kapi-dev/kapi/pkg/storage/embedded"
	"github.com/kapi-dev/kapi/pkg/storage/etcd3"
	"github.com/kapi-dev/kapi/pkg/storage/storagebackend"
	"github.com/kapi-dev/kapi/pkg/version"
)

// Server is a configured, not yet running kapi.
type Server struct {
	Options  *Options
	Prepared *server.Prepared
	// Kubeconfig is the admin kubeconfig written to the data dir, when
	// kapi generated its certificates.
	Kubeconfig string
	// URL is where kapi serves.
	URL string

	listener net.Listener
	closers  []func() error
	log      *slog.Logger
}

// NewServer builds kapi from its options: certificates, storage, the
// delegation chain and the filter chain, and binds the secure port.
func NewServer(ctx context.Context, o *Options, log *slog.Logger) (srv *Server, err error) {
	if errs := o.Validate(); len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	s := &Server{Options: o, log: log}
	defer func() {
		if err != nil {
			s.close()
		}
	}()
	if err := os.MkdirAll(o.DataDir, 0o700); err != nil {
		return nil, fmt.Errorf("--data-dir: %w", err)
	}

	_, serviceNet, _ := net.ParseCIDR(o.ServiceClusterIPRange)
	nodePortLow, nodePortHigh, _ := ParsePortRange(o.ServiceNodePortRange)
	ln := o.Listener
	if ln == nil {
		if ln, err = net.Listen("tcp", net.JoinHostPort(o.BindAddress.String(), strconv.Itoa(o.SecurePort))); err != nil {
			return nil, fmt.Errorf("--secure-port: %w", err)
		}
	}
	s.listener = ln
	s.closers = append(s.closers, ln.Close)
	port := ln.Addr().(*net.TCPAddr).Port
	host := o.BindAddress.String()
	if o.BindAddress.IsUnspecified() {
		host = "127.0.0.1"
	}
	s.URL = "https://" + net.JoinHostPort(host, strconv.Itoa(port))

	tlsConfig, caPool, caPEM, err := s.servingTLS(serviceNet, port)
	if err != nil {
		return nil, err
	}

	client, err := s.startStorage(ctx)
	if err != nil {
		return nil, err
	}
	// The caches watch through client: they stop before it closes.
	watchCaches := generic.NewWatchCaches(o.WatchCacheConfig())
	s.closers = append(s.closers, func() error { watchCaches.Stop(); return nil })
	// Without compaction etcd keeps every revision until it runs out of
	// space. The compactor takes turns with other servers of the same
	// etcd, kube-apiserver included.
	if o.EtcdCompactionInterval > 0 {
		compactCtx, stopCompactor := context.WithCancel(context.Background())
		s.closers = append(s.closers, func() error { stopCompactor(); return nil })
		go etcd3.RunCompactor(compactCtx, client, o.EtcdCompactionInterval)
	}

	loopbackToken, err := randomToken()
	if err != nil {
		return nil, err
	}
	authn, err := buildAuthentication(o, caPool, loopbackToken)
	if err != nil {
		return nil, err
	}
	authz, err := buildAuthorization(o)
	if err != nil {
		return nil, err
	}

	runtimeConfig, _ := controlplane.ParseRuntimeConfig(o.RuntimeConfig) // validated above
	disc := discovery.NewRegistry()
	openAPIService := openapi.NewService(openapi.Config{
		Info:   openapi.Info{Title: "Kubernetes", Version: version.GitVersion()},
		Scheme: scheme.Scheme,
	})
	openAPI := server.NewOpenAPIResources(openAPIService)
	storageBackend := &storagebackend.Factory{Client: client, Prefix: o.EtcdPrefix}
	restOptions := generic.RESTOptions{
		StorageFactory: storageBackend,
		Decorator:      watchCaches.Decorate,
		TableConvertor: printers.New(),
	}
	sharedAdmission := &admission.Deferred{}
	apiextensionsServer, err := apiextensions.New(apiextensions.Config{
		RESTOptions:         restOptions,
		Storage:             storageBackend,
		Admission:           sharedAdmission,
		MinRequestTimeout:   time.Duration(o.MinRequestTimeout) * time.Second,
		MaxRequestBodyBytes: o.MaxRequestBodyBytes,
		OpenAPI:             openAPI,
		Logger:              log,
		BuiltinResource:     builtinResource(disc),
	}, server.NotFoundServer{}, disc)
	if err != nil {
		return nil, err
	}
	kube, err := controlplane.New(controlplane.Config{
		RESTOptions:           restOptions,
		SharedAdmission:       sharedAdmission,
		ServiceClusterIPRange: serviceNet,
		ServiceNodePortRange:  utilnet.PortRange{Base: nodePortLow, Size: nodePortHigh - nodePortLow + 1},
		OpenAPI:               openAPI,
		RuntimeConfig:         runtimeConfig,
		SecurePort:            port,
		PublicAddress:         s.publicAddress(),
		MinRequestTimeout:     time.Duration(o.MinRequestTimeout) * time.Second,
		MaxRequestBodyBytes:   o.MaxRequestBodyBytes,
	}, apiextensionsServer, disc)
	if err != nil {
		return nil, err
	}
	kube.AddHealthChecks(healthz.ContextCheck("etcd", etcd3.HealthCheck(client)))
	aggregator := server.New("aggregator", kube, disc)
	metricsRegistry := installSystemEndpoints(aggregator, o, s.advertiseAddress(port))
	aggregator.Handle("/openapi/", openAPIService)

	prepared, err := aggregator.PrepareRun(server.ServingConfig{
		Listener:              ln,
		TLS:                   tlsConfig,
		BuildHandlerChain:     handlerChain(o, authn, authz, metricsRegistry, log),
		ShutdownDelayDuration: o.ShutdownDelayDuration,
		Loopback:              server.LoopbackConfig{Host: s.URL, BearerToken: loopbackToken, CAData: caPEM, ServerName: loopbackServerName},
		Logger:                log,
	})
	if err != nil {
		return nil, err
	}
	s.Prepared = prepared
	return s, nil
}

// Run serves until ctx is done, then shuts down and closes storage.
func (s *Server) Run(ctx context.Context) error {
	err := s.Prepared.Run(ctx)
	s.listener = nil
	if cerr := s.close(); err == nil {
		err = cerr
	}
	return err
}

func (s *Server) close() error {
	var errs []error
	for i := len(s.closers) - 1; i >= 0; i-- {
		if err := s.closers[i](); err != nil && !errors.Is(err, net.ErrClosed) {
			errs = append(errs, err)
		}
	}
	s.closers = nil
	return errors.Join(errs...)
}

// publicAddress is the IP this server advertises to the cluster, chosen
// as kube-apiserver does: --advertise-address, else --bind-address unless
// it is loopback or unspecified, else the address of the host's default
// route, so that in-cluster clients can reach it.
func (s *Server) publicAddress() net.IP {
	if ip := s.Options.AdvertiseAddress; ip != nil && !ip.IsUnspecified() {
		return ip
	}
	if ip, err := utilnet.ResolveBindAddress(s.Options.BindAddress); err == nil {
		return ip
	}
	return net.ParseIP("127.0.0.1")
}

// advertiseAddress is what discovery tells clients to use.
func (s *Server) advertiseAddress(port int) string {
	return net.JoinHostPort(s.publicAddress().String(), strconv.Itoa(port))
}

// loopbackServerName is the TLS server name in-process clients ask for.
// Only kapi's own serving certificate covers it, so loopback clients can
// verify the server with kapi's CA even when --tls-cert-file or --cert-dir
// give the server another certificate.
const loopbackServerName = "apiserver-loopback-client"

// servingTLS loads the serving certificate and client CA. kapi's own PKI
// (CA, serving and admin certificates, admin.kubeconfig) lives in
// <data-dir>/pki and is generated on the first start; a certificate given
// by --tls-cert-file, or found as apiserver.crt/apiserver.key in --cert-dir
// as kube-apiserver looks for it, is served instead.
func (s *Server) servingTLS(serviceNet *net.IPNet, port int) (*tls.Config, *x509.CertPool, []byte, error) {
	o := s.Options
	serviceIP := firstIP(serviceNet)
	// The address advertised to the cluster must verify too.
	extra := []string{s.publicAddress().String(), loopbackServerName}
	if ip := o.BindAddress; ip != nil && !ip.IsUnspecified() {
		extra = append(extra, ip.String())
	}
	bundle, err := certs.EnsureBootstrap(filepath.Join(o.DataDir, "pki"), certs.Options{ExtraSANs: extra, ServiceIP: serviceIP, ServerURL: s.URL})
	if err != nil {
		return nil, nil, nil, fmt.Errorf("--data-dir: %w", err)
	}
	s.Kubeconfig = filepath.Join(o.DataDir, certs.KubeconfigFileName)
	if err := copyFile(bundle.KubeconfigFile, s.Kubeconfig); err != nil {
		return nil, nil, nil, err
	}
	caPEM, err := os.ReadFile(bundle.CACertFile)
	if err != nil {
		return nil, nil, nil, err
	}
	certFile, keyFile, flag := o.TLSCertFile, o.TLSPrivateKeyFile, "--tls-cert-file/--tls-private-key-file"
	if certFile == "" && o.CertDir != "" {
		c, k := filepath.Join(o.CertDir, "apiserver.crt"), filepath.Join(o.CertDir, "apiserver.key")
		if fileExists(c) && fileExists(k) {
			certFile, keyFile, flag = c, k, "--cert-dir"
		}
	}
	// The first certificate is served to clients that ask for no other
	// name; kapi's own comes after, for the names only it covers.
	certificates := []tls.Certificate{bundle.ServingCert}
	if certFile != "" {
		given, err := tls.LoadX509KeyPair(certFile, keyFile)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("%s: %w", flag, err)
		}
		certificates = []tls.Certificate{given, bundle.ServingCert}
	}
	clientCAs := bundle.CAPool
	if o.ClientCAFile != "" {
		data, err := os.ReadFile(o.ClientCAFile)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("--client-ca-file: %w", err)
		}
		clientCAs = x509.NewCertPool()
		if !clientCAs.AppendCertsFromPEM(data) {
			return nil, nil, nil, fmt.Errorf("--client-ca-file %s: no certificates found", o.ClientCAFile)
		}
	}
	cfg := &tls.Config{
		MinVersion:   tls.VersionTLS12,
		Certificates: certificates,
		// Client certificates are optional: they are one way of several
		// to authenticate, checked by the x509 authenticator.
		ClientAuth: tls.RequestClientCert,
		NextProtos: []string{"h2", "http/1.1"},
	}
	return cfg, clientCAs, caPEM, nil
}

// startStorage connects to --etcd-servers or starts the embedded etcd.
func (s *Server) startStorage(ctx context.Context) (*clientv3.Client, error) {
	o := s.Options
	if len(o.EtcdServers) > 0 {
		client, err := etcd3.NewClient(etcd3.ClientConfig{
			Servers: o.EtcdServers, CAFile: o.EtcdCAFile, CertFile: o.EtcdCertFile, KeyFile: o.EtcdKeyFile,
		})
		if err != nil {
			return nil, fmt.Errorf("--etcd-servers: %w", err)
		}
		s.closers = append(s.closers, client.Close)
		return client, nil
	}
	etcd, err := embedded.Start(ctx, embedded.Config{DataDir: filepath.Join(o.DataDir, "etcd")})
	if err != nil {
		return nil, fmt.Errorf("embedded etcd in --data-dir: %w", err)
	}
	s.closers = append(s.closers, etcd.Close)
	return etcd.Client(), nil
}

func firstIP(n *net.IPNet) net.IP {
	ip := append(net.IP(nil), n.IP.Mask(n.Mask)...)
	for i := len(ip) - 1; i >= 0; i-- {
		ip[i]++
		if ip[i] != 0 {
			break
		}
	}
	return ip
}

func randomToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// copyFile makes to a copy of from. A copy that is up to date is left
// alone, and a new one replaces the old at once: kubectl and the tests
// read admin.kubeconfig while kapi restarts, and must never find it
// empty.
func copyFile(from, to string) error {
	if from == to {
		return nil
	}
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	if old, err := os.ReadFile(to); err == nil && bytes.Equal(old, data) {
		return nil
	}
	return certs.WriteFileAtomic(to, data, 0o600)
}

// builtinResource reports whether a group served by the servers of the
// chain (not by CRDs: those are in groups of their own) has a resource,
// so that a CRD cannot take the name of a built-in resource.
func builtinResource(disc *discovery.Registry) func(group, resource string) bool {
	return func(group, resource string) bool {
		return disc.HasResource(group, resource)
	}
}
