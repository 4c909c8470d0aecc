// Package controlplane is the kube server of the delegation chain: it
// serves the built-in API groups from their registries and runs the
// bootstrap that gives a new cluster its system namespaces.
package controlplane

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"slices"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	networkingv1 "k8s.io/api/networking/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilnet "k8s.io/apimachinery/pkg/util/net"

	"github.com/kapi-dev/kapi/pkg/api/scheme"
	"github.com/kapi-dev/kapi/pkg/authentication/authenticator"
	"github.com/kapi-dev/kapi/pkg/authorization/authorizer"
	"github.com/kapi-dev/kapi/pkg/client"
	"github.com/kapi-dev/kapi/pkg/controlplane/apfbootstrap"
	"github.com/kapi-dev/kapi/pkg/controlplane/apfstatus"
	"github.com/kapi-dev/kapi/pkg/controlplane/identitylease"
	"github.com/kapi-dev/kapi/pkg/controlplane/reconcilers"
	"github.com/kapi-dev/kapi/pkg/endpoints"
	"github.com/kapi-dev/kapi/pkg/endpoints/discovery"
	"github.com/kapi-dev/kapi/pkg/features"
	"github.com/kapi-dev/kapi/pkg/registry"
	"github.com/kapi-dev/kapi/pkg/registry/admissionregistration/paramauthz"
	admissionregistrationrest "github.com/kapi-dev/kapi/pkg/registry/admissionregistration/rest"
	appsrest "github.com/kapi-dev/kapi/pkg/registry/apps/rest"
	authenticationrest "github.com/kapi-dev/kapi/pkg/registry/authentication/rest"
	authorizationrest "github.com/kapi-dev/kapi/pkg/registry/authorization/rest"
	autoscalingrest "github.com/kapi-dev/kapi/pkg/registry/autoscaling/rest"
	batchrest "github.com/kapi-dev/kapi/pkg/registry/batch/rest"
	certificatesrest "github.com/kapi-dev/kapi/pkg/registry/certificates/rest"
	coordinationrest "github.com/kapi-dev/kapi/pkg/registry/coordination/rest"
	"github.com/kapi-dev/kapi/pkg/registry/core/namespace"
	"github.com/kapi-dev/kapi/pkg/registry/core/node"
	"github.com/kapi-dev/kapi/pkg/registry/core/pod"
	corerest "github.com/kapi-dev/kapi/pkg/registry/core/rest"
	"github.com/kapi-dev/kapi/pkg/registry/core/service"
	"github.com/kapi-dev/kapi/pkg/registry/core/serviceaccount"
	discoveryrest "github.com/kapi-dev/kapi/pkg/registry/discovery/rest"
	eventsrest "github.com/kapi-dev/kapi/pkg/registry/events/rest"
	flowcontrolrest "github.com/kapi-dev/kapi/pkg/registry/flowcontrol/rest"
	"github.com/kapi-dev/kapi/pkg/registry/gated"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	networkingrest "github.com/kapi-dev/kapi/pkg/registry/networking/rest"
	noderest "github.com/kapi-dev/kapi/pkg/registry/node/rest"
	policyrest "github.com/kapi-dev/kapi/pkg/registry/policy/rest"
	"github.com/kapi-dev/kapi/pkg/registry/rbac/escalation"
	rbacrest "github.com/kapi-dev/kapi/pkg/registry/rbac/rest"
	"github.com/kapi-dev/kapi/pkg/registry/resource/adminaccess"
	resourcerest "github.com/kapi-dev/kapi/pkg/registry/resource/rest"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
	schedulingrest "github.com/kapi-dev/kapi/pkg/registry/scheduling/rest"
	storagerest "github.com/kapi-dev/kapi/pkg/registry/storage/rest"
	storagemigrationrest "github.com/kapi-dev/kapi/pkg/registry/storagemigration/rest"
	"github.com/kapi-dev/kapi/pkg/server"
)

// Config is what the kube server needs.
type Config struct {
	RESTOptions generic.RESTOptions
	// ServiceClusterIPRange is --service-cluster-ip-range.
	ServiceClusterIPRange *net.IPNet
	// SecondaryServiceClusterIPRange is the second range of a dual-stack
	// --service-cluster-ip-range; nil on a single-stack cluster.
	SecondaryServiceClusterIPRange *net.IPNet
	// ServiceNodePortRange is --service-node-port-range.
	ServiceNodePortRange utilnet.PortRange
	// Kubelet is how kubelets are reached (--kubelet-*).
	Kubelet node.KubeletConfig
	// DisruptionBudgets are the PodDisruptionBudgets pods/eviction
	// honours; nil leaves pods/eviction unserved.
	DisruptionBudgets pod.DisruptionBudgets
	// Namespaces are read by the resource.k8s.io claims, whose admin
	// access to devices depends on their namespace's labels.
	Namespaces adminaccess.Namespaces
	// EndpointSlices are where services/proxy finds a service's
	// endpoints; nil answers it with kube-apiserver's 503 for a service
	// without endpoints.
	EndpointSlices service.EndpointSlices
	// Serving is how the built-in groups are served, as every other
	// server of the chain serves its own.
	endpoints.Serving
	// Logger receives the log of the built-in groups' machinery; nil
	// discards it.
	Logger *slog.Logger
	// RuntimeConfig switches group versions off (--runtime-config).
	RuntimeConfig RuntimeConfig
	// FeatureGates say which gated fields are served (--feature-gates).
	FeatureGates features.Gates
	// RBACEscalation is the check RBAC objects pass before they are
	// stored: nobody grants what they do not hold. nil checks nothing.
	RBACEscalation *escalation.Guard
	// PolicyParams is the check admission policies and bindings pass
	// before they are stored: their writer may read the parameters they
	// refer to. nil checks nothing.
	PolicyParams *paramauthz.Checker
	// OpenAPI receives the descriptions of the installed resources.
	OpenAPI *server.OpenAPIResources
	// PublicAddress is the address of this server in the kubernetes
	// Endpoints (--advertise-address).
	PublicAddress net.IP
	// SecurePort is the port the kubernetes Service targets.
	SecurePort int
	// Authorizer and RuleResolver answer the access reviews of
	// authorization.k8s.io: the server's own authorization chain.
	Authorizer   authorizer.Authorizer
	RuleResolver authorizer.RuleResolver
	// ServiceAccountTokens issue the tokens of serviceaccounts/token.
	ServiceAccountTokens serviceaccount.TokenConfig
	// Authenticator is the server's request authenticator, which
	// tokenreviews ask; APIAudiences are --api-audiences.
	Authenticator authenticator.Request
	APIAudiences  []string
	// EtcdHealth checks each etcd server, for componentstatuses.
	EtcdHealth []func(context.Context) error
	// EndpointLeases are the leases of the API server replicas the
	// kubernetes endpoints list (kube-apiserver's
	// --endpoint-reconciler-type=lease); nil publishes no endpoints.
	EndpointLeases reconcilers.Leases
	// EndpointReconcileInterval is how often the lease is refreshed and
	// the kubernetes Service and endpoints checked; 0 means
	// DefaultEndpointReconcileInterval.
	EndpointReconcileInterval time.Duration
	// Hostname names the identity lease; empty means the host's name.
	Hostname string
	// IdentityLeaseGCInterval is how often expired identity leases are
	// deleted; 0 means identitylease.GCInterval.
	IdentityLeaseGCInterval time.Duration
}

// providers declares the built-in groups the kube server serves, each in
// its own package. A new group is one line here; a new resource is one
// line in its group's provider.
func providers(cfg Config) []registry.StorageProvider {
	return []registry.StorageProvider{
		corerest.StorageProvider{ServiceClusterIPRange: cfg.ServiceClusterIPRange, SecondaryServiceClusterIPRange: cfg.SecondaryServiceClusterIPRange, ServiceNodePortRange: cfg.ServiceNodePortRange, ServiceAccountTokens: cfg.ServiceAccountTokens,
			EtcdHealth: cfg.EtcdHealth, Kubelet: cfg.Kubelet, Authorizer: cfg.Authorizer, EndpointSlices: cfg.EndpointSlices, DisruptionBudgets: cfg.DisruptionBudgets, Gates: cfg.FeatureGates},
		appsrest.StorageProvider{Gates: cfg.FeatureGates},
		authenticationrest.StorageProvider{Authenticator: cfg.Authenticator, APIAudiences: cfg.APIAudiences},
		eventsrest.StorageProvider{},
		coordinationrest.StorageProvider{Gates: cfg.FeatureGates},
		authorizationrest.StorageProvider{Authorizer: cfg.Authorizer, RuleResolver: cfg.RuleResolver},
		rbacrest.StorageProvider{Guard: cfg.RBACEscalation},
		discoveryrest.StorageProvider{},
		noderest.StorageProvider{},
		schedulingrest.StorageProvider{},
		storagerest.StorageProvider{Gates: cfg.FeatureGates},
		certificatesrest.StorageProvider{},
		batchrest.StorageProvider{Gates: cfg.FeatureGates},
		autoscalingrest.StorageProvider{},
		policyrest.StorageProvider{},
		networkingrest.StorageProvider{},
		flowcontrolrest.StorageProvider{},
		storagemigrationrest.StorageProvider{},
		resourcerest.StorageProvider{Namespaces: cfg.Namespaces, Gates: cfg.FeatureGates},
		admissionregistrationrest.StorageProvider{Params: cfg.PolicyParams},
	}
}

// groupVersion is the storage of one served group version.
type groupVersion struct {
	gv       schema.GroupVersion
	priority int
	storage  map[string]rest.Storage
}

// New builds the kube server, delegating what it does not serve.
func New(cfg Config, delegate server.DelegationTarget, disc *discovery.Registry) (*server.GenericAPIServer, error) {
	s := server.New("kube", delegate, disc)
	s.UseOpenAPI(cfg.OpenAPI)

	served, err := buildStorage(cfg.RESTOptions, cfg.RuntimeConfig, providers(cfg))
	if err != nil {
		return nil, err
	}
	// The control plane's bootstrap works on storage of the core group.
	// Without /api/v1 there is no kubernetes Service to create, as in
	// kube-apiserver.
	core, err := coreStorageOf(served)
	if err != nil {
		return nil, err
	}

	strict := serializer.NewCodecFactory(scheme.Scheme, serializer.EnableStrict)
	for _, g := range served {
		agv := &endpoints.APIGroupVersion{
			GroupVersion:     g.gv,
			Storage:          g.storage,
			Scheme:           scheme.Scheme,
			Defaulter:        gated.Defaulter(scheme.Scheme, cfg.FeatureGates),
			Serializer:       scheme.Codecs,
			StrictSerializer: strict,
			ParameterCodec:   scheme.ParameterCodec,
			Serving:          cfg.Serving,
			Logger:           cfg.Logger,
		}
		// Versions of a group are ordered by their names in discovery
		// (v2 before v1 before v1beta1), as kube-apiserver orders them.
		if err := s.InstallAPIGroupVersion(agv, g.priority, 0); err != nil {
			return nil, err
		}
	}

	if err := addBootstrapHooks(s, cfg, core, served); err != nil {
		return nil, err
	}
	if core != nil {
		s.AddPostStartHook("start-service-ip-repair-controllers", serviceRepairHook(core.services, cfg.Logger))
	}
	if isServed(served, networkingv1.SchemeGroupVersion, "servicecidrs") && cfg.ServiceClusterIPRange != nil {
		s.AddPostStartHook("start-kubernetes-service-cidr-controller", defaultServiceCIDRHook(serviceRanges(cfg), cfg.Logger))
	}
	if servesGroup(served, flowcontrolv1.SchemeGroupVersion) {
		s.AddPostStartHook(apfbootstrap.HookName, apfBootstrapHook(cfg.Logger))
		s.AddPostStartHook(apfstatus.HookName, apfStatusHook(cfg.Logger))
	}
	return s, nil
}

// addBootstrapHooks registers the controllers that give a cluster the
// objects kube-apiserver bootstraps, under kube-apiserver's hook names;
// each needs its resources served.
func addBootstrapHooks(s *server.GenericAPIServer, cfg Config, core *coreStorage, served []groupVersion) error {
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if core != nil {
		s.AddPostStartHook("start-system-namespaces-controller", systemNamespacesHook())
		interval := cfg.EndpointReconcileInterval
		if interval == 0 {
			interval = DefaultEndpointReconcileInterval
		}
		bc := &bootstrapController{services: core.services, leases: cfg.EndpointLeases, address: cfg.PublicAddress,
			securePort: cfg.SecurePort, interval: interval, log: log}
		s.AddPostStartHook("bootstrap-controller", bc.start)
		s.AddPostStartHook("start-legacy-token-tracking-controller", legacyTokenTrackingHook(interval, log))
		s.AddPreShutdownHook("bootstrap-controller", bc.stop)
	}
	if isServed(served, schedulingv1.SchemeGroupVersion, "priorityclasses") {
		s.AddPostStartHook("scheduling/bootstrap-system-priority-classes", systemPriorityClassesHook(log))
	}
	if isServed(served, coordinationv1.SchemeGroupVersion, "leases") {
		host, err := hostname(cfg.Hostname)
		if err != nil {
			return fmt.Errorf("host name for the apiserver identity: %w", err)
		}
		gc := cfg.IdentityLeaseGCInterval
		if gc == 0 {
			gc = identitylease.GCInterval
		}
		controller, collector := identityLeaseHooks(host, cfg.PublicAddress, cfg.SecurePort, gc, log)
		s.AddPostStartHook("start-kube-apiserver-identity-lease-controller", controller)
		s.AddPostStartHook("start-kube-apiserver-identity-lease-garbage-collector", collector)
	}
	return nil
}

// isServed is whether resource of gv is among the served storage.
func isServed(served []groupVersion, gv schema.GroupVersion, resource string) bool {
	for _, g := range served {
		if g.gv == gv {
			_, ok := g.storage[resource]
			return ok
		}
	}
	return false
}

// buildStorage builds the storage of every group version the runtime
// config serves, asking each provider for its enabled versions only.
func buildStorage(opts generic.RESTOptions, rc RuntimeConfig, providers []registry.StorageProvider) ([]groupVersion, error) {
	var out []groupVersion
	for _, p := range providers {
		group := p.GroupName()
		served := func(version string) bool {
			return rc.Enabled(schema.GroupVersion{Group: group, Version: version})
		}
		versions, err := p.NewRESTStorage(opts, served)
		if err != nil {
			return nil, fmt.Errorf("storage of group %q: %w", group, err)
		}
		for _, version := range slices.Sorted(maps.Keys(versions)) {
			gv := schema.GroupVersion{Group: group, Version: version}
			if !served(version) {
				return nil, fmt.Errorf("the provider of group %q built storage for %s, which --runtime-config switches off", group, gv)
			}
			out = append(out, groupVersion{gv: gv, priority: p.GroupPriority(), storage: versions[version]})
		}
	}
	return out, nil
}

// coreStorage is what the control plane itself uses of the core group.
type coreStorage struct {
	namespaces *namespace.REST
	services   *service.REST
	endpoints  *generic.Store
}

// coreStorageOf finds the core group's storage in what is served, by the
// paths its provider declares them at; nil if the core group is not
// served.
func coreStorageOf(served []groupVersion) (*coreStorage, error) {
	for _, g := range served {
		if g.gv != corev1.SchemeGroupVersion {
			continue
		}
		namespaces, ok1 := g.storage["namespaces"].(*namespace.REST)
		services, ok2 := g.storage["services"].(*service.REST)
		endpoints, ok3 := g.storage["endpoints"].(*generic.Store)
		if !ok1 || !ok2 || !ok3 {
			return nil, fmt.Errorf("%s lacks the namespaces, services or endpoints storage the control plane uses", g.gv)
		}
		return &coreStorage{namespaces: namespaces, services: services, endpoints: endpoints}, nil
	}
	return nil, nil
}

// servesGroup says whether gv is among the served group versions.
func servesGroup(served []groupVersion, gv schema.GroupVersion) bool {
	for _, g := range served {
		if g.gv == gv {
			return true
		}
	}
	return false
}

// apfStatusHook starts keeping the FlowSchemas' Dangling condition, as
// kube-apiserver's APF config consumer does.
func apfStatusHook(log *slog.Logger) server.PostStartHookFunc {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return func(hctx server.PostStartHookContext) error {
		client, err := kubeAPIServerClient(hctx)
		if err != nil {
			return fmt.Errorf("the APF status client: %w", err)
		}
		apfstatus.Run(hctx.Context, client, log.With("component", "apf-status"))
		return nil
	}
}

// apfBootstrapHook puts the API priority and fairness bootstrap
// configuration in place through the loopback client, and keeps it there.
func apfBootstrapHook(log *slog.Logger) server.PostStartHookFunc {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return func(hctx server.PostStartHookContext) error {
		clients, err := client.NewSet(hctx.Loopback.RESTConfig(), scheme.Scheme)
		if err != nil {
			return fmt.Errorf("the APF bootstrap client: %w", err)
		}
		return apfbootstrap.Run(hctx.Context, apfbootstrap.Clients{
			FlowSchemas:                 client.For[*flowcontrolv1.FlowSchema, *flowcontrolv1.FlowSchemaList](clients, "flowschemas", ""),
			PriorityLevelConfigurations: client.For[*flowcontrolv1.PriorityLevelConfiguration, *flowcontrolv1.PriorityLevelConfigurationList](clients, "prioritylevelconfigurations", ""),
		}, apfbootstrap.Interval, log.With("component", "apf-bootstrap"))
	}
}
