package remote

import (
	"k8s.io/client-go/tools/cache"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
)

// APIServiceHandler is told of every APIService an informer sees.
type APIServiceHandler interface {
	// AddAPIService is told of an added or changed APIService.
	AddAPIService(*apiregistrationv1.APIService)
	// RemoveAPIService is told of a deleted one, by name.
	RemoveAPIService(name string)
}

// EventHandler adapts h to an APIService informer.
func EventHandler(h APIServiceHandler) cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			if a, ok := obj.(*apiregistrationv1.APIService); ok {
				h.AddAPIService(a)
			}
		},
		UpdateFunc: func(_, obj any) {
			if a, ok := obj.(*apiregistrationv1.APIService); ok {
				h.AddAPIService(a)
			}
		},
		DeleteFunc: func(obj any) {
			if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = tomb.Obj
			}
			if a, ok := obj.(*apiregistrationv1.APIService); ok {
				h.RemoveAPIService(a.Name)
			}
		},
	}
}
