package apiregistration

import (
	"k8s.io/apimachinery/pkg/runtime"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
)

// defaultServicePort is the port of a Service an APIService names
// without one: HTTPS's, as in kube-aggregator.
const defaultServicePort int32 = 443

// AddDefaults registers the defaulting functions of APIService and of
// its list in scheme.
func AddDefaults(scheme *runtime.Scheme) error {
	scheme.AddTypeDefaultingFunc(&apiregistrationv1.APIService{}, func(obj any) { SetDefaultsAPIService(obj.(*apiregistrationv1.APIService)) })
	scheme.AddTypeDefaultingFunc(&apiregistrationv1.APIServiceList{}, func(obj any) {
		list := obj.(*apiregistrationv1.APIServiceList)
		for i := range list.Items {
			SetDefaultsAPIService(&list.Items[i])
		}
	})
	return nil
}

// SetDefaultsAPIService gives the Service of a remote APIService port
// 443 when it names none.
func SetDefaultsAPIService(s *apiregistrationv1.APIService) {
	if svc := s.Spec.Service; svc != nil && svc.Port == nil {
		port := defaultServicePort
		svc.Port = &port
	}
}
