// Package cmd is kapi's command: flags with kube-apiserver's names and
// meanings, their validation, and their translation into the typed
// app.Config that pkg/app assembles the server from.
package cmd

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilnet "k8s.io/apimachinery/pkg/util/net"

	"github.com/kapi-dev/kapi/pkg/app"
	"github.com/kapi-dev/kapi/pkg/authorization"
	"github.com/kapi-dev/kapi/pkg/controlplane"
	"github.com/kapi-dev/kapi/pkg/features"
	"github.com/kapi-dev/kapi/pkg/registry/core/node"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
)

// Options are kapi's flags.
type Options struct {
	DataDir string

	// Secure serving.
	SecurePort        int
	BindAddress       net.IP
	AdvertiseAddress  net.IP
	TLSCertFile       string
	TLSPrivateKeyFile string
	CertDir           string

	// Authentication and authorization.
	ClientCAFile      string
	TokenAuthFile     string
	AnonymousAuth     bool
	AuthorizationMode []string
	// Authorization holds the other authorization flags
	// (authorization.go).
	Authorization AuthorizationOptions
	// Authentication holds the --requestheader-* and
	// --authentication-token-webhook-* flags.
	Authentication app.AuthenticationConfig
	Audit          AuditOptions
	Admission      app.AdmissionConfig
	Aggregator     app.AggregatorConfig

	// Service-account and bootstrap tokens.
	ServiceAccountIssuers               []string
	ServiceAccountKeyFiles              []string
	ServiceAccountSigningKeyFile        string
	ServiceAccountLookup                bool
	ServiceAccountMaxTokenExpiration    time.Duration
	ServiceAccountExtendTokenExpiration bool
	ServiceAccountJWKSURI               string
	APIAudiences                        []string
	EnableBootstrapTokenAuth            bool

	// Storage.
	EtcdServers  []string
	EtcdCAFile   string
	EtcdCertFile string
	EtcdKeyFile  string
	EtcdPrefix   string
	// EtcdCompactionInterval is how often the revisions older than the
	// previous round are compacted; 0 turns compaction off.
	EtcdCompactionInterval time.Duration
	// EncryptionProviderConfig and EncryptionProviderConfigAutomaticReload
	// configure encryption at rest.
	EncryptionProviderConfig                string
	EncryptionProviderConfigAutomaticReload bool
	// WatchCache, DefaultWatchCacheSize and WatchCacheSizes say which
	// resources are served from a watch cache.
	WatchCache            bool
	DefaultWatchCacheSize int
	WatchCacheSizes       []string

	// Services.
	ServiceClusterIPRange string
	ServiceNodePortRange  string

	// Kubelet is how kubelets are reached (--kubelet-*).
	Kubelet node.KubeletConfig

	// Limits.
	MaxRequestsInflight         int
	MaxMutatingRequestsInflight int
	EnablePriorityAndFairness   bool
	RequestTimeout              time.Duration
	MinRequestTimeout           int
	MaxRequestBodyBytes         int64
	ShutdownDelayDuration       time.Duration
	// HTTP2MaxStreamsPerConnection bounds the concurrent streams of an
	// HTTP/2 connection; zero (or, as kube-apiserver has it, less) means
	// kube-apiserver's 100.
	HTTP2MaxStreamsPerConnection int

	RuntimeConfig map[string]string
	// FeatureGates are the values of every --feature-gates, in order.
	FeatureGates []string
	Profiling    bool
	Verbosity    int

	// Flags kube-apiserver has that kapi accepts for drop-in use (envtest
	// passes several) and does not act on yet; see ignoredFlags.
	ignored map[string]*string
}

// NewOptions returns the defaults of app.NewConfig as flag values; kapi's
// zero-config data dir, ./kapi-data, is the binary's own.
func NewOptions() *Options {
	d := app.NewConfig()
	return &Options{
		DataDir:                             "kapi-data",
		SecurePort:                          d.SecurePort,
		BindAddress:                         d.BindAddress,
		AnonymousAuth:                       d.AnonymousAuth,
		Authentication:                      d.Authentication,
		AuthorizationMode:                   d.AuthorizationMode,
		Authorization:                       newAuthorizationOptions(d),
		Audit:                               NewAuditOptions(),
		ServiceAccountLookup:                d.ServiceAccounts.Lookup,
		ServiceAccountExtendTokenExpiration: d.ServiceAccounts.ExtendTokenExpiration,
		EtcdPrefix:                          d.Etcd.Prefix,
		EtcdCompactionInterval:              d.Etcd.CompactionInterval,
		WatchCache:                          d.WatchCache.Enabled,
		DefaultWatchCacheSize:               d.WatchCache.DefaultSize,
		ServiceClusterIPRange:               d.ServiceClusterIPRange.String(),
		ServiceNodePortRange:                fmt.Sprintf("%d-%d", d.ServiceNodePortRange.Base, d.ServiceNodePortRange.Base+d.ServiceNodePortRange.Size-1),
		Kubelet:                             d.Kubelet,
		MaxRequestsInflight:                 d.MaxRequestsInflight,
		MaxMutatingRequestsInflight:         d.MaxMutatingRequestsInflight,
		EnablePriorityAndFairness:           d.EnablePriorityAndFairness,
		RequestTimeout:                      d.RequestTimeout,
		MinRequestTimeout:                   int(d.MinRequestTimeout / time.Second),
		MaxRequestBodyBytes:                 d.MaxRequestBodyBytes,
		RuntimeConfig:                       map[string]string{},
		Profiling:                           d.Profiling,
		Aggregator:                          d.Aggregator,
		ignored:                             map[string]*string{},
	}
}

// Complete validates the flags and translates them into the typed
// configuration kapi is assembled from; log becomes its logger.
func (o *Options) Complete(log *slog.Logger) (*app.Config, error) {
	if errs := o.Validate(); len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	// Validate checked every value parsed here.
	serviceNets, _ := parseServiceClusterIPRanges(o.ServiceClusterIPRange)
	low, high, _ := ParsePortRange(o.ServiceNodePortRange)
	runtimeConfig, _ := controlplane.ParseRuntimeConfig(o.RuntimeConfig)
	featureGates, _ := features.Parse(o.FeatureGates)
	c := &app.Config{
		DataDir:           o.DataDir,
		BindAddress:       o.BindAddress,
		SecurePort:        o.SecurePort,
		AdvertiseAddress:  o.AdvertiseAddress,
		TLSCertFile:       o.TLSCertFile,
		TLSPrivateKeyFile: o.TLSPrivateKeyFile,
		CertDir:           o.CertDir,
		ClientCAFile:      o.ClientCAFile,
		TokenAuthFile:     o.TokenAuthFile,
		AnonymousAuth:     o.AnonymousAuth,
		Authentication:    o.Authentication,
		AuthorizationMode: o.AuthorizationMode,
		ServiceAccounts: app.ServiceAccountConfig{
			Issuers:               o.ServiceAccountIssuers,
			KeyFiles:              o.ServiceAccountKeyFiles,
			SigningKeyFile:        o.ServiceAccountSigningKeyFile,
			Lookup:                o.ServiceAccountLookup,
			MaxTokenExpiration:    o.ServiceAccountMaxTokenExpiration,
			ExtendTokenExpiration: o.ServiceAccountExtendTokenExpiration,
			JWKSURI:               o.ServiceAccountJWKSURI,
		},
		APIAudiences:             o.APIAudiences,
		EnableBootstrapTokenAuth: o.EnableBootstrapTokenAuth,
		Authorization:            o.Authorization.config(),
		Etcd: app.EtcdConfig{
			Servers:            o.EtcdServers,
			CAFile:             o.EtcdCAFile,
			CertFile:           o.EtcdCertFile,
			KeyFile:            o.EtcdKeyFile,
			Prefix:             o.EtcdPrefix,
			CompactionInterval: o.EtcdCompactionInterval,

			EncryptionProviderConfig:                o.EncryptionProviderConfig,
			EncryptionProviderConfigAutomaticReload: o.EncryptionProviderConfigAutomaticReload,
		},
		WatchCache:                   o.WatchCacheConfig(),
		ServiceClusterIPRange:        serviceNets[0],
		ServiceNodePortRange:         utilnet.PortRange{Base: low, Size: high - low + 1},
		Kubelet:                      o.Kubelet,
		MaxRequestsInflight:          o.MaxRequestsInflight,
		MaxMutatingRequestsInflight:  o.MaxMutatingRequestsInflight,
		EnablePriorityAndFairness:    o.EnablePriorityAndFairness,
		RequestTimeout:               o.RequestTimeout,
		MinRequestTimeout:            time.Duration(o.MinRequestTimeout) * time.Second,
		MaxRequestBodyBytes:          o.MaxRequestBodyBytes,
		ShutdownDelayDuration:        o.ShutdownDelayDuration,
		HTTP2MaxStreamsPerConnection: o.HTTP2MaxStreamsPerConnection,
		RuntimeConfig:                runtimeConfig,
		FeatureGates:                 featureGates,
		Profiling:                    o.Profiling,
		Audit:                        o.Audit.AuditConfig,
		Admission:                    o.Admission,
		Aggregator:                   o.Aggregator,
		Logger:                       log,
	}
	// A dual-stack cluster's second range, of the other family.
	if len(serviceNets) == 2 {
		c.SecondaryServiceClusterIPRange = serviceNets[1]
	}
	return c, nil
}

// ignoredFlags are kube-apiserver flags that kapi accepts so it can stand
// in for kube-apiserver (controller-runtime's envtest passes some of
// them), without acting on them yet. Each is listed in --help.
var ignoredFlags = []struct{ name, usage string }{
	{"allow-privileged", "If true, allow privileged containers. [default=false]"},
	{"event-ttl", "Amount of time to retain events. (default 1h0m0s)"},
	{"storage-backend", "The storage backend for persistence. Options: 'etcd3' (default)."},
	{"storage-media-type", "The media type to use to store objects in storage."},
	{"endpoint-reconciler-type", "Use an endpoint reconciler (master-count, lease, none)"},
}

// AddFlags registers the flags.
func (o *Options) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.DataDir, "data-dir", o.DataDir, "Directory of kapi's state: the embedded etcd's data and, unless --cert-dir says otherwise, the generated certificates and admin.kubeconfig. Created if missing.")

	fs.IntVar(&o.SecurePort, "secure-port", o.SecurePort, "The port on which to serve HTTPS with authentication and authorization. It cannot be switched off with 0.")
	fs.IPVar(&o.BindAddress, "bind-address", o.BindAddress, "The IP address on which to listen for the --secure-port port. kapi defaults to 127.0.0.1 so that a zero-config start is not exposed; 0.0.0.0 listens on all interfaces.")
	fs.IPVar(&o.AdvertiseAddress, "advertise-address", o.AdvertiseAddress, "The IP address on which to advertise the apiserver to members of the cluster. If blank, the --bind-address will be used.")
	fs.StringVar(&o.TLSCertFile, "tls-cert-file", o.TLSCertFile, "File containing the default x509 Certificate for HTTPS. If not given, a certificate is generated in --cert-dir.")
	fs.StringVar(&o.TLSPrivateKeyFile, "tls-private-key-file", o.TLSPrivateKeyFile, "File containing the default x509 private key matching --tls-cert-file.")
	fs.StringVar(&o.CertDir, "cert-dir", o.CertDir, "The directory where the TLS certs are located: apiserver.crt and apiserver.key there are served if present. If --tls-cert-file and --tls-private-key-file are provided, this flag will be ignored. kapi's own generated certificates are always in <data-dir>/pki.")

	fs.StringVar(&o.ClientCAFile, "client-ca-file", o.ClientCAFile, "If set, any request presenting a client certificate signed by one of the authorities in the client-ca-file is authenticated with an identity corresponding to the CommonName of the client certificate. Defaults to the generated CA.")
	fs.StringVar(&o.TokenAuthFile, "token-auth-file", o.TokenAuthFile, "If set, the file that will be used to secure the secure port of the API server via token authentication.")
	fs.Var(&trackedBool{value: &o.AnonymousAuth, set: &o.Authentication.AnonymousAuthFlagSet}, "anonymous-auth", "Enables anonymous requests to the secure port of the API server. Requests that are not rejected by another authentication method are treated as anonymous requests.")
	fs.Lookup("anonymous-auth").NoOptDefVal = "true"
	fs.StringVar(&o.Authentication.ConfigFile, "authentication-config", o.Authentication.ConfigFile, "File with Authentication Configuration to configure the JWT Token authenticator or the anonymous authenticator. Note: This feature is in Beta since v1.30. --feature-gate=StructuredAuthenticationConfiguration=true needs to be set for enabling this feature. This feature is mutually exclusive with the oidc-* flags. This file is reloaded when it changes.")
	fs.StringArrayVar(&o.ServiceAccountIssuers, "service-account-issuer", o.ServiceAccountIssuers, "Identifier of the service account token issuer. The issuer will assert this identifier in \"iss\" claim of issued tokens. This value is a string or URI. When this flag is specified multiple times, the first is used to generate tokens and all are used to determine which issuers are accepted. kapi defaults to "+app.DefaultServiceAccountIssuer+".")
	fs.StringArrayVar(&o.ServiceAccountKeyFiles, "service-account-key-file", o.ServiceAccountKeyFiles, "File containing PEM-encoded x509 RSA or ECDSA private or public keys, used to verify ServiceAccount tokens. The specified file can contain multiple keys, and the flag can be specified multiple times with different files. If unspecified, --service-account-signing-key-file is used; kapi defaults to the sa.pub it generates in <data-dir>/pki.")
	fs.StringVar(&o.ServiceAccountSigningKeyFile, "service-account-signing-key-file", o.ServiceAccountSigningKeyFile, "Path to the file that contains the current private key of the service account token issuer. The issuer will sign issued ID tokens with this private key. kapi defaults to the sa.key it generates in <data-dir>/pki.")
	fs.BoolVar(&o.ServiceAccountLookup, "service-account-lookup", o.ServiceAccountLookup, "If true, validate ServiceAccount tokens exist in etcd as part of authentication.")
	fs.DurationVar(&o.ServiceAccountMaxTokenExpiration, "service-account-max-token-expiration", o.ServiceAccountMaxTokenExpiration, "The maximum validity duration of a token created by the service account token issuer. If an otherwise valid TokenRequest with a validity duration larger than this value is requested, a token will be issued with a validity duration of this value.")
	fs.BoolVar(&o.ServiceAccountExtendTokenExpiration, "service-account-extend-token-expiration", o.ServiceAccountExtendTokenExpiration, "Turns on projected service account expiration extension during token generation, which helps safe transition from legacy token to bound service account token feature. If this flag is enabled, admission injected tokens would be extended up to 1 year to prevent unexpected failure during transition, ignoring value of service-account-max-token-expiration.")
	fs.StringVar(&o.ServiceAccountJWKSURI, "service-account-jwks-uri", o.ServiceAccountJWKSURI, "Overrides the URI for the JSON Web Key Set in the discovery doc served at /.well-known/openid-configuration.")
	fs.StringSliceVar(&o.APIAudiences, "api-audiences", o.APIAudiences, "Identifiers of the API. The service account token authenticator will validate that tokens used against the API are bound to at least one of these audiences. If unspecified, the service account issuers are used.")
	fs.BoolVar(&o.EnableBootstrapTokenAuth, "enable-bootstrap-token-auth", o.EnableBootstrapTokenAuth, "Enable to allow secrets of type 'bootstrap.kubernetes.io/token' in the 'kube-system' namespace to be used for TLS bootstrapping authentication.")
	rh := &o.Authentication.RequestHeader
	fs.StringVar(&rh.ClientCAFile, "requestheader-client-ca-file", rh.ClientCAFile, "Root certificate bundle to use to verify client certificates on incoming requests before trusting usernames in headers specified by --requestheader-username-headers. WARNING: generally do not depend on authorization being already done for incoming requests.")
	fs.StringSliceVar(&rh.AllowedNames, "requestheader-allowed-names", rh.AllowedNames, "List of client certificate common names to allow to provide usernames in headers specified by --requestheader-username-headers. If empty, any client certificate validated by the authorities in --requestheader-client-ca-file is allowed.")
	fs.StringSliceVar(&rh.UsernameHeaders, "requestheader-username-headers", rh.UsernameHeaders, "List of request headers to inspect for usernames. X-Remote-User is common.")
	fs.StringSliceVar(&rh.UIDHeaders, "requestheader-uid-headers", rh.UIDHeaders, "List of request headers to inspect for UIDs. X-Remote-Uid is suggested.")
	fs.StringSliceVar(&rh.GroupHeaders, "requestheader-group-headers", rh.GroupHeaders, "List of request headers to inspect for groups. X-Remote-Group is suggested.")
	fs.StringSliceVar(&rh.ExtraHeadersPrefix, "requestheader-extra-headers-prefix", rh.ExtraHeadersPrefix, "List of request header prefixes to inspect. X-Remote-Extra- is suggested.")
	wh := &o.Authentication.TokenWebhook
	fs.StringVar(&wh.ConfigFile, "authentication-token-webhook-config-file", wh.ConfigFile, "File with webhook configuration for token authentication in kubeconfig format. The API server will query the remote service to determine authentication for bearer tokens.")
	fs.DurationVar(&wh.CacheTTL, "authentication-token-webhook-cache-ttl", wh.CacheTTL, "The duration to cache responses from the webhook token authenticator.")
	fs.StringVar(&wh.Version, "authentication-token-webhook-version", wh.Version, "The API version of the authentication.k8s.io TokenReview to send to and expect from the webhook.")
	oidc := &o.Authentication.OIDC
	fs.StringVar(&oidc.IssuerURL, "oidc-issuer-url", oidc.IssuerURL, "The URL of the OpenID issuer, only HTTPS scheme will be accepted. If set, it will be used to verify the OIDC JSON Web Token (JWT).")
	fs.StringVar(&oidc.ClientID, "oidc-client-id", oidc.ClientID, "The client ID for the OpenID Connect client, must be set if oidc-issuer-url is set.")
	fs.StringVar(&oidc.CAFile, "oidc-ca-file", oidc.CAFile, "If set, the OpenID server's certificate will be verified by one of the authorities in the oidc-ca-file, otherwise the host's root CA set will be used.")
	fs.StringVar(&oidc.UsernameClaim, "oidc-username-claim", oidc.UsernameClaim, "The OpenID claim to use as the user name.")
	fs.StringVar(&oidc.UsernamePrefix, "oidc-username-prefix", oidc.UsernamePrefix, "If provided, all usernames will be prefixed with this value. If not provided, username claims other than 'email' are prefixed by the issuer URL to avoid clashes. To skip any prefixing, provide the value '-'.")
	fs.StringVar(&oidc.GroupsClaim, "oidc-groups-claim", oidc.GroupsClaim, "If provided, the name of a custom OpenID Connect claim for specifying user groups. The claim value is expected to be a string or array of strings.")
	fs.StringVar(&oidc.GroupsPrefix, "oidc-groups-prefix", oidc.GroupsPrefix, "If provided, all groups will be prefixed with this value to prevent conflicts with other authentication strategies.")
	fs.StringToStringVar(&oidc.RequiredClaims, "oidc-required-claim", oidc.RequiredClaims, "A key=value pair that describes a required claim in the ID Token. If set, the claim is verified to be present in the ID Token with a matching value. Repeat this flag to specify multiple claims.")
	fs.StringSliceVar(&oidc.SigningAlgs, "oidc-signing-algs", oidc.SigningAlgs, "Comma-separated list of allowed JOSE asymmetric signing algorithms. JWTs with a supported 'alg' header values are: RS256, RS384, RS512, ES256, ES384, ES512, PS256, PS384, PS512.")
	fs.StringSliceVar(&o.AuthorizationMode, "authorization-mode", o.AuthorizationMode, "Ordered list of plug-ins to do authorization on secure port. Comma-delimited list of: "+strings.Join(authorization.ModeChoices(), ",")+". Not used with --authorization-config.")
	o.Authorization.AddFlags(fs)

	fs.StringSliceVar(&o.EtcdServers, "etcd-servers", o.EtcdServers, "List of etcd servers to connect with (scheme://ip:port), comma separated. If empty, kapi runs an embedded etcd in --data-dir.")
	fs.StringVar(&o.EtcdCAFile, "etcd-cafile", o.EtcdCAFile, "SSL Certificate Authority file used to secure etcd communication.")
	fs.StringVar(&o.EtcdCertFile, "etcd-certfile", o.EtcdCertFile, "SSL certification file used to secure etcd communication.")
	fs.StringVar(&o.EtcdKeyFile, "etcd-keyfile", o.EtcdKeyFile, "SSL key file used to secure etcd communication.")
	fs.StringVar(&o.EtcdPrefix, "etcd-prefix", o.EtcdPrefix, "The prefix to prepend to all resource paths in etcd.")
	fs.StringVar(&o.EncryptionProviderConfig, "encryption-provider-config", o.EncryptionProviderConfig, "The file containing configuration for encryption providers to be used for storing secrets in etcd")
	fs.BoolVar(&o.EncryptionProviderConfigAutomaticReload, "encryption-provider-config-automatic-reload", o.EncryptionProviderConfigAutomaticReload, "Determines if the file set by --encryption-provider-config should be automatically reloaded if the disk contents change. Setting this to true disables the ability to uniquely identify distinct KMS plugins via the API server healthz endpoints.")
	fs.DurationVar(&o.EtcdCompactionInterval, "etcd-compaction-interval", o.EtcdCompactionInterval, "The interval of compaction requests. If 0, the compaction request from apiserver is disabled. Servers sharing an etcd take turns, so one compaction happens per interval.")
	fs.BoolVar(&o.WatchCache, "watch-cache", o.WatchCache, "Enable watch caching in the apiserver")
	fs.IntVar(&o.DefaultWatchCacheSize, "default-watch-cache-size", o.DefaultWatchCacheSize, "Default watch cache size. If zero, watch cache will be disabled for resources that do not have a default watch size set.")
	fs.StringSliceVar(&o.WatchCacheSizes, "watch-cache-sizes", o.WatchCacheSizes, "Watch cache size settings for some resources (pods, nodes, etc.), comma separated. The individual setting format: resource[.group]#size, where resource is lowercase plural (no version), group is omitted for resources of apiVersion v1 (the legacy core API) and included for others, and size is a number. The only meaningful size setting to supply here is zero, which means to disable watch caching for the associated resource; all non-zero values are equivalent and mean to not disable watch caching for that resource.")

	fs.StringVar(&o.ServiceClusterIPRange, "service-cluster-ip-range", o.ServiceClusterIPRange, "A CIDR notation IP range from which to assign service cluster IPs. Max of two dual-stack CIDRs is allowed, the primary family first.")
	fs.StringVar(&o.ServiceNodePortRange, "service-node-port-range", o.ServiceNodePortRange, "A port range to reserve for services with NodePort visibility. Example: '30000-32767'. Inclusive at both ends of the range.")

	fs.StringSliceVar(&o.Kubelet.PreferredAddressTypes, "kubelet-preferred-address-types", o.Kubelet.PreferredAddressTypes, "List of the preferred NodeAddressTypes to use for kubelet connections.")
	fs.UintVar(&o.Kubelet.Port, "kubelet-port", o.Kubelet.Port, "DEPRECATED: kubelet port.")
	_ = fs.MarkDeprecated("kubelet-port", "kubelet-port is deprecated and will be removed.")
	fs.DurationVar(&o.Kubelet.HTTPTimeout, "kubelet-timeout", o.Kubelet.HTTPTimeout, "Timeout for kubelet operations.")
	fs.StringVar(&o.Kubelet.CertFile, "kubelet-client-certificate", o.Kubelet.CertFile, "Path to a client cert file for TLS.")
	fs.StringVar(&o.Kubelet.KeyFile, "kubelet-client-key", o.Kubelet.KeyFile, "Path to a client key file for TLS.")
	fs.StringVar(&o.Kubelet.CAFile, "kubelet-certificate-authority", o.Kubelet.CAFile, "Path to a cert file for the certificate authority.")

	fs.IntVar(&o.MaxRequestsInflight, "max-requests-inflight", o.MaxRequestsInflight, "This and --max-mutating-requests-inflight are summed to determine the server's total concurrency limit (which must be positive) if --enable-priority-and-fairness is true. Otherwise, this flag limits the maximum number of non-mutating requests in flight, or a zero value disables the limit completely.")
	fs.BoolVar(&o.EnablePriorityAndFairness, "enable-priority-and-fairness", o.EnablePriorityAndFairness, "If true, replace the max-in-flight handler with an enhanced one that queues and dispatches with priority and fairness")
	fs.IntVar(&o.MaxMutatingRequestsInflight, "max-mutating-requests-inflight", o.MaxMutatingRequestsInflight, "This and --max-requests-inflight are summed to determine the server's total concurrency limit (which must be positive) if --enable-priority-and-fairness is true. Otherwise, this flag limits the maximum number of mutating requests in flight, or a zero value disables the limit completely.")
	fs.DurationVar(&o.RequestTimeout, "request-timeout", o.RequestTimeout, "An optional field indicating the duration a handler must keep a request open before timing it out. This is the default request timeout for requests but may be overridden by flags such as --min-request-timeout for specific types of requests.")
	fs.IntVar(&o.MinRequestTimeout, "min-request-timeout", o.MinRequestTimeout, "An optional field indicating the minimum number of seconds a handler must keep a request open before timing it out. Currently only honored by the watch request handler, which picks a randomized value above this number as the connection timeout, to spread out load.")
	fs.Int64Var(&o.MaxRequestBodyBytes, "max-resource-write-bytes", o.MaxRequestBodyBytes, "The limit on the request body size of a write, in bytes.")
	fs.IntVar(&o.HTTP2MaxStreamsPerConnection, "http2-max-streams-per-connection", o.HTTP2MaxStreamsPerConnection, "The limit that the server gives to clients for the maximum number of streams in an HTTP/2 connection. Zero means to use golang's default.")
	fs.DurationVar(&o.ShutdownDelayDuration, "shutdown-delay-duration", o.ShutdownDelayDuration, "Time to delay the termination. During that time the server keeps serving requests normally. The endpoints /healthz and /livez will return success, but /readyz immediately returns failure.")

	fs.StringToStringVar(&o.RuntimeConfig, "runtime-config", o.RuntimeConfig, "A set of key=value pairs that enable or disable built-in APIs, e.g. apps/v1=false. kapi serves only GA APIs and accepts api/all and <group>/<version> keys.")
	fs.Var(featureGatesFlag{&o.FeatureGates}, "feature-gates", features.Usage())
	fs.BoolVar(&o.Profiling, "profiling", o.Profiling, "Enable profiling via web interface host:port/debug/pprof/")
	fs.IntVarP(&o.Verbosity, "v", "v", o.Verbosity, "number for the log level verbosity")

	o.Audit.AddFlags(fs)
	addAdmissionFlags(fs, &o.Admission)
	addAggregatorFlags(fs, &o.Aggregator)

	for _, f := range ignoredFlags {
		v := new(string)
		o.ignored[f.name] = v
		fs.StringVar(v, f.name, "", f.usage+" (accepted for compatibility; kapi does not act on it yet)")
		fs.Lookup(f.name).NoOptDefVal = "true"
	}
}

// Validate checks the flag values, naming the flag in each error.
func (o *Options) Validate() []error {
	var errs []error
	errs = append(errs, o.Audit.Validate()...)
	errs = append(errs, o.Admission.Validate()...)
	if o.SecurePort < 1 || o.SecurePort > 65535 {
		errs = append(errs, fmt.Errorf("--secure-port %d must be between 1 and 65535, inclusive. It cannot be turned off with 0", o.SecurePort))
	}
	if (o.TLSCertFile == "") != (o.TLSPrivateKeyFile == "") {
		errs = append(errs, fmt.Errorf("--tls-cert-file and --tls-private-key-file must be given together"))
	}
	if _, rangeErrs := parseServiceClusterIPRanges(o.ServiceClusterIPRange); len(rangeErrs) > 0 {
		errs = append(errs, rangeErrs...)
	}
	if _, _, err := ParsePortRange(o.ServiceNodePortRange); err != nil {
		errs = append(errs, fmt.Errorf("--service-node-port-range %q: %v", o.ServiceNodePortRange, err))
	}
	if o.MaxRequestsInflight < 0 {
		errs = append(errs, fmt.Errorf("--max-requests-inflight can not be negative value"))
	}
	if o.MaxMutatingRequestsInflight < 0 {
		errs = append(errs, fmt.Errorf("--max-mutating-requests-inflight can not be negative value"))
	}
	if o.EnablePriorityAndFairness && o.MaxRequestsInflight+o.MaxMutatingRequestsInflight <= 0 {
		errs = append(errs, fmt.Errorf("--max-requests-inflight=%d and --max-mutating-requests-inflight=%d must add up to something positive with --enable-priority-and-fairness", o.MaxRequestsInflight, o.MaxMutatingRequestsInflight))
	}
	if o.RequestTimeout < 0 {
		errs = append(errs, fmt.Errorf("--request-timeout can not be negative value"))
	}
	if o.MinRequestTimeout < 0 {
		errs = append(errs, fmt.Errorf("--min-request-timeout can not be negative value"))
	}
	if o.EncryptionProviderConfig == "" && o.EncryptionProviderConfigAutomaticReload {
		errs = append(errs, fmt.Errorf("--encryption-provider-config-automatic-reload must be set with --encryption-provider-config"))
	}
	if o.EtcdCompactionInterval < 0 {
		errs = append(errs, fmt.Errorf("--etcd-compaction-interval can not be negative value"))
	}
	if o.DefaultWatchCacheSize < 0 {
		errs = append(errs, fmt.Errorf("--default-watch-cache-size can not be negative value"))
	}
	if _, err := ParseWatchCacheSizes(o.WatchCacheSizes); err != nil {
		errs = append(errs, fmt.Errorf("--watch-cache-sizes: %w", err))
	}
	if o.ShutdownDelayDuration < 0 {
		errs = append(errs, fmt.Errorf("--shutdown-delay-duration can not be negative value"))
	}
	if o.MaxRequestBodyBytes <= 0 {
		errs = append(errs, fmt.Errorf("--max-resource-write-bytes must be positive"))
	}
	for _, s := range o.EtcdServers {
		if !strings.HasPrefix(s, "http://") && !strings.HasPrefix(s, "https://") && !strings.HasPrefix(s, "unix://") {
			errs = append(errs, fmt.Errorf("--etcd-servers %q: must be a URL (http://, https:// or unix://)", s))
		}
	}
	if o.Authentication.ConfigFile != "" && o.Authentication.OIDC.IssuerURL != "" {
		errs = append(errs, fmt.Errorf("authentication-config file and oidc-* flags are mutually exclusive"))
	}
	if oidc := o.Authentication.OIDC; (oidc.IssuerURL != "") != (oidc.ClientID != "") {
		errs = append(errs, fmt.Errorf("oidc-issuer-url and oidc-client-id must be specified together"))
	}
	if v := o.Authentication.TokenWebhook.Version; v != "v1" && v != "v1beta1" {
		errs = append(errs, fmt.Errorf("--authentication-token-webhook-version: unsupported version %q, supported versions are \"v1\" and \"v1beta1\"", v))
	}
	if o.Authentication.TokenWebhook.CacheTTL < 0 {
		errs = append(errs, fmt.Errorf("--authentication-token-webhook-cache-ttl can not be negative value"))
	}
	if _, err := controlplane.ParseRuntimeConfig(o.RuntimeConfig); err != nil {
		errs = append(errs, fmt.Errorf("--runtime-config: %w", err))
	}
	if _, err := features.Parse(o.FeatureGates); err != nil {
		// kube-apiserver's message names no flag.
		errs = append(errs, err)
	}
	errs = append(errs, o.validateServiceAccounts()...)
	errs = append(errs, o.Authorization.Validate()...)
	return errs
}

// WatchCacheConfig returns the watch cache settings of the flags:
// kube-apiserver's default sizes, overridden by --watch-cache-sizes.
func (o *Options) WatchCacheConfig() generic.WatchCacheConfig {
	sizes := generic.DefaultWatchCacheSizes()
	user, _ := ParseWatchCacheSizes(o.WatchCacheSizes) // validated above
	for res, size := range user {
		sizes[res] = size
	}
	return generic.WatchCacheConfig{Enabled: o.WatchCache, DefaultSize: o.DefaultWatchCacheSize, Sizes: sizes}
}

// ParseWatchCacheSizes parses --watch-cache-sizes entries,
// "resource[.group]#size".
func ParseWatchCacheSizes(entries []string) (map[schema.GroupResource]int, error) {
	sizes := make(map[schema.GroupResource]int, len(entries))
	for _, e := range entries {
		res, sizeText, found := strings.Cut(e, "#")
		if !found || res == "" || strings.Contains(sizeText, "#") {
			return nil, fmt.Errorf("invalid value of watch cache size: %s", e)
		}
		size, err := strconv.Atoi(sizeText)
		if err != nil {
			return nil, fmt.Errorf("invalid size of watch cache size: %s", e)
		}
		if size < 0 {
			return nil, fmt.Errorf("watch cache size cannot be negative: %s", e)
		}
		sizes[schema.ParseGroupResource(res)] = size
	}
	return sizes, nil
}

// ParsePortRange parses "low-high" (or a single port) as kube-apiserver
// does.
func ParsePortRange(s string) (low, high int, err error) {
	a, b, found := strings.Cut(s, "-")
	if _, err := fmt.Sscanf(a, "%d", &low); err != nil {
		return 0, 0, fmt.Errorf("invalid port range")
	}
	high = low
	if found {
		if _, err := fmt.Sscanf(b, "%d", &high); err != nil {
			return 0, 0, fmt.Errorf("invalid port range")
		}
	}
	if low < 1 || high > 65535 || low > high {
		return 0, 0, fmt.Errorf("invalid port range")
	}
	return low, high, nil
}

// validateServiceAccounts checks the --service-account-* flags as
// kube-apiserver does.
func (o *Options) validateServiceAccounts() []error {
	var errs []error
	seen := map[string]bool{}
	for _, iss := range o.ServiceAccountIssuers {
		switch {
		case iss == "":
			errs = append(errs, errors.New("service-account-issuer should not be an empty string"))
		case seen[iss]:
			errs = append(errs, fmt.Errorf("service-account-issuer %q is already specified", iss))
		case strings.Contains(iss, ":"):
			if _, err := url.Parse(iss); err != nil {
				errs = append(errs, fmt.Errorf("service-account-issuer %q contained a ':' but was not a valid URL: %v", iss, err))
			}
		}
		seen[iss] = true
	}
	if u := o.ServiceAccountJWKSURI; u != "" {
		if p, err := url.Parse(u); err != nil || p.Scheme != "https" {
			errs = append(errs, errors.New("service-account-jwks-uri requires https scheme"))
		}
	}
	if m := o.ServiceAccountMaxTokenExpiration; m != 0 && (m < time.Hour || m > (1<<32)*time.Second) {
		errs = append(errs, errors.New("the service-account-max-token-expiration must be between 1 hour and 2^32 seconds"))
	}
	return errs
}

// trackedBool is a bool flag that remembers whether it was given, for
// --anonymous-auth, which kube-apiserver forbids next to the anonymous
// section of --authentication-config even when it has its default value.
type trackedBool struct {
	value *bool
	set   *bool
}

func (b *trackedBool) String() string {
	if b.value == nil {
		return "false"
	}
	return strconv.FormatBool(*b.value)
}

func (b *trackedBool) Set(s string) error {
	v, err := strconv.ParseBool(s)
	if err != nil {
		return err
	}
	*b.value, *b.set = v, true
	return nil
}

func (b *trackedBool) Type() string { return "bool" }

// featureGatesFlag collects the values of --feature-gates, which may be
// given several times; Validate parses them together, as kube-apiserver
// does.
type featureGatesFlag struct{ values *[]string }

func (f featureGatesFlag) String() string { return strings.Join(*f.values, ",") }

func (f featureGatesFlag) Set(v string) error {
	*f.values = append(*f.values, v)
	return nil
}

func (featureGatesFlag) Type() string { return features.FlagType }
