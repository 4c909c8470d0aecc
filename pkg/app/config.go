// Package app assembles kapi from a typed Config: certificates, storage,
// the loopback client and its informers, authentication, authorization,
// the admission chain, the delegation chain of servers (aggregator ->
// kube -> apiextensions -> not found) and the filter chain in front of
// it. It is what kube-apiserver's cmd/kube-apiserver/app is to
// kube-apiserver: pkg/cmd turns flags into a Config, pkg/testserver builds
// one in code, and both call New and Run.
//
// Everything is built in dependency order and handed down: a component
// gets what it needs when it is made, and nothing is set on it later.
package app

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"time"

	utilnet "k8s.io/apimachinery/pkg/util/net"

	"github.com/kapi-dev/kapi/pkg/authorization"
	"github.com/kapi-dev/kapi/pkg/controlplane"
	"github.com/kapi-dev/kapi/pkg/features"
	"github.com/kapi-dev/kapi/pkg/registry/core/node"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
)

// Config is a kapi, described with typed values. NewConfig gives
// kube-apiserver's defaults (kapi's where it has its own).
type Config struct {
	// DataDir holds the embedded etcd's data, kapi's generated PKI and
	// admin.kubeconfig. It is created if missing.
	DataDir string

	// Listener, when set, is served instead of binding BindAddress and
	// SecurePort (in-process servers bind port 0 themselves). New takes
	// it over: it is closed when the server stops or New fails.
	Listener    net.Listener
	BindAddress net.IP
	SecurePort  int
	// AdvertiseAddress is the address in the kubernetes Endpoints and in
	// discovery; nil means one derived from BindAddress.
	AdvertiseAddress net.IP
	// EndpointReconcileInterval is how often this server refreshes its
	// lease in the kubernetes endpoints and puts back the kubernetes
	// Service and endpoints if deleted; 0 means kube-apiserver's 10s
	// (there is no flag, as in kube-apiserver).
	EndpointReconcileInterval time.Duration
	// TLSCertFile and TLSPrivateKeyFile, or apiserver.crt/.key in
	// CertDir, are served instead of kapi's generated certificate.
	TLSCertFile       string
	TLSPrivateKeyFile string
	CertDir           string

	// ClientCAFile verifies client certificates; empty means kapi's CA.
	ClientCAFile string
	// TokenAuthFile is a CSV of static bearer tokens.
	TokenAuthFile string
	// AnonymousAuth lets requests without credentials through as
	// system:anonymous.
	AnonymousAuth bool
	// Authentication holds the other authentication settings (auth.go).
	Authentication AuthenticationConfig
	// AuthorizationMode is the ordered list of authorizers.
	AuthorizationMode []string
	// Authorization is the rest of the authorization flags (its Modes
	// field is ignored: AuthorizationMode is the list). With a
	// ConfigFile, AuthorizationMode is not used.
	Authorization authorization.Config
	// Audit is the --audit-* configuration.
	Audit AuditConfig
	// Admission is the admission chain: --enable-admission-plugins,
	// --disable-admission-plugins, --admission-control-config-file.
	Admission AdmissionConfig
	// DisablePolicyStatusController does not run the type checking of
	// ValidatingAdmissionPolicies (kube-controller-manager's
	// validatingadmissionpolicy-status controller), to stand in for a
	// kube-apiserver that runs without a controller manager.
	DisablePolicyStatusController bool

	// ServiceAccounts configures service-account tokens.
	ServiceAccounts ServiceAccountConfig
	// APIAudiences are --api-audiences; empty means the service-account
	// issuers.
	APIAudiences []string
	// EnableBootstrapTokenAuth is --enable-bootstrap-token-auth.
	EnableBootstrapTokenAuth bool

	Etcd EtcdConfig
	// WatchCache says which resources are served from a watch cache.
	WatchCache generic.WatchCacheConfig

	ServiceClusterIPRange *net.IPNet
	// SecondaryServiceClusterIPRange is the second range of a dual-stack
	// --service-cluster-ip-range, of the other IP family; nil on a
	// single-stack cluster.
	SecondaryServiceClusterIPRange *net.IPNet
	ServiceNodePortRange           utilnet.PortRange
	// Kubelet is how kubelets are reached, for the log, exec, attach,
	// portforward and proxy subresources (--kubelet-*).
	Kubelet node.KubeletConfig

	// MaxRequestsInflight and MaxMutatingRequestsInflight bound the
	// requests served at once; 0 is no bound.
	MaxRequestsInflight         int
	MaxMutatingRequestsInflight int
	RequestTimeout              time.Duration
	MinRequestTimeout           time.Duration
	MaxRequestBodyBytes         int64
	ShutdownDelayDuration       time.Duration
	// HTTP2MaxStreamsPerConnection bounds the concurrent streams of an
	// HTTP/2 connection; zero means kube-apiserver's 100.
	HTTP2MaxStreamsPerConnection int

	// EnablePriorityAndFairness replaces the max-in-flight limits with
	// API priority and fairness, which shares their sum among the
	// priority levels (--enable-priority-and-fairness).
	EnablePriorityAndFairness bool

	// RuntimeConfig switches built-in group versions off.
	RuntimeConfig controlplane.RuntimeConfig
	// FeatureGates are --feature-gates; the zero value is
	// kube-apiserver's defaults.
	FeatureGates features.Gates
	// Profiling serves /debug/pprof.
	Profiling bool

	// Aggregator configures the proxy to remote APIServices.
	Aggregator AggregatorConfig

	// Logger receives the log of every component. It is required; klog
	// (client-go's log) is not routed to it here, because klog's logger
	// is global: the binary does that, once, in pkg/cmd.
	Logger *slog.Logger
}

// EtcdConfig says where the data is stored.
type EtcdConfig struct {
	// Servers are external etcd members; none means an embedded etcd in
	// DataDir.
	Servers                   []string
	CAFile, CertFile, KeyFile string
	// Prefix is prepended to every key (kube-apiserver's /registry).
	Prefix string
	// CompactionInterval is how often the revisions older than the
	// previous round are compacted; 0 turns compaction off.
	CompactionInterval time.Duration
	// EncryptionProviderConfig is --encryption-provider-config: the
	// EncryptionConfiguration file that says how resources are encrypted
	// at rest; empty stores every value plain.
	EncryptionProviderConfig string
	// EncryptionProviderConfigAutomaticReload is
	// --encryption-provider-config-automatic-reload.
	EncryptionProviderConfigAutomaticReload bool
	// EncryptionReloadInterval is how often the file is read again when
	// reloading is on; 0 is kube-apiserver's minute.
	EncryptionReloadInterval time.Duration
}

// ServiceAccountConfig is the --service-account-* flags.
type ServiceAccountConfig struct {
	// Issuers are --service-account-issuer: the first signs, all are
	// accepted. Empty means kapi's DefaultServiceAccountIssuer.
	Issuers []string
	// KeyFiles are --service-account-key-file, the public keys tokens
	// verify with; empty means kapi's generated sa.pub.
	KeyFiles []string
	// SigningKeyFile is --service-account-signing-key-file; empty means
	// kapi's generated sa.key.
	SigningKeyFile string
	// Lookup is --service-account-lookup.
	Lookup bool
	// MaxTokenExpiration is --service-account-max-token-expiration; 0 is
	// no limit.
	MaxTokenExpiration time.Duration
	// ExtendTokenExpiration is --service-account-extend-token-expiration.
	ExtendTokenExpiration bool
	// JWKSURI is --service-account-jwks-uri; empty means this server's
	// /openid/v1/jwks.
	JWKSURI string
}

// DefaultServiceAccountIssuer is the issuer of kapi's tokens when
// --service-account-issuer is not given (kube-apiserver requires the
// flag); it is the one kubeadm configures.
const DefaultServiceAccountIssuer = "https://kubernetes.default.svc.cluster.local"

// NewConfig returns the defaults: kube-apiserver's where kapi has the same
// setting, kapi's zero-config choices otherwise. DataDir and Logger are
// left for the caller.
func NewConfig() *Config {
	_, serviceNet, _ := net.ParseCIDR("10.96.0.0/12")
	return &Config{
		BindAddress:   net.ParseIP("127.0.0.1"),
		SecurePort:    6443,
		AnonymousAuth: true,
		Authentication: AuthenticationConfig{
			TokenWebhook: TokenWebhookConfig{CacheTTL: 2 * time.Minute, Version: "v1beta1"},
			OIDC:         OIDCConfig{UsernameClaim: "sub", SigningAlgs: []string{"RS256"}},
			// kube-apiserver re-reads the file at least every minute.
			ConfigReloadInterval: time.Minute,
		},
		AuthorizationMode:           []string{"Node", "RBAC"},
		ServiceAccounts:             ServiceAccountConfig{Lookup: true, ExtendTokenExpiration: true},
		Authorization:               authorization.DefaultConfig(),
		Etcd:                        EtcdConfig{Prefix: "/registry", CompactionInterval: 5 * time.Minute},
		WatchCache:                  generic.WatchCacheConfig{Enabled: true, DefaultSize: 100, Sizes: generic.DefaultWatchCacheSizes()},
		ServiceClusterIPRange:       serviceNet,
		ServiceNodePortRange:        utilnet.PortRange{Base: 30000, Size: 2768},
		Kubelet:                     node.DefaultKubeletConfig(),
		MaxRequestsInflight:         400,
		MaxMutatingRequestsInflight: 200,
		EnablePriorityAndFairness:   true,
		RequestTimeout:              60 * time.Second,
		MinRequestTimeout:           1800 * time.Second,
		MaxRequestBodyBytes:         3 * 1024 * 1024,
		RuntimeConfig:               controlplane.RuntimeConfig{},
		Profiling:                   true,
		Audit:                       NewAuditConfig(),
		Aggregator:                  AggregatorConfig{RejectForwardingRedirects: true},
	}
}

// validate checks what New relies on. pkg/cmd checks the flags first and
// names them in its errors; this catches a Config built in code.
func (c *Config) validate() error {
	var errs []error
	if c.DataDir == "" {
		errs = append(errs, errors.New("DataDir is required"))
	}
	if c.Logger == nil {
		errs = append(errs, errors.New("Logger is required"))
	}
	if c.Listener == nil && (c.SecurePort < 1 || c.SecurePort > 65535) {
		errs = append(errs, fmt.Errorf("SecurePort %d must be between 1 and 65535", c.SecurePort))
	}
	if c.BindAddress == nil {
		errs = append(errs, errors.New("BindAddress is required"))
	}
	if c.ServiceClusterIPRange == nil {
		errs = append(errs, errors.New("ServiceClusterIPRange is required"))
	} else if c.BindAddress != nil {
		errs = append(errs, checkServiceFamily(c.ServiceClusterIPRange, publicAddress(c))...)
	}
	if c.ServiceNodePortRange.Size <= 0 {
		errs = append(errs, errors.New("ServiceNodePortRange is empty"))
	}
	if c.MaxRequestBodyBytes <= 0 {
		errs = append(errs, errors.New("MaxRequestBodyBytes must be positive"))
	}
	if _, err := controlplane.ParseRuntimeConfig(c.RuntimeConfig); err != nil {
		errs = append(errs, fmt.Errorf("RuntimeConfig: %w", err))
	}
	errs = append(errs, c.Audit.Validate()...)
	return errors.Join(errs...)
}

// checkServiceFamily is kube-apiserver's start-up check that the primary
// service range is of the family of the address the server advertises,
// which the kubernetes Service's endpoints hold.
func checkServiceFamily(serviceRange *net.IPNet, public net.IP) []error {
	if (serviceRange.IP.To4() == nil) != (public.To4() == nil) {
		return []error{fmt.Errorf("service IP family %q must match public address family %q", serviceRange.String(), public.String())}
	}
	return nil
}
