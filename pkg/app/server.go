package app

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
	"slices"
	"strconv"

	"k8s.io/client-go/dynamic"

	clientv3 "go.etcd.io/etcd/client/v3"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	policyv1 "k8s.io/api/policy/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	clientdiscovery "k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/restmapper"

	"github.com/kapi-dev/kapi/pkg/admission"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/webhook"
	aggregatorserver "github.com/kapi-dev/kapi/pkg/aggregator"
	"github.com/kapi-dev/kapi/pkg/api/scheme"
	"github.com/kapi-dev/kapi/pkg/apiextensions"
	"github.com/kapi-dev/kapi/pkg/authentication/cafile"
	tokencache "github.com/kapi-dev/kapi/pkg/authentication/token/cache"
	"github.com/kapi-dev/kapi/pkg/authorization"
	rbacauthorizer "github.com/kapi-dev/kapi/pkg/authorization/rbac"
	"github.com/kapi-dev/kapi/pkg/certs"
	"github.com/kapi-dev/kapi/pkg/client"
	"github.com/kapi-dev/kapi/pkg/controlplane"
	"github.com/kapi-dev/kapi/pkg/controlplane/clusterauthenticationtrust"
	"github.com/kapi-dev/kapi/pkg/controlplane/reconcilers"
	"github.com/kapi-dev/kapi/pkg/endpoints"
	"github.com/kapi-dev/kapi/pkg/endpoints/discovery"
	"github.com/kapi-dev/kapi/pkg/metrics"
	"github.com/kapi-dev/kapi/pkg/openapi"
	"github.com/kapi-dev/kapi/pkg/printers"
	"github.com/kapi-dev/kapi/pkg/registry/admissionregistration/paramauthz"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rbac/escalation"
	"github.com/kapi-dev/kapi/pkg/server"
	"github.com/kapi-dev/kapi/pkg/server/healthz"
	"github.com/kapi-dev/kapi/pkg/storage/embedded"
	"github.com/kapi-dev/kapi/pkg/storage/etcd3"
	"github.com/kapi-dev/kapi/pkg/storage/objectcount"
	"github.com/kapi-dev/kapi/pkg/storage/storagebackend"
	"github.com/kapi-dev/kapi/pkg/storage/value"
	"github.com/kapi-dev/kapi/pkg/version"
)

// Server is a configured, not yet running kapi.
type Server struct {
	// URL is where kapi serves.
	URL string
	// Kubeconfig is the admin kubeconfig kapi wrote to its data dir.
	Kubeconfig string

	prepared *server.Prepared
	closers  []func() error
}

// New builds kapi from c and binds its secure port. What it builds is
// released by Run when it returns, or by New itself when it fails.
//
// The order is the order of the dependencies: the serving address and
// certificates, then the loopback client (which needs both) and its
// informers, storage, authentication and authorization, the admission
// chain (which reads namespaces through the informers), and last the
// servers of the delegation chain, innermost first, each handed all it
// needs.
func New(ctx context.Context, c *Config) (srv *Server, err error) {
	s := &Server{}
	if c.Listener != nil {
		s.closers = append(s.closers, c.Listener.Close)
	}
	defer func() {
		if err != nil {
			s.close()
		}
	}()
	if err := c.validate(); err != nil {
		return nil, err
	}
	log := c.Logger
	if err := os.MkdirAll(c.DataDir, 0o700); err != nil {
		return nil, fmt.Errorf("--data-dir: %w", err)
	}

	ln := c.Listener
	if ln == nil {
		if ln, err = net.Listen("tcp", net.JoinHostPort(c.BindAddress.String(), strconv.Itoa(c.SecurePort))); err != nil {
			return nil, fmt.Errorf("--secure-port: %w", err)
		}
		s.closers = append(s.closers, ln.Close)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	host := c.BindAddress.String()
	if c.BindAddress.IsUnspecified() {
		host = "127.0.0.1"
	}
	s.URL = "https://" + net.JoinHostPort(host, strconv.Itoa(port))
	public := publicAddress(c)

	tlsConfig, caPool, caPEM, err := s.servingTLS(c, public, log)
	if err != nil {
		return nil, err
	}

	// The loopback client lets the server's own controllers and informers
	// call it as a privileged user; its informers start once it serves.
	loopbackToken, err := randomToken()
	if err != nil {
		return nil, err
	}
	loopback := server.LoopbackConfig{Host: s.URL, BearerToken: loopbackToken, CAData: caPEM, ServerName: loopbackServerName}
	loopbackClients, err := client.NewSet(loopback.RESTConfig(), scheme.Scheme)
	if err != nil {
		return nil, fmt.Errorf("loopback client: %w", err)
	}
	sharedInformers := client.NewInformers(loopbackClients)

	etcdClient, err := s.startStorage(ctx, c, log)
	if err != nil {
		return nil, err
	}
	// The caches watch through etcdClient: they stop before it closes.
	watchCacheConfig := c.WatchCache
	watchCacheConfig.Logger = log.With("component", "watch-cache")
	watchCaches := generic.NewWatchCaches(watchCacheConfig)
	s.closers = append(s.closers, func() error { watchCaches.Stop(); return nil })
	// Without compaction etcd keeps every revision until it runs out of
	// space. The compactor takes turns with other servers of the same
	// etcd, kube-apiserver included.
	if c.Etcd.CompactionInterval > 0 {
		compactCtx, stopCompactor := context.WithCancel(context.Background())
		s.closers = append(s.closers, func() error { stopCompactor(); return nil })
		go etcd3.RunCompactor(compactCtx, etcdClient, c.Etcd.CompactionInterval, log.With("component", "etcd-compactor"))
	}

	// Metrics are recorded from the request path up: the registry comes
	// before everything that counts, and is served on /metrics below.
	metricsRegistry := metrics.NewRegistry()
	identity, err := serverIdentity()
	if err != nil {
		return nil, err
	}

	saTokens, err := buildServiceAccountTokens(c, filepath.Join(c.DataDir, "pki"), net.JoinHostPort(public.String(), strconv.Itoa(port)), loopbackClients, sharedInformers, metricsRegistry, log)
	if err != nil {
		return nil, err
	}
	// The reloads of --authentication-config and the JWT authenticators.
	authnMetrics := authenticationMetrics(identity)
	metricsRegistry.MustRegister(authnMetrics.Reloads, authnMetrics.JWT)
	tokenCacheMetrics := tokencache.NewMetrics()
	metricsRegistry.MustRegister(tokenCacheMetrics)
	// The serving certificates of the token and authorization webhooks.
	webhookX509 := metrics.NewWebhookX509(log.With("component", "webhook-certificates"))
	metricsRegistry.MustRegister(webhookX509)
	authn, err := buildAuthentication(c, &cafile.Bundle{PEM: caPEM, Pool: caPool}, loopbackToken, saTokens.authenticators, saTokens.apiAudiences, authnMetrics, tokenCacheMetrics, webhookX509, log)
	if err != nil {
		return nil, err
	}
	authnCtx, stopAuthn := context.WithCancel(context.Background())
	s.closers = append(s.closers, func() error { stopAuthn(); return nil })
	authn.run(authnCtx)
	// RBAC reads roles and bindings through the loopback informers; its
	// rules also back the escalation check of the RBAC resources, whatever
	// the modes, as in kube-apiserver.
	rbacAuthz, err := rbacauthorizer.NewFromInformers(rbacInformers(sharedInformers))
	if err != nil {
		return nil, err
	}
	authzConfig := c.Authorization
	authzConfig.Modes = c.AuthorizationMode
	authzConfig.Logger = log.With("component", "authorization")
	authzConfig.Metrics = authorization.NewMetrics(identity)
	authzConfig.WebhookX509 = webhookX509
	metricsRegistry.MustRegister(authzConfig.Metrics)
	built := authorization.Built{RBAC: rbacAuthz}
	// --authorization-config may name any mode, and may name it later
	// when the file is reloaded; otherwise only the listed modes are built.
	if authzConfig.ConfigFile != "" || slices.Contains(c.AuthorizationMode, authorization.ModeNode) {
		if built.Node, err = buildNodeAuthorizer(sharedInformers, c.RuntimeConfig); err != nil {
			return nil, err
		}
	}
	authz, err := authorization.Build(authzConfig, built)
	if err != nil {
		if authzConfig.ConfigFile != "" {
			return nil, fmt.Errorf("--authorization-config: %w", err)
		}
		return nil, fmt.Errorf("--authorization-mode: %w", err)
	}
	// --authorization-config is reloaded when it changes, for as long as
	// the server runs.
	reloadCtx, stopReload := context.WithCancel(context.Background())
	s.closers = append(s.closers, func() error { stopReload(); return nil })
	go authz.Run(reloadCtx)
	admissionMetrics := admission.NewMetrics()
	webhookMetrics := webhook.NewMetrics()
	metricsRegistry.MustRegister(admissionMetrics, webhookMetrics)
	equivalentResources := admission.NewEquivalentResourceRegistry()
	admit, err := buildAdmission(c.Admission, &admissionDeps{
		clients:             loopbackClients,
		informers:           sharedInformers,
		authorizer:          authz,
		features:            c.FeatureGates,
		log:                 log.With("component", "admission"),
		webhookMetrics:      webhookMetrics,
		webhookX509:         webhookX509,
		equivalentResources: equivalentResources,
		loopbackHost:        loopback.Host,
		metrics:             metricsRegistry,
		dynamic:             dynamic.NewForConfigOrDie(loopback.RESTConfig()),
		restMapper:          restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(clientdiscovery.NewDiscoveryClientForConfigOrDie(loopback.RESTConfig()))),
		// ResourceQuota reads device classes only when they are served.
		runtimeConfig: c.RuntimeConfig,
	}, admissionMetrics, log.With("component", "admission"))
	if err != nil {
		return nil, fmt.Errorf("admission: %w", err)
	}

	disc := discovery.NewRegistry()
	metricsRegistry.MustRegister(discoveryMetrics(disc)...)
	openAPIService := openapi.NewService(openapi.Config{
		Info:   openapi.Info{Title: "Kubernetes", Version: version.EmulationVersion()},
		Scheme: scheme.Scheme,
		// installIssuerDiscovery serves them.
		ServiceAccountIssuerDiscovery: true,
	})
	openAPI := server.NewOpenAPIResources(openAPIService)
	storageBackend := &storagebackend.Factory{Client: etcdClient, Prefix: c.Etcd.Prefix}
	// Registered whether or not anything is encrypted, as kube-apiserver's.
	encryptionMetrics := value.NewMetrics(identity)
	encryptionReloads := encryptionReloadMetrics(identity)
	metricsRegistry.MustRegister(encryptionMetrics, encryptionReloads)
	encryptionAtRest, err := s.loadEncryption(c, encryptionMetrics, encryptionReloads)
	if err != nil {
		return nil, err
	}
	if encryptionAtRest != nil {
		storageBackend.Transformers = encryptionAtRest
	}
	// Every resource's objects are counted once a minute, for the work
	// estimator of priority and fairness and apiserver_resource_objects.
	objectCounts := objectcount.New(objectcount.Options{Logger: log.With("component", "object-counts")})
	metricsRegistry.MustRegister(objectCounts.Collector())
	restOptions := generic.RESTOptions{
		ObjectCounts:   objectCounts,
		StorageFactory: storageBackend,
		// A resource's watch cache is made when it is first listed or
		// watched: most of the seventy built-in resources and of the
		// installed CRDs are not, between two restarts.
		Decorator:      generic.DecorateOnFirstUse(watchCaches.Decorate),
		TableConvertor: printers.New(),
	}

	// Every server of the chain serves its group versions alike.
	serving := endpoints.Serving{
		Admission:           admit,
		EquivalentResources: equivalentResources,
		MinRequestTimeout:   c.MinRequestTimeout,
		MaxRequestBodyBytes: c.MaxRequestBodyBytes,
	}
	apiextensionsServer, err := apiextensions.New(apiextensions.Config{
		RESTOptions: restOptions,
		Storage:     storageBackend,
		Serving:     serving,
		OpenAPI:     openAPI,
		Logger:      log.With("component", "apiextensions"),
		// A CRD may not take the name of a resource the chain serves.
		BuiltinResource: disc.HasResource,
	}, server.NotFoundServer{}, disc)
	if err != nil {
		return nil, err
	}
	kube, err := controlplane.New(controlplane.Config{
		RESTOptions:           restOptions,
		Serving:               serving,
		Logger:                log.With("component", "kube"),
		ServiceClusterIPRange: c.ServiceClusterIPRange,
		ServiceNodePortRange:  c.ServiceNodePortRange,
		Kubelet:               c.Kubelet,
		OpenAPI:               openAPI,
		RuntimeConfig:         c.RuntimeConfig,
		FeatureGates:          c.FeatureGates,
		RBACEscalation:        &escalation.Guard{Authorizer: authz, Rules: rbacAuthz},
		PolicyParams:          &paramauthz.Checker{Authorizer: authz, Resources: discoveryResources{clientdiscovery.NewDiscoveryClientForConfigOrDie(loopback.RESTConfig())}},
		SecurePort:            port,
		PublicAddress:         public,
		Authorizer:            authz,
		RuleResolver:          authz,
		ServiceAccountTokens:  saTokens.issue,
		Authenticator:         authn.request,
		APIAudiences:          saTokens.apiAudiences,
		EtcdHealth:            etcdHealth(c, etcdClient),
		// Evictions and service proxies read other groups through the
		// loopback client, as kube-apiserver's do.
		DisruptionBudgets: loopbackDisruptionBudgets{func(namespace string) client.WithStatus[*policyv1.PodDisruptionBudget, *policyv1.PodDisruptionBudgetList] {
			return client.For[*policyv1.PodDisruptionBudget, *policyv1.PodDisruptionBudgetList](loopbackClients, "poddisruptionbudgets", namespace)
		}},
		EndpointSlices: loopbackEndpointSlices{client.NamespacedFor[*discoveryv1.EndpointSlice, *discoveryv1.EndpointSliceList](loopbackClients, "endpointslices")},
		Namespaces:     loopbackNamespaces{client.For[*corev1.Namespace, *corev1.NamespaceList](loopbackClients, "namespaces", "")},
		// kube-apiserver's --endpoint-reconciler-type=lease.
		EndpointLeases:            &reconcilers.EtcdLeases{Client: etcdClient, Prefix: c.Etcd.Prefix + "/masterleases/", TTL: reconcilers.DefaultLeaseTTL},
		EndpointReconcileInterval: c.EndpointReconcileInterval,
		// The second range of a dual-stack --service-cluster-ip-range.
		SecondaryServiceClusterIPRange: c.SecondaryServiceClusterIPRange,
	}, apiextensionsServer, disc)
	if err != nil {
		return nil, err
	}
	kube.AddHealthChecks(healthz.ContextCheck("etcd", etcd3.HealthCheck(etcdClient)))
	// The outermost server: apiregistration.k8s.io, and the group versions
	// of the APIServices.
	remoteAPIServices, err := newAggregatorRemote(c, sharedInformers, loopback.Host, metricsRegistry, log.With("component", "aggregator"))
	if err != nil {
		return nil, err
	}
	apiServices, err := aggregatorserver.New(aggregatorserver.Config{
		RESTOptions: restOptions,
		Serving:     serving,
		OpenAPI:     openAPI,
		Logger:      log.With("component", "aggregator"),
		// Their group versions get APIServices.
		CRDs:   client.InformerFor[*apiextensionsv1.CustomResourceDefinition, *apiextensionsv1.CustomResourceDefinitionList](sharedInformers, "customresourcedefinitions"),
		Remote: remoteAPIServices.handlers,
	}, kube, disc)
	if err != nil {
		return nil, err
	}
	if err := remoteAPIServices.addControllers(apiServices, sharedInformers, loopbackClients, metricsRegistry, log); err != nil {
		return nil, err
	}
	aggregator := apiServices.GenericAPIServer
	// The admission chain reads namespaces from the informers: the server
	// is ready once they have synced.
	aggregator.AddPostStartHook("generic-apiserver-start-informers", func(ctx server.PostStartHookContext) error {
		sharedInformers.Start(ctx.Context)
		for typ, synced := range sharedInformers.WaitForCacheSync(ctx.Context) {
			if !synced && ctx.Err() == nil {
				return fmt.Errorf("the informer of %v did not sync", typ)
			}
		}
		return nil
	})
	if err := addRBACBootstrap(aggregator, rbacServed(disc.HasResource), loopbackClients, sharedInformers, log); err != nil {
		return nil, err
	}
	if err := addPolicyStatusController(aggregator, disc.HasResource("admissionregistration.k8s.io", "validatingadmissionpolicies"), c.DisablePolicyStatusController,
		loopback, loopbackClients, sharedInformers, log.With("component", "validatingadmissionpolicy-status")); err != nil {
		return nil, err
	}
	if encryptionAtRest != nil {
		addEncryptionHooks(aggregator, encryptionAtRest, c, log)
	}
	// kube-apiserver's cluster-authentication-trust controller.
	aggregator.AddPostStartHook("start-cluster-authentication-info-controller", func(ctx server.PostStartHookContext) error {
		clusterauthenticationtrust.Run(ctx, clusterauthenticationtrust.Clients{
			ConfigMaps: client.For[*corev1.ConfigMap, *corev1.ConfigMapList](loopbackClients, "configmaps", clusterauthenticationtrust.Namespace),
			Namespaces: client.For[*corev1.Namespace, *corev1.NamespaceList](loopbackClients, "namespaces", ""),
		}, authn.trust, func(err error) {
			log.Error("Unable to publish "+clusterauthenticationtrust.Namespace+"/"+clusterauthenticationtrust.Name, "err", err)
		})
		return nil
	})
	// The counting runs while the server serves, under kube-apiserver's
	// name for it.
	aggregator.AddPostStartHook("storage-object-count-tracker-hook", func(ctx server.PostStartHookContext) error {
		go objectCounts.Run(ctx.Context)
		return nil
	})
	flowControl := buildFlowControl(c, aggregator, disc, sharedInformers, objectCounts, watchCaches, metricsRegistry, log)
	installSystemEndpoints(aggregator, metricsRegistry, c.Profiling, net.JoinHostPort(public.String(), strconv.Itoa(port)))
	// The documents of remote APIServices, fetched with the proxy's
	// transport, in discovery and OpenAPI.
	openAPIHandler, err := addRemoteDocuments(aggregator, apiServices.APIServices, disc, openAPIService, remoteAPIServices.config.Transport, log)
	if err != nil {
		return nil, err
	}
	aggregator.Handle("/openapi/", openAPIHandler)
	installIssuerDiscovery(aggregator, saTokens)

	auditing, err := buildAudit(c.Audit, metricsRegistry, webhookX509, log)
	if err != nil {
		return nil, err
	}
	if auditing.backend != nil {
		if err := auditing.backend.Run(ctx); err != nil {
			return nil, fmt.Errorf("audit backend: %w", err)
		}
		// Closers run after serving has stopped: the events of the last
		// requests are flushed.
		s.closers = append(s.closers, func() error { auditing.backend.Shutdown(); return nil })
	}

	prepared, err := aggregator.PrepareRun(server.ServingConfig{
		Listener:                     ln,
		TLS:                          tlsConfig,
		BuildHandlerChain:            handlerChain(c, authn.request, authn.clearHeaders, authz, auditing, metricsRegistry, flowControl, log),
		ShutdownDelayDuration:        c.ShutdownDelayDuration,
		HTTP2MaxStreamsPerConnection: c.HTTP2MaxStreamsPerConnection,
		Loopback:                     loopback,
		Logger:                       log,
	})
	if err != nil {
		return nil, err
	}
	s.prepared = prepared
	return s, nil
}

// Run serves until ctx is done, then shuts down and releases everything
// New built: storage last.
func (s *Server) Run(ctx context.Context) error {
	err := s.prepared.Run(ctx)
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
func publicAddress(c *Config) net.IP {
	if ip := c.AdvertiseAddress; ip != nil && !ip.IsUnspecified() {
		return ip
	}
	if ip, err := utilnet.ResolveBindAddress(c.BindAddress); err == nil {
		return ip
	}
	return net.ParseIP("127.0.0.1")
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
func (s *Server) servingTLS(o *Config, public net.IP, log *slog.Logger) (*tls.Config, *x509.CertPool, []byte, error) {
	serviceIP := firstIP(o.ServiceClusterIPRange)
	// The address advertised to the cluster must verify too.
	extra := []string{public.String(), loopbackServerName}
	if ip := o.BindAddress; ip != nil && !ip.IsUnspecified() {
		extra = append(extra, ip.String())
	}
	bundle, err := certs.EnsureBootstrap(filepath.Join(o.DataDir, "pki"), certs.Options{ExtraSANs: extra, ServiceIP: serviceIP, ServerURL: s.URL, Logger: log.With("component", "certs")})
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

// etcdHealth is one health check for each etcd server, as the
// componentstatuses etcd-N report them: the embedded etcd is one server.
// The servers of --etcd-servers share one client, and so one check.
func etcdHealth(o *Config, client *clientv3.Client) []func(context.Context) error {
	n := max(len(o.Etcd.Servers), 1)
	checks := make([]func(context.Context) error, n)
	for i := range checks {
		checks[i] = etcd3.HealthCheck(client)
	}
	return checks
}

// startStorage connects to --etcd-servers or starts the embedded etcd.
func (s *Server) startStorage(ctx context.Context, o *Config, log *slog.Logger) (*clientv3.Client, error) {
	if len(o.Etcd.Servers) > 0 {
		client, err := etcd3.NewClient(etcd3.ClientConfig{
			Servers: o.Etcd.Servers, CAFile: o.Etcd.CAFile, CertFile: o.Etcd.CertFile, KeyFile: o.Etcd.KeyFile,
		})
		if err != nil {
			return nil, fmt.Errorf("--etcd-servers: %w", err)
		}
		s.closers = append(s.closers, client.Close)
		return client, nil
	}
	etcd, err := embedded.Start(ctx, embedded.Config{DataDir: filepath.Join(o.DataDir, "etcd"), Logger: log.With("component", "etcd")})
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
