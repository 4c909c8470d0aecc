package app

import (
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	resourcelisters "k8s.io/client-go/listers/resource/v1"

	"github.com/kapi-dev/kapi/pkg/admission"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/namespace/lifecycle"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/podsecurity"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/resourcequota"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/resourcequota/evaluator"
	"github.com/kapi-dev/kapi/pkg/authentication/user"
	"github.com/kapi-dev/kapi/pkg/authorization/authorizer"
	"github.com/kapi-dev/kapi/pkg/client"
	"github.com/kapi-dev/kapi/pkg/controlplane"
	"github.com/kapi-dev/kapi/pkg/features"
)

// AdmissionConfig is the admission chain's configuration: kube-apiserver's
// --enable-admission-plugins, --disable-admission-plugins and
// --admission-control-config-file.
type AdmissionConfig struct {
	// Enable are plugins to run besides the default ones; Disable are
	// default ones not to run. The order of either does not matter: the
	// chain runs in AdmissionPlugins' order.
	Enable  []string
	Disable []string
	// ConfigFile is an AdmissionConfiguration with the plugins' own
	// configurations.
	ConfigFile string
}

// admissionDeps are what the admission plugins are built from: the
// server's dependencies, built before the chain, and each plugin's
// configuration from --admission-control-config-file.
type admissionDeps struct {
	clients    *client.Set
	informers  *client.Informers
	authorizer authorizer.Authorizer
	features   features.Gates
	configs    admission.PluginConfigs
	metrics    interface{ MustRegister(...prometheus.Collector) }
	// runtimeConfig says which group versions are served.
	runtimeConfig controlplane.RuntimeConfig
}

// admissionPlugin is one of kube-apiserver's admission plugins.
type admissionPlugin struct {
	name      string
	defaultOn bool
	// build makes the plugin from the server's dependencies and its
	// configuration (nil when --admission-control-config-file has none).
	// Nil means kapi does not have the plugin yet.
	build func(d *admissionDeps, config []byte) (admission.Plugin, error)
}

// AdmissionPlugins are kube-apiserver 1.37's admission plugins in the
// order the chain runs them, each with whether it is on by default. The
// order is kube-apiserver's: the webhooks, the policies and ResourceQuota
// come last, so that they see what every built-in plugin changed.
var AdmissionPlugins = []admissionPlugin{
	{name: "AlwaysAdmit"},
	{name: "NamespaceAutoProvision"},
	{name: lifecycle.PluginName, defaultOn: true, build: buildNamespaceLifecycle},
	{name: "NamespaceExists"},
	{name: "LimitPodHardAntiAffinityTopology"},
	{name: "LimitRanger", defaultOn: true},
	{name: "ServiceAccount", defaultOn: true},
	{name: "NodeRestriction"},
	{name: "TaintNodesByCondition", defaultOn: true},
	{name: "AlwaysPullImages"},
	{name: "ImagePolicyWebhook"},
	{name: podsecurity.PluginName, defaultOn: true, build: buildPodSecurity},
	{name: "PodNodeSelector"},
	{name: "Priority", defaultOn: true},
	{name: "DefaultTolerationSeconds", defaultOn: true},
	{name: "PodTolerationRestriction"},
	{name: "EventRateLimit"},
	{name: "ExtendedResourceToleration"},
	{name: "DefaultStorageClass", defaultOn: true},
	{name: "StorageObjectInUseProtection", defaultOn: true},
	{name: "PodGroupProtection", defaultOn: true},
	{name: "OwnerReferencesPermissionEnforcement"},
	{name: "PersistentVolumeClaimResize", defaultOn: true},
	{name: "RuntimeClass", defaultOn: true},
	{name: "CertificateApproval", defaultOn: true},
	{name: "CertificateSigning", defaultOn: true},
	{name: "ClusterTrustBundleAttest", defaultOn: true},
	{name: "CertificateSubjectRestriction", defaultOn: true},
	{name: "DefaultIngressClass", defaultOn: true},
	{name: "DenyServiceExternalIPs"},
	{name: "PodTopologyLabels", defaultOn: true},
	{name: "NodeDeclaredFeatureValidator", defaultOn: true},
	{name: "PodResizeValidator", defaultOn: true},
	{name: "MutatingAdmissionPolicy", defaultOn: true},
	{name: "MutatingAdmissionWebhook", defaultOn: true},
	{name: "ValidatingAdmissionPolicy", defaultOn: true},
	{name: "ValidatingAdmissionWebhook", defaultOn: true},
	{name: resourcequota.PluginName, defaultOn: true, build: buildResourceQuota},
	{name: "AlwaysDeny"},
}

// DefaultAdmissionPlugins are the names of the plugins on by default, in
// the chain's order, as kube-apiserver's --help lists them.
func DefaultAdmissionPlugins() []string {
	var names []string
	for _, p := range AdmissionPlugins {
		if p.defaultOn {
			names = append(names, p.name)
		}
	}
	return names
}

// AllAdmissionPlugins are the names of every plugin, sorted, as
// kube-apiserver's --help lists them.
func AllAdmissionPlugins() []string {
	names := make([]string, len(AdmissionPlugins))
	for i, p := range AdmissionPlugins {
		names[i] = p.name
	}
	slices.Sort(names)
	return names
}

// Validate reports, as kube-apiserver does, plugins that do not exist
// and plugins both enabled and disabled.
func (c AdmissionConfig) Validate() []error {
	known := map[string]bool{}
	for _, p := range AdmissionPlugins {
		known[p.name] = true
	}
	var errs []error
	for _, name := range c.Enable {
		if !known[name] {
			errs = append(errs, fmt.Errorf("enable-admission-plugins plugin %q is unknown", name))
		}
	}
	for _, name := range c.Disable {
		if !known[name] {
			errs = append(errs, fmt.Errorf("disable-admission-plugins plugin %q is unknown", name))
		}
	}
	var both []string
	for _, name := range c.Enable {
		if slices.Contains(c.Disable, name) && !slices.Contains(both, name) {
			both = append(both, name)
		}
	}
	if len(both) > 0 {
		slices.Sort(both)
		errs = append(errs, fmt.Errorf("[%s] in enable-admission-plugins and disable-admission-plugins overlapped", strings.Join(both, " ")))
	}
	return errs
}

// enabled are the plugins the chain runs, in its order.
func (c AdmissionConfig) enabled() []admissionPlugin {
	var on []admissionPlugin
	for _, p := range AdmissionPlugins {
		explicit := slices.Contains(c.Enable, p.name)
		if explicit || p.defaultOn && !slices.Contains(c.Disable, p.name) {
			on = append(on, p)
		}
	}
	return on
}

// buildAdmission is the admission chain every server of the delegation
// chain runs. A plugin kapi does not have yet is refused when it is
// asked for by name, and left out with a warning when it is only on by
// default.
func buildAdmission(c AdmissionConfig, d *admissionDeps, metrics *admission.Metrics, log *slog.Logger) (*admission.Chain, error) {
	configs, err := admission.ReadConfigFile(c.ConfigFile)
	if err != nil {
		return nil, err
	}
	d.configs = configs
	var plugins []admission.NamedPlugin
	var missing []string
	for _, p := range c.enabled() {
		if p.build == nil {
			if slices.Contains(c.Enable, p.name) {
				return nil, fmt.Errorf("admission plugin %q is not available in kapi yet", p.name)
			}
			missing = append(missing, p.name)
			continue
		}
		plugin, err := p.build(d, configs.For(p.name))
		if err != nil {
			return nil, fmt.Errorf("admission plugin %q: %w", p.name, err)
		}
		plugins = append(plugins, admission.NamedPlugin{Name: p.name, Plugin: plugin})
	}
	if len(missing) > 0 {
		log.Warn("default admission plugins kapi does not have yet are not run", "plugins", missing)
	}
	return admission.NewChain(metrics, plugins...), nil
}

// buildNamespaceLifecycle reads namespaces from the informers and, when
// the cache cannot tell, through the loopback client.
func buildNamespaceLifecycle(d *admissionDeps, _ []byte) (admission.Plugin, error) {
	namespaces := client.InformerFor[*corev1.Namespace, *corev1.NamespaceList](d.informers, "namespaces")
	return lifecycle.New(lifecycle.Config{
		Lister:    corelisters.NewNamespaceLister(namespaces.GetIndexer()),
		HasSynced: namespaces.HasSynced,
		Live:      client.For[*corev1.Namespace, *corev1.NamespaceList](d.clients, "namespaces", ""),
		Immortal:  []string{metav1.NamespaceDefault, metav1.NamespaceSystem, metav1.NamespacePublic},
	}), nil
}

// buildPodSecurity reads namespaces and pods from the informers, a
// namespace the cache does not have through the loopback client.
func buildPodSecurity(d *admissionDeps, config []byte) (admission.Plugin, error) {
	cfg, err := podsecurity.LoadConfiguration(config)
	if err != nil {
		return nil, err
	}
	namespaces := client.InformerFor[*corev1.Namespace, *corev1.NamespaceList](d.informers, "namespaces")
	pods := client.InformerFor[*corev1.Pod, *corev1.PodList](d.informers, "pods")
	live := client.For[*corev1.Namespace, *corev1.NamespaceList](d.clients, "namespaces", "")
	metrics := podsecurity.NewMetrics()
	if d.metrics != nil {
		d.metrics.MustRegister(metrics)
	}
	return podsecurity.New(podsecurity.Config{
		Configuration: cfg,
		Namespaces:    podsecurity.NamespacesFrom(corelisters.NewNamespaceLister(namespaces.GetIndexer()), live),
		Live:          podsecurity.LiveFrom(live),
		Pods:          podsecurity.PodsFrom(corelisters.NewPodLister(pods.GetIndexer())),
		Metrics:       metrics,
	})
}

// buildResourceQuota reads quotas (and device classes, when
// resource.k8s.io/v1 is served) from the informers and writes their
// status through the loopback client.
func buildResourceQuota(d *admissionDeps, config []byte) (admission.Plugin, error) {
	cfg, err := resourcequota.LoadConfiguration(config)
	if err != nil {
		return nil, err
	}
	rc, err := controlplane.ParseRuntimeConfig(d.runtimeConfig)
	if err != nil {
		return nil, err
	}
	evaluators := evaluator.Options{PodLevelResources: d.features.Enabled("PodLevelResources")}
	if rc.Enabled(resourcev1.SchemeGroupVersion) {
		classes := client.InformerFor[*resourcev1.DeviceClass, *resourcev1.DeviceClassList](d.informers, "deviceclasses")
		evaluators.DeviceClasses = resourcelisters.NewDeviceClassLister(classes.GetIndexer())
		evaluators.ClaimOwners = evaluator.ClaimOwnersFrom{
			Pods: func(ns string) evaluator.PodGetter {
				return client.For[*corev1.Pod, *corev1.PodList](d.clients, "pods", ns)
			},
			Claims: func(ns string) evaluator.ClaimLister {
				return client.For[*resourcev1.ResourceClaim, *resourcev1.ResourceClaimList](d.clients, "resourceclaims", ns)
			},
		}
	}
	quotas := client.InformerFor[*corev1.ResourceQuota, *corev1.ResourceQuotaList](d.informers, "resourcequotas")
	lister := corelisters.NewResourceQuotaLister(quotas.GetIndexer())
	return resourcequota.New(resourcequota.Config{
		Configuration: cfg,
		Lister:        func(ns string) resourcequota.QuotaLister { return lister.ResourceQuotas(ns) },
		HasSynced:     quotas.HasSynced,
		Client: func(ns string) resourcequota.QuotaClient {
			return client.For[*corev1.ResourceQuota, *corev1.ResourceQuotaList](d.clients, "resourcequotas", ns)
		},
		Evaluators: evaluator.NewRegistry(evaluators),
		Self:       user.APIServerUser,
	}), nil
}
