package certificates

import (
	certificatesv1 "k8s.io/api/certificates/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// AddDefaults registers the defaulting functions of the
// certificates.k8s.io/v1 kinds that have defaults, and of their lists:
// only PodCertificateRequest has any; and the conversions to the
// v1beta1 storage form (see AddConversions).
func AddDefaults(scheme *runtime.Scheme) error {
	scheme.AddTypeDefaultingFunc(&certificatesv1.PodCertificateRequest{}, func(obj any) {
		SetDefaultsPodCertificateRequest(obj.(*certificatesv1.PodCertificateRequest))
	})
	scheme.AddTypeDefaultingFunc(&certificatesv1.PodCertificateRequestList{}, func(obj any) {
		list := obj.(*certificatesv1.PodCertificateRequestList)
		for i := range list.Items {
			SetDefaultsPodCertificateRequest(&list.Items[i])
		}
	})
	return AddConversions(scheme)
}
