package app

import (
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	networkinglisters "k8s.io/client-go/listers/networking/v1"
	storagelisters "k8s.io/client-go/listers/storage/v1"
	"k8s.io/utils/clock"

	"github.com/kapi-dev/kapi/pkg/admission"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/admit"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/certificates/approval"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/certificates/ctbattest"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/certificates/signing"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/certificates/subjectrestriction"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/deny"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/eventratelimit"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/gc"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/namespace/autoprovision"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/namespace/exists"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/namespace/lifecycle"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/network/defaultingressclass"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/network/denyserviceexternalips"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/noderestriction"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/podsecurity"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/scheduling/podgroupprotection"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/storage/inuseprotection"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/storage/resize"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/storage/setdefault"
	"github.com/kapi-dev/kapi/pkg/authorization/authorizer"
	"github.com/kapi-dev/kapi/pkg/client"
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
	// restMapper maps kinds to resources through the server's discovery,
	// custom resources included.
	restMapper meta.RESTMapper
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
	{name: admit.PluginName, build: buildAlwaysAdmit},
	{name: autoprovision.PluginName, build: buildNamespaceAutoProvision},
	{name: lifecycle.PluginName, defaultOn: true, build: buildNamespaceLifecycle},
	{name: exists.PluginName, build: buildNamespaceExists},
	{name: "LimitPodHardAntiAffinityTopology"},
	{name: "LimitRanger", defaultOn: true},
	{name: "ServiceAccount", defaultOn: true},
	{name: noderestriction.PluginName, build: buildNodeRestriction},
	{name: "TaintNodesByCondition", defaultOn: true},
	{name: "AlwaysPullImages"},
	{name: "ImagePolicyWebhook"},
	{name: podsecurity.PluginName, defaultOn: true, build: buildPodSecurity},
	{name: "PodNodeSelector"},
	{name: "Priority", defaultOn: true},
	{name: "DefaultTolerationSeconds", defaultOn: true},
	{name: "PodTolerationRestriction"},
	{name: eventratelimit.PluginName, build: buildEventRateLimit},
	{name: "ExtendedResourceToleration"},
	{name: setdefault.PluginName, defaultOn: true, build: buildDefaultStorageClass},
	{name: inuseprotection.PluginName, defaultOn: true, build: buildStorageObjectInUseProtection},
	{name: podgroupprotection.PluginName, defaultOn: true, build: buildPodGroupProtection},
	{name: gc.PluginName, build: buildOwnerReferencesPermissionEnforcement},
	{name: resize.PluginName, defaultOn: true, build: buildPersistentVolumeClaimResize},
	{name: "RuntimeClass", defaultOn: true},
	{name: approval.PluginName, defaultOn: true, build: buildCertificateApproval},
	{name: signing.PluginName, defaultOn: true, build: buildCertificateSigning},
	{name: ctbattest.PluginName, defaultOn: true, build: buildClusterTrustBundleAttest},
	{name: subjectrestriction.PluginName, defaultOn: true, build: buildCertificateSubjectRestriction},
	{name: defaultingressclass.PluginName, defaultOn: true, build: buildDefaultIngressClass},
	{name: denyserviceexternalips.PluginName, build: buildDenyServiceExternalIPs},
	{name: "PodTopologyLabels", defaultOn: true},
	{name: "NodeDeclaredFeatureValidator", defaultOn: true},
	{name: "PodResizeValidator", defaultOn: true},
	{name: "MutatingAdmissionPolicy", defaultOn: true},
	{name: "MutatingAdmissionWebhook", defaultOn: true},
	{name: "ValidatingAdmissionPolicy", defaultOn: true},
	{name: "ValidatingAdmissionWebhook", defaultOn: true},
	{name: "ResourceQuota", defaultOn: true},
	{name: deny.PluginName, build: buildAlwaysDeny},
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

// storageClasses lists StorageClasses from the shared informer.
func (d *admissionDeps) storageClasses() storagelisters.StorageClassLister {
	inf := client.InformerFor[*storagev1.StorageClass, *storagev1.StorageClassList](d.informers, "storageclasses")
	return storagelisters.NewStorageClassLister(inf.GetIndexer())
}

func buildDefaultStorageClass(d *admissionDeps, _ []byte) (admission.Plugin, error) {
	return setdefault.New(d.storageClasses()), nil
}

func buildStorageObjectInUseProtection(d *admissionDeps, _ []byte) (admission.Plugin, error) {
	return inuseprotection.New(d.features.Enabled("VolumeAttributesClass")), nil
}

func buildPodGroupProtection(d *admissionDeps, _ []byte) (admission.Plugin, error) {
	return podgroupprotection.New(d.features.Enabled("GenericWorkload")), nil
}

func buildPersistentVolumeClaimResize(d *admissionDeps, _ []byte) (admission.Plugin, error) {
	return resize.New(d.storageClasses()), nil
}

func buildCertificateApproval(d *admissionDeps, _ []byte) (admission.Plugin, error) {
	return approval.New(d.authorizer), nil
}

func buildCertificateSigning(d *admissionDeps, _ []byte) (admission.Plugin, error) {
	return signing.New(d.authorizer), nil
}

func buildClusterTrustBundleAttest(d *admissionDeps, _ []byte) (admission.Plugin, error) {
	return ctbattest.New(d.authorizer, d.features.Enabled("ClusterTrustBundle")), nil
}

func buildCertificateSubjectRestriction(_ *admissionDeps, _ []byte) (admission.Plugin, error) {
	return subjectrestriction.New(), nil
}

func buildDefaultIngressClass(d *admissionDeps, _ []byte) (admission.Plugin, error) {
	inf := client.InformerFor[*networkingv1.IngressClass, *networkingv1.IngressClassList](d.informers, "ingressclasses")
	return defaultingressclass.New(networkinglisters.NewIngressClassLister(inf.GetIndexer())), nil
}

func buildAlwaysAdmit(_ *admissionDeps, _ []byte) (admission.Plugin, error) { return admit.New(), nil }

func buildAlwaysDeny(_ *admissionDeps, _ []byte) (admission.Plugin, error) { return deny.New(), nil }

func buildDenyServiceExternalIPs(_ *admissionDeps, _ []byte) (admission.Plugin, error) {
	return denyserviceexternalips.New(), nil
}

func buildNamespaceExists(d *admissionDeps, _ []byte) (admission.Plugin, error) {
	namespaces := client.InformerFor[*corev1.Namespace, *corev1.NamespaceList](d.informers, "namespaces")
	return exists.New(exists.Config{
		Lister:    corelisters.NewNamespaceLister(namespaces.GetIndexer()),
		HasSynced: namespaces.HasSynced,
		Live:      client.For[*corev1.Namespace, *corev1.NamespaceList](d.clients, "namespaces", ""),
	}), nil
}

func buildNamespaceAutoProvision(d *admissionDeps, _ []byte) (admission.Plugin, error) {
	namespaces := client.InformerFor[*corev1.Namespace, *corev1.NamespaceList](d.informers, "namespaces")
	return autoprovision.New(autoprovision.Config{
		Lister:    corelisters.NewNamespaceLister(namespaces.GetIndexer()),
		HasSynced: namespaces.HasSynced,
		Client:    client.For[*corev1.Namespace, *corev1.NamespaceList](d.clients, "namespaces", ""),
	}), nil
}

// buildNodeRestriction reads pods, nodes and what tokens and pod
// certificates are checked against from the shared informers.
func buildNodeRestriction(d *admissionDeps, _ []byte) (admission.Plugin, error) {
	pods := client.InformerFor[*corev1.Pod, *corev1.PodList](d.informers, "pods")
	nodes := client.InformerFor[*corev1.Node, *corev1.NodeList](d.informers, "nodes")
	sas := client.InformerFor[*corev1.ServiceAccount, *corev1.ServiceAccountList](d.informers, "serviceaccounts")
	pvcs := client.InformerFor[*corev1.PersistentVolumeClaim, *corev1.PersistentVolumeClaimList](d.informers, "persistentvolumeclaims")
	pvs := client.InformerFor[*corev1.PersistentVolume, *corev1.PersistentVolumeList](d.informers, "persistentvolumes")
	drivers := client.InformerFor[*storagev1.CSIDriver, *storagev1.CSIDriverList](d.informers, "csidrivers")
	return noderestriction.New(noderestriction.Config{
		Pods:            corelisters.NewPodLister(pods.GetIndexer()),
		Nodes:           corelisters.NewNodeLister(nodes.GetIndexer()),
		ServiceAccounts: corelisters.NewServiceAccountLister(sas.GetIndexer()),
		PVCs:            corelisters.NewPersistentVolumeClaimLister(pvcs.GetIndexer()),
		PVs:             corelisters.NewPersistentVolumeLister(pvs.GetIndexer()),
		CSIDrivers:      storagelisters.NewCSIDriverLister(drivers.GetIndexer()),
		Authorizer:      d.authorizer,
		Features: noderestriction.Features{
			RecoverVolumeExpansionFailure:                  d.features.Enabled("RecoverVolumeExpansionFailure"),
			AllowInsecureKubeletCertificateSigningRequests: d.features.Enabled("AllowInsecureKubeletCertificateSigningRequests"),
			ServiceAccountNodeAudienceRestriction:          d.features.Enabled("ServiceAccountNodeAudienceRestriction"),
			PodCertificateRequest:                          d.features.Enabled("PodCertificateRequest"),
			CSIVolumeHealth:                                d.features.Enabled("CSIVolumeHealth"),
		},
	}), nil
}

func buildOwnerReferencesPermissionEnforcement(d *admissionDeps, _ []byte) (admission.Plugin, error) {
	return gc.New(d.authorizer, d.restMapper), nil
}

// buildEventRateLimit reads the plugin's configuration, which it needs.
func buildEventRateLimit(_ *admissionDeps, config []byte) (admission.Plugin, error) {
	cfg, err := eventratelimit.LoadConfig(config)
	if err != nil {
		return nil, err
	}
	return eventratelimit.New(cfg, clock.RealClock{})
}
