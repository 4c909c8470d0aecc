package apiregistration

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
)

// AddToScheme registers APIService and APIServiceList in version v1 of
// apiregistration.k8s.io, and their defaults.
//
// The type package's own AddToScheme would also register its generated
// defaulting functions and its conversions to kube-aggregator's internal
// types, which kapi has no use for: kapi's scheme has no internal
// versions, and the defaults are kapi's (AddDefaults).
func AddToScheme(scheme *runtime.Scheme) error {
	scheme.AddKnownTypes(apiregistrationv1.SchemeGroupVersion, &apiregistrationv1.APIService{}, &apiregistrationv1.APIServiceList{})
	metav1.AddToGroupVersion(scheme, apiregistrationv1.SchemeGroupVersion)
	return AddDefaults(scheme)
}
