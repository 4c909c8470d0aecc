// Package controlplane is the kube server of the delegation chain: it
// serves the built-in API groups from their registries and runs the
// bootstrap that gives a new cluster its system namespaces.
package controlplane

import (
	"fmt"
	"log/slog"
	"net"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilnet "k8s.io/apimachinery/pkg/util/net"

	"github.com/kapi-dev/kapi/pkg/admission"
	"github.com/kapi-dev/kapi/pkg/api/scheme"
	"github.com/kapi-dev/kapi/pkg/endpoints"
	"github.com/kapi-dev/kapi/pkg/endpoints/discovery"
	"github.com/kapi-dev/kapi/pkg/registry/apps/deployment"
	"github.com/kapi-dev/kapi/pkg/registry/coordination/lease"
	"github.com/kapi-dev/kapi/pkg/registry/core/configmap"
	coreendpoints "github.com/kapi-dev/kapi/pkg/registry/core/endpoints"
	"github.com/kapi-dev/kapi/pkg/registry/core/event"
	"github.com/kapi-dev/kapi/pkg/registry/core/namespace"
	"github.com/kapi-dev/kapi/pkg/registry/core/node"
	"github.com/kapi-dev/kapi/pkg/registry/core/pod"
	"github.com/kapi-dev/kapi/pkg/registry/core/secret"
	"github.com/kapi-dev/kapi/pkg/registry/core/service"
	"github.com/kapi-dev/kapi/pkg/registry/core/service/ipallocator"
	"github.com/kapi-dev/kapi/pkg/registry/core/serviceaccount"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
	"github.com/kapi-dev/kapi/pkg/server"
)

// Config is what the kube server needs.
type Config struct {
	RESTOptions generic.RESTOptions
	// ServiceClusterIPRange is --service-cluster-ip-range.
	ServiceClusterIPRange *net.IPNet
	// ServiceNodePortRange is --service-node-port-range.
	ServiceNodePortRange utilnet.PortRange
	// Admission is the admission chain of every write, the same one the
	// other servers of the delegation chain use.
	Admission admission.Interface
	// Logger receives the log of the built-in groups' machinery; nil
	// discards it.
	Logger *slog.Logger
	// RuntimeConfig switches group versions off (--runtime-config).
	RuntimeConfig RuntimeConfig
	// OpenAPI receives the descriptions of the installed resources.
	OpenAPI *server.OpenAPIResources
	// PublicAddress is the address of this server in the kubernetes
	// Endpoints (--advertise-address).
	PublicAddress net.IP
	// SecurePort is the port the kubernetes Service targets.
	SecurePort          int
	MinRequestTimeout   time.Duration
	MaxRequestBodyBytes int64
}

// groupPriority orders the groups in discovery as kube-apiserver does.
var groupPriority = map[string]int{
	"":                             18100,
	"apiregistration.k8s.io":       18000,
	"apps":                         17800,
	"events.k8s.io":                17750,
	"authentication.k8s.io":        17700,
	"authorization.k8s.io":         17600,
	"autoscaling":                  17500,
	"batch":                        17400,
	"certificates.k8s.io":          17300,
	"networking.k8s.io":            17200,
	"policy":                       17100,
	"rbac.authorization.k8s.io":    17000,
	"storage.k8s.io":               16800,
	"admissionregistration.k8s.io": 16700,
	"apiextensions.k8s.io":         16650,
	"scheduling.k8s.io":            16600,
	"coordination.k8s.io":          16500,
	"node.k8s.io":                  16300,
	"discovery.k8s.io":             16200,
	"resource.k8s.io":              16150,
	"flowcontrol.apiserver.k8s.io": 16100,
	"storagemigration.k8s.io":      16050,
}

// New builds the kube server, delegating what it does not serve.
func New(cfg Config, delegate server.DelegationTarget, disc *discovery.Registry) (*server.GenericAPIServer, error) {
	s := server.New("kube", delegate, disc)
	s.UseOpenAPI(cfg.OpenAPI)
	opts := cfg.RESTOptions

	namespaces, nsStatus, nsFinalize, err := namespace.NewREST(opts)
	if err != nil {
		return nil, err
	}
	ipStorage, err := opts.StorageFactory.NewStorage(networkingv1.Resource("ipaddresses"), networkingv1.SchemeGroupVersion,
		func() runtime.Object { return &networkingv1.IPAddress{} }, func() runtime.Object { return &networkingv1.IPAddressList{} })
	if err != nil {
		return nil, err
	}
	alloc, err := ipallocator.New(cfg.ServiceClusterIPRange, ipStorage)
	if err != nil {
		return nil, fmt.Errorf("--service-cluster-ip-range: %w", err)
	}

	core := map[string]rest.Storage{
		"namespaces":          namespaces,
		"namespaces/status":   nsStatus,
		"namespaces/finalize": nsFinalize,
	}
	if err := addStores(core, opts, map[string]func(generic.RESTOptions) (*generic.Store, error){
		"configmaps":      configmap.NewREST,
		"secrets":         secret.NewREST,
		"serviceaccounts": serviceaccount.NewREST,
		"endpoints":       coreendpoints.NewREST,
		"events":          event.NewREST,
	}); err != nil {
		return nil, err
	}
	pods, err := pod.NewStorage(opts)
	if err != nil {
		return nil, err
	}
	core["pods"], core["pods/status"], core["pods/binding"], core["bindings"] = pods.Pod, pods.Status, pods.Binding, pods.Binding
	services, svcStatus, err := service.NewREST(opts, alloc, cfg.ServiceNodePortRange)
	if err != nil {
		return nil, err
	}
	core["services"], core["services/status"] = services, svcStatus
	nodes, nodeStatus, err := node.NewREST(opts)
	if err != nil {
		return nil, err
	}
	core["nodes"], core["nodes/status"] = nodes, nodeStatus

	deployments, err := deployment.NewStorage(opts)
	if err != nil {
		return nil, err
	}
	leases, err := lease.NewREST(opts)
	if err != nil {
		return nil, err
	}

	groups := []struct {
		gv      schema.GroupVersion
		storage map[string]rest.Storage
	}{
		{corev1.SchemeGroupVersion, core},
		{appsv1.SchemeGroupVersion, map[string]rest.Storage{
			"deployments":        deployments.Deployment,
			"deployments/status": deployments.Status,
			"deployments/scale":  deployments.Scale,
		}},
		{coordinationv1.SchemeGroupVersion, map[string]rest.Storage{"leases": leases}},
		{eventsv1.SchemeGroupVersion, map[string]rest.Storage{"events": core["events"]}},
	}
	strict := serializer.NewCodecFactory(scheme.Scheme, serializer.EnableStrict)
	for _, g := range groups {
		if !cfg.RuntimeConfig.Enabled(g.gv) {
			continue
		}
		agv := &endpoints.APIGroupVersion{
			GroupVersion:        g.gv,
			Storage:             g.storage,
			Scheme:              scheme.Scheme,
			Serializer:          scheme.Codecs,
			StrictSerializer:    strict,
			ParameterCodec:      scheme.ParameterCodec,
			Admission:           cfg.Admission,
			Logger:              cfg.Logger,
			MinRequestTimeout:   cfg.MinRequestTimeout,
			MaxRequestBodyBytes: cfg.MaxRequestBodyBytes,
		}
		if err := s.InstallAPIGroupVersion(agv, groupPriority[g.gv.Group], 0); err != nil {
			return nil, err
		}
	}

	s.AddPostStartHook("start-system-namespaces-controller", systemNamespacesHook(namespaces))
	s.AddPostStartHook("bootstrap-controller", kubernetesServiceHook(services, alloc, cfg.SecurePort))
	s.AddPostStartHook("peer-endpoint-reconciler-controller", kubernetesEndpointsHook(core["endpoints"].(*generic.Store), cfg.PublicAddress, cfg.SecurePort))
	return s, nil
}

func addStores(into map[string]rest.Storage, opts generic.RESTOptions, makers map[string]func(generic.RESTOptions) (*generic.Store, error)) error {
	for name, mk := range makers {
		st, err := mk(opts)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		into[name] = st
	}
	return nil
}
