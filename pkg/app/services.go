package app

import (
	"net/url"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/labels"
	corelisters "k8s.io/client-go/listers/core/v1"
	discoverylisters "k8s.io/client-go/listers/discovery/v1"

	"github.com/kapi-dev/kapi/pkg/client"
	"github.com/kapi-dev/kapi/pkg/serviceresolver"
)

// serviceGetter reads Services from the shared informers.
func serviceGetter(informers *client.Informers) serviceresolver.ServiceGetter {
	services := corelisters.NewServiceLister(client.InformerFor[*corev1.Service, *corev1.ServiceList](informers, "services").GetIndexer())
	return func(namespace, name string) (*corev1.Service, error) {
		return services.Services(namespace).Get(name)
	}
}

// endpointSliceGetter reads a Service's EndpointSlices from the shared
// informers.
func endpointSliceGetter(informers *client.Informers) serviceresolver.EndpointSliceGetter {
	slices := discoverylisters.NewEndpointSliceLister(client.InformerFor[*discoveryv1.EndpointSlice, *discoveryv1.EndpointSliceList](informers, "endpointslices").GetIndexer())
	return func(namespace, service string) ([]*discoveryv1.EndpointSlice, error) {
		return slices.EndpointSlices(namespace).List(labels.SelectorFromSet(labels.Set{discoveryv1.LabelServiceName: service}))
	}
}

// serviceResolver is how the admission webhooks and the aggregator reach
// a Service, as kube-apiserver's: its cluster IP, or with
// --enable-aggregator-routing one of its endpoints; the kubernetes
// Service of the default namespace is this server (loopbackHost, the
// loopback client's URL; ignored if empty or not a URL).
func serviceResolver(informers *client.Informers, aggregatorRouting bool, loopbackHost string) serviceresolver.Resolver {
	var r serviceresolver.Resolver = &serviceresolver.ClusterIP{Services: serviceGetter(informers)}
	if aggregatorRouting {
		r = &serviceresolver.Endpoints{Services: serviceGetter(informers), Slices: endpointSliceGetter(informers)}
	}
	loopback, err := url.Parse(loopbackHost)
	if err != nil || loopbackHost == "" {
		loopback = nil
	}
	return &serviceresolver.Loopback{Delegate: r, Host: loopback}
}
