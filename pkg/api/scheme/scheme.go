// Package scheme holds the one runtime.Scheme of kapi: every served type,
// its defaulting and conversion functions, and the codecs built from it.
// It is the only process-wide mutable state, filled once at init.
package scheme

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	certificatesv1beta1 "k8s.io/api/certificates/v1beta1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	eventsv1 "k8s.io/api/events/v1"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	networkingv1 "k8s.io/api/networking/v1"
	nodev1 "k8s.io/api/node/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	resourcev1 "k8s.io/api/resource/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	storagemigrationv1 "k8s.io/api/storagemigration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"

	"github.com/kapi-dev/kapi/pkg/apis/admissionregistration"
	"github.com/kapi-dev/kapi/pkg/apis/apiregistration"
	"github.com/kapi-dev/kapi/pkg/apis/apps"
	"github.com/kapi-dev/kapi/pkg/apis/autoscaling"
	"github.com/kapi-dev/kapi/pkg/apis/batch"
	"github.com/kapi-dev/kapi/pkg/apis/certificates"
	"github.com/kapi-dev/kapi/pkg/apis/core"
	"github.com/kapi-dev/kapi/pkg/apis/discovery"
	"github.com/kapi-dev/kapi/pkg/apis/events"
	"github.com/kapi-dev/kapi/pkg/apis/flowcontrol"
	"github.com/kapi-dev/kapi/pkg/apis/networking"
	"github.com/kapi-dev/kapi/pkg/apis/rbac"
	"github.com/kapi-dev/kapi/pkg/apis/resource"
	"github.com/kapi-dev/kapi/pkg/apis/scheduling"
	"github.com/kapi-dev/kapi/pkg/apis/storage"
	"github.com/kapi-dev/kapi/pkg/apis/storagemigration"
)

var (
	// Scheme knows every type kapi serves.
	Scheme = runtime.NewScheme()
	// Codecs encodes and decodes the types of Scheme in JSON, YAML and
	// protobuf.
	Codecs = serializer.NewCodecFactory(Scheme)
	// ParameterCodec decodes query parameters into option types such as
	// metav1.ListOptions.
	ParameterCodec = runtime.NewParameterCodec(Scheme)
)

// adders register the groups kapi serves. Defaulting and conversion
// functions are registered by the packages that own them (pkg/apis/...),
// through AddToScheme functions called from here.
var adders = []func(*runtime.Scheme) error{
	corev1.AddToScheme,
	appsv1.AddToScheme,
	autoscalingv1.AddToScheme,
	coordinationv1.AddToScheme,
	eventsv1.AddToScheme,
	authenticationv1.AddToScheme,
	authorizationv1.AddToScheme,
	networkingv1.AddToScheme,
	rbacv1.AddToScheme,
	apiextensionsv1.AddToScheme,
	discoveryv1.AddToScheme,
	nodev1.AddToScheme,
	schedulingv1.AddToScheme,
	storagev1.AddToScheme,
	certificatesv1.AddToScheme,
	certificatesv1beta1.AddToScheme, // the storage version of clustertrustbundles and podcertificaterequests
	batchv1.AddToScheme,
	autoscalingv2.AddToScheme,
	policyv1.AddToScheme,
	flowcontrolv1.AddToScheme,
	storagemigrationv1.AddToScheme,
	resourcev1.AddToScheme,
	admissionregistrationv1.AddToScheme,
	core.AddDefaults,
	apps.AddDefaults,
	events.AddConversions,
	rbac.AddDefaults,
	discovery.AddDefaults,
	scheduling.AddDefaults,
	storage.AddDefaults,
	certificates.AddDefaults,
	batch.AddDefaults,
	autoscaling.AddDefaults,
	autoscaling.AddConversions,
	networking.AddDefaults,
	flowcontrol.AddDefaults,
	storagemigration.AddConversions,
	resource.AddDefaults,
	resource.AddConversions,
	admissionregistration.AddDefaults,
	apiregistration.AddToScheme, // the aggregator's APIServices, with their defaults
}

func init() {
	// meta.k8s.io/v1: Status, Table, PartialObjectMetadata, WatchEvent and
	// the option types used as query parameters, unversioned in every
	// group.
	metav1.AddToGroupVersion(Scheme, schema.GroupVersion{Version: "v1"})
	metav1.AddToGroupVersion(Scheme, metav1.SchemeGroupVersion)
	utilruntime.Must(metav1.AddMetaToScheme(Scheme))
	for _, add := range adders {
		utilruntime.Must(add(Scheme))
	}
}

// Register adds more functions to Scheme (defaulting, conversion). It is
// meant to be called from init functions only.
func Register(fns ...func(*runtime.Scheme) error) {
	for _, fn := range fns {
		utilruntime.Must(fn(Scheme))
	}
}
