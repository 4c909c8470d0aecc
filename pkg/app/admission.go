package app

import (
	"context"
	"fmt"
	"k8s.io/client-go/dynamic"
	"log/slog"
	"slices"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	nodev1 "k8s.io/api/node/v1"
	resourcev1 "k8s.io/api/resource/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilversion "k8s.io/apimachinery/pkg/util/version"
	corelisters "k8s.io/client-go/listers/core/v1"
	networkinglisters "k8s.io/client-go/listers/networking/v1"
	nodelisters "k8s.io/client-go/listers/node/v1"
	resourcelisters "k8s.io/client-go/listers/resource/v1"
	schedulinglisters "k8s.io/client-go/listers/scheduling/v1"
	storagelisters "k8s.io/client-go/listers/storage/v1"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/pkg/admission"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/admit"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/certificates/approval"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/certificates/ctbattest"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/certificates/signing"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/certificates/subjectrestriction"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/deny"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/eventratelimit"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/gc"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/imagepolicy"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/namespace/autoprovision"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/namespace/exists"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/namespace/lifecycle"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/network/defaultingressclass"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/network/denyserviceexternalips"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/node/runtimeclass"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/node/taintnodesbycondition"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/noderestriction"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/pod/alwayspullimages"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/pod/antiaffinity"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/pod/defaulttolerationseconds"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/pod/extendedresourcetoleration"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/pod/nodedeclaredfeatures"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/pod/podnodeselector"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/pod/podresize"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/pod/podtolerationrestriction"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/pod/podtopologylabels"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/pod/serviceaccount"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/podsecurity"
	mutatingpolicy "github.com/kapi-dev/kapi/pkg/admission/plugin/policy/mutating"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/resource/limitranger"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/resourcequota"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/resourcequota/evaluator"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/scheduling/podgroupprotection"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/scheduling/priority"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/storage/inuseprotection"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/storage/resize"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/storage/setdefault"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/webhook"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/webhook/mutating"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/webhook/validating"
	"github.com/kapi-dev/kapi/pkg/authentication/user"
	"github.com/kapi-dev/kapi/pkg/authorization/authorizer"
	"github.com/kapi-dev/kapi/pkg/client"
	"github.com/kapi-dev/kapi/pkg/controlplane"
	"github.com/kapi-dev/kapi/pkg/features"
	"github.com/kapi-dev/kapi/pkg/metrics"
	"github.com/kapi-dev/kapi/pkg/version"
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
	// DefaultNotReadyTolerationSeconds and
	// DefaultUnreachableTolerationSeconds are the tolerations
	// DefaultTolerationSeconds gives pods (kube-apiserver's
	// --default-not-ready-toleration-seconds and
	// --default-unreachable-toleration-seconds); nil means 300.
	DefaultNotReadyTolerationSeconds    *int64
	DefaultUnreachableTolerationSeconds *int64
	// EnableAggregatorRouting calls the webhooks named by a service at
	// one of its endpoints rather than at its cluster IP
	// (kube-apiserver's --enable-aggregator-routing).
	EnableAggregatorRouting bool
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
	// tolerationSeconds are DefaultTolerationSeconds' flags.
	tolerationSeconds defaulttolerationseconds.Config
	// aggregatorRouting resolves the webhooks' services to endpoints;
	// loopbackHost is where the kubernetes service of the default
	// namespace resolves to: this server.
	aggregatorRouting bool
	loopbackHost      string
	// runtimeConfig says which group versions are served.
	runtimeConfig controlplane.RuntimeConfig
	log           *slog.Logger
	// The webhook plugins' shared metrics, the counters of their servers'
	// deprecated certificates, and the resources of matchPolicy
	// Equivalent.
	webhookMetrics      *webhook.Metrics
	webhookX509         *metrics.WebhookX509
	equivalentResources admission.EquivalentResources
	// dynamic reads the params of admission policies, of any kind.
	dynamic dynamic.Interface
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
	{name: antiaffinity.PluginName, build: buildLimitPodHardAntiAffinityTopology},
	{name: limitranger.PluginName, defaultOn: true, build: buildLimitRanger},
	{name: serviceaccount.PluginName, defaultOn: true, build: buildServiceAccount},
	{name: noderestriction.PluginName, build: buildNodeRestriction},
	{name: taintnodesbycondition.PluginName, defaultOn: true, build: buildTaintNodesByCondition},
	{name: alwayspullimages.PluginName, build: buildAlwaysPullImages},
	{name: imagepolicy.PluginName, build: buildImagePolicyWebhook},
	{name: podsecurity.PluginName, defaultOn: true, build: buildPodSecurity},
	{name: podnodeselector.PluginName, build: buildPodNodeSelector},
	{name: priority.PluginName, defaultOn: true, build: buildPriority},
	{name: defaulttolerationseconds.PluginName, defaultOn: true, build: buildDefaultTolerationSeconds},
	{name: podtolerationrestriction.PluginName, build: buildPodTolerationRestriction},
	{name: eventratelimit.PluginName, build: buildEventRateLimit},
	{name: extendedresourcetoleration.PluginName, build: buildExtendedResourceToleration},
	{name: setdefault.PluginName, defaultOn: true, build: buildDefaultStorageClass},
	{name: inuseprotection.PluginName, defaultOn: true, build: buildStorageObjectInUseProtection},
	{name: podgroupprotection.PluginName, defaultOn: true, build: buildPodGroupProtection},
	{name: gc.PluginName, build: buildOwnerReferencesPermissionEnforcement},
	{name: resize.PluginName, defaultOn: true, build: buildPersistentVolumeClaimResize},
	{name: runtimeclass.PluginName, defaultOn: true, build: buildRuntimeClass},
	{name: approval.PluginName, defaultOn: true, build: buildCertificateApproval},
	{name: signing.PluginName, defaultOn: true, build: buildCertificateSigning},
	{name: ctbattest.PluginName, defaultOn: true, build: buildClusterTrustBundleAttest},
	{name: subjectrestriction.PluginName, defaultOn: true, build: buildCertificateSubjectRestriction},
	{name: defaultingressclass.PluginName, defaultOn: true, build: buildDefaultIngressClass},
	{name: denyserviceexternalips.PluginName, build: buildDenyServiceExternalIPs},
	{name: podtopologylabels.PluginName, defaultOn: true, build: buildPodTopologyLabels},
	{name: nodedeclaredfeatures.PluginName, defaultOn: true, build: buildNodeDeclaredFeatureValidator},
	{name: podresize.PluginName, defaultOn: true, build: buildPodResizeValidator},
	{name: mutatingpolicy.PluginName, defaultOn: true, build: buildMutatingAdmissionPolicy},
	{name: mutating.PluginName, defaultOn: true, build: buildMutatingWebhook},
	{name: "ValidatingAdmissionPolicy", defaultOn: true, build: buildValidatingAdmissionPolicy},
	{name: validating.PluginName, defaultOn: true, build: buildValidatingWebhook},
	{name: resourcequota.PluginName, defaultOn: true, build: buildResourceQuota},
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
	d.tolerationSeconds = defaulttolerationseconds.Config{
		NotReadySeconds:    ptr.Deref(c.DefaultNotReadyTolerationSeconds, defaulttolerationseconds.DefaultSeconds),
		UnreachableSeconds: ptr.Deref(c.DefaultUnreachableTolerationSeconds, defaulttolerationseconds.DefaultSeconds),
	}
	d.aggregatorRouting = c.EnableAggregatorRouting
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
	cache, live, synced := d.namespaces()
	return exists.New(exists.Config{Namespaces: cache, Live: live, HasSynced: synced}), nil
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

// buildServiceAccount reads service accounts from the informers and, when
// the cache does not have one, through the loopback client.
func buildServiceAccount(d *admissionDeps, _ []byte) (admission.Plugin, error) {
	accounts := client.InformerFor[*corev1.ServiceAccount, *corev1.ServiceAccountList](d.informers, "serviceaccounts")
	return serviceaccount.New(serviceaccount.Config{
		Lister:    corelisters.NewServiceAccountLister(accounts.GetIndexer()),
		HasSynced: accounts.HasSynced,
		Live: serviceaccount.GetterFunc(func(ctx context.Context, namespace, name string) (*corev1.ServiceAccount, error) {
			return client.For[*corev1.ServiceAccount, *corev1.ServiceAccountList](d.clients, "serviceaccounts", namespace).Get(ctx, name, metav1.GetOptions{})
		}),
	}), nil
}

func buildTaintNodesByCondition(*admissionDeps, []byte) (admission.Plugin, error) {
	return taintnodesbycondition.New(), nil
}

func buildPriority(d *admissionDeps, _ []byte) (admission.Plugin, error) {
	classes := client.InformerFor[*schedulingv1.PriorityClass, *schedulingv1.PriorityClassList](d.informers, "priorityclasses")
	return priority.New(priority.Config{Lister: schedulinglisters.NewPriorityClassLister(classes.GetIndexer())}), nil
}

func buildDefaultTolerationSeconds(d *admissionDeps, _ []byte) (admission.Plugin, error) {
	return defaulttolerationseconds.New(d.tolerationSeconds), nil
}

func buildRuntimeClass(d *admissionDeps, _ []byte) (admission.Plugin, error) {
	classes := client.InformerFor[*nodev1.RuntimeClass, *nodev1.RuntimeClassList](d.informers, "runtimeclasses")
	live := client.For[*nodev1.RuntimeClass, *nodev1.RuntimeClassList](d.clients, "runtimeclasses", "")
	return runtimeclass.New(runtimeclass.Config{
		Lister: nodelisters.NewRuntimeClassLister(classes.GetIndexer()),
		Live: runtimeclass.GetterFunc(func(ctx context.Context, name string) (*nodev1.RuntimeClass, error) {
			return live.Get(ctx, name, metav1.GetOptions{})
		}),
	}), nil
}

// buildLimitRanger reads LimitRanges from the informers and, when the
// cache has none for a namespace, through the loopback client.
func buildLimitRanger(d *admissionDeps, _ []byte) (admission.Plugin, error) {
	ranges := client.InformerFor[*corev1.LimitRange, *corev1.LimitRangeList](d.informers, "limitranges")
	return limitranger.New(limitranger.Config{
		Lister: corelisters.NewLimitRangeLister(ranges.GetIndexer()),
		Live: limitranger.ListerFunc(func(ctx context.Context, namespace string) ([]corev1.LimitRange, error) {
			list, err := client.For[*corev1.LimitRange, *corev1.LimitRangeList](d.clients, "limitranges", namespace).List(ctx, metav1.ListOptions{})
			if err != nil {
				return nil, err
			}
			return list.Items, nil
		}),
		PodLevelResources: d.features.Enabled("PodLevelResources"),
	}), nil
}

func buildPodTopologyLabels(d *admissionDeps, _ []byte) (admission.Plugin, error) {
	nodes := client.InformerFor[*corev1.Node, *corev1.NodeList](d.informers, "nodes")
	return podtopologylabels.New(podtopologylabels.Config{
		Enabled:   d.features.Enabled("PodTopologyLabelsAdmission"),
		Nodes:     corelisters.NewNodeLister(nodes.GetIndexer()),
		HasSynced: nodes.HasSynced,
	}), nil
}

func buildPodResizeValidator(d *admissionDeps, _ []byte) (admission.Plugin, error) {
	nodes := client.InformerFor[*corev1.Node, *corev1.NodeList](d.informers, "nodes")
	return podresize.New(podresize.Config{
		Enabled:   d.features.Enabled("InPlacePodVerticalScaling"),
		Nodes:     corelisters.NewNodeLister(nodes.GetIndexer()),
		HasSynced: nodes.HasSynced,
	}), nil
}

func buildNodeDeclaredFeatureValidator(d *admissionDeps, _ []byte) (admission.Plugin, error) {
	nodes := client.InformerFor[*corev1.Node, *corev1.NodeList](d.informers, "nodes")
	v, err := utilversion.ParseGeneric(version.Get().GitVersion)
	if err != nil {
		return nil, err
	}
	return nodedeclaredfeatures.New(nodedeclaredfeatures.Config{
		Enabled:   d.features.Enabled("NodeDeclaredFeatures"),
		Nodes:     corelisters.NewNodeLister(nodes.GetIndexer()),
		HasSynced: nodes.HasSynced,
		Version:   v,
	}), nil
}

func buildAlwaysPullImages(*admissionDeps, []byte) (admission.Plugin, error) {
	return alwayspullimages.New(), nil
}

// buildImagePolicyWebhook calls its backend through the kubeconfig its
// configuration names, counting deprecated certificates as every webhook.
func buildImagePolicyWebhook(d *admissionDeps, config []byte) (admission.Plugin, error) {
	cfg, err := imagepolicy.ParseConfig(config)
	if err != nil {
		return nil, err
	}
	return imagepolicy.New(cfg, d.webhookX509.WrapTransport, d.log)
}

func buildExtendedResourceToleration(*admissionDeps, []byte) (admission.Plugin, error) {
	return extendedresourcetoleration.New(), nil
}

func buildLimitPodHardAntiAffinityTopology(*admissionDeps, []byte) (admission.Plugin, error) {
	return antiaffinity.New(), nil
}

// namespaceGetter reads a namespace through the loopback client.
// namespaces are what plugins read the namespace of a write from: the
// shared informer's cache, synced once when synced says so, and the
// server, for a namespace the cache does not have yet.
func (d *admissionDeps) namespaces() (cache corelisters.NamespaceLister, live client.Interface[*corev1.Namespace, *corev1.NamespaceList], synced func() bool) {
	informer := client.InformerFor[*corev1.Namespace, *corev1.NamespaceList](d.informers, "namespaces")
	return corelisters.NewNamespaceLister(informer.GetIndexer()),
		client.For[*corev1.Namespace, *corev1.NamespaceList](d.clients, "namespaces", ""), informer.HasSynced
}

func buildPodNodeSelector(d *admissionDeps, config []byte) (admission.Plugin, error) {
	cfg, err := podnodeselector.ParseConfiguration(config)
	if err != nil {
		return nil, err
	}
	cache, live, synced := d.namespaces()
	return podnodeselector.New(podnodeselector.Config{Configuration: cfg, Namespaces: cache, Live: live, HasSynced: synced}), nil
}

func buildPodTolerationRestriction(d *admissionDeps, config []byte) (admission.Plugin, error) {
	cfg, err := podtolerationrestriction.ParseConfiguration(config)
	if err != nil {
		return nil, err
	}
	cache, live, synced := d.namespaces()
	return podtolerationrestriction.New(podtolerationrestriction.Config{Configuration: cfg, Namespaces: cache, Live: live, HasSynced: synced}), nil
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
