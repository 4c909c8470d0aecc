// Package serviceresolver turns a reference to a Service (namespace, name
// and port) into the address of a server behind it, the one way kapi does
// it for everything that calls a Service: admission webhooks, the
// aggregator's proxy to remote APIServices and its availability checks,
// and the services/proxy subresource.
//
// kube-apiserver resolves a Service in two ways (k8s.io/apiserver's
// util/proxy, used by the aggregator and the webhooks alike):
//
//   - ClusterIP, the default: the Service's cluster IP and the port asked
//     for, left to the service network (kube-proxy) to route; an
//     ExternalName Service resolves to its external name and the port.
//   - Endpoints, with --enable-aggregator-routing: a ready endpoint of the
//     Service's EndpointSlices that serves the port's name, picked at
//     random, those of the Service's first IP family first.
//
// Loopback answers for the kubernetes Service in the default namespace on
// port 443 with the server's own address, as kube-apiserver's aggregator
// and webhooks do: that Service is the server itself.
//
// The errors are kube-apiserver's, word for word: callers show them (an
// APIService's FailedDiscoveryCheck condition, a webhook's failure).
package serviceresolver

import (
	"fmt"
	"math/rand/v2"
	"net"
	"net/url"
	"sort"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// Resolver knows how to turn a Service reference into the URL of one of
// its servers (scheme https, host and port; no path).
type Resolver interface {
	ResolveEndpoint(namespace, name string, port int32) (*url.URL, error)
}

// ServiceGetter reads a Service, usually from an informer's cache
// (client-go's ServiceLister.Services(namespace).Get is one). A Service
// that does not exist is a NotFound API error.
type ServiceGetter func(namespace, name string) (*corev1.Service, error)

// EndpointSliceGetter lists the EndpointSlices of a Service: those of its
// namespace labelled kubernetes.io/service-name with its name.
type EndpointSliceGetter func(namespace, service string) ([]*discoveryv1.EndpointSlice, error)

// ClusterIP resolves a Service to its cluster IP and the port asked for
// (which the Service must have), or an ExternalName Service to its
// external name and the port.
type ClusterIP struct {
	Services ServiceGetter
}

func (r *ClusterIP) ResolveEndpoint(namespace, name string, port int32) (*url.URL, error) {
	svc, err := r.Services(namespace, name)
	if err != nil {
		return nil, err
	}
	switch svc.Spec.Type {
	case corev1.ServiceTypeClusterIP, corev1.ServiceTypeLoadBalancer, corev1.ServiceTypeNodePort:
		if svc.Spec.Type == corev1.ServiceTypeClusterIP && svc.Spec.ClusterIP == corev1.ClusterIPNone {
			return nil, fmt.Errorf(`cannot route to service with ClusterIP "None"`)
		}
		p, err := FindPort(svc, port)
		if err != nil {
			return nil, err
		}
		return httpsURL(net.JoinHostPort(svc.Spec.ClusterIP, strconv.Itoa(int(p.Port)))), nil
	case corev1.ServiceTypeExternalName:
		return httpsURL(net.JoinHostPort(svc.Spec.ExternalName, strconv.Itoa(int(port)))), nil
	}
	return nil, fmt.Errorf("unsupported service type %q", svc.Spec.Type)
}

// Endpoints resolves a Service to one of its ready endpoints serving the
// port asked for (see RandomEndpoint). Only Services with a cluster IP
// (ClusterIP, NodePort, LoadBalancer) have endpoints to resolve to; a nil
// Slices resolves none.
type Endpoints struct {
	Services ServiceGetter
	Slices   EndpointSliceGetter
}

func (r *Endpoints) ResolveEndpoint(namespace, name string, port int32) (*url.URL, error) {
	svc, err := r.Services(namespace, name)
	if err != nil {
		return nil, err
	}
	switch svc.Spec.Type {
	case corev1.ServiceTypeClusterIP, corev1.ServiceTypeLoadBalancer, corev1.ServiceTypeNodePort:
	default:
		return nil, fmt.Errorf("unsupported service type %q", svc.Spec.Type)
	}
	p, err := FindPort(svc, port)
	if err != nil {
		return nil, err
	}
	if r.Slices == nil {
		return nil, noEndpoints(svc.Name)
	}
	slices, err := r.Slices(namespace, svc.Name)
	if err != nil {
		return nil, err
	}
	family := corev1.IPFamilyUnknown
	if len(svc.Spec.IPFamilies) > 0 {
		family = svc.Spec.IPFamilies[0]
	}
	hostPort, err := RandomEndpoint(svc.Name, slices, p.Name, family, nil)
	if err != nil {
		return nil, err
	}
	return httpsURL(hostPort), nil
}

// Loopback answers for the kubernetes Service of the default namespace on
// port 443 with Host, the server's own address, and asks Delegate for
// every other Service.
type Loopback struct {
	Delegate Resolver
	Host     *url.URL
}

func (r *Loopback) ResolveEndpoint(namespace, name string, port int32) (*url.URL, error) {
	if r.Host != nil && namespace == "default" && name == "kubernetes" && port == 443 {
		u := *r.Host
		return &u, nil
	}
	return r.Delegate.ResolveEndpoint(namespace, name, port)
}

// FindPort returns the Service's port numbered port, or kube-apiserver's
// 503 naming the port.
func FindPort(svc *corev1.Service, port int32) (*corev1.ServicePort, error) {
	for i := range svc.Spec.Ports {
		if svc.Spec.Ports[i].Port == port {
			return &svc.Spec.Ports[i], nil
		}
	}
	return nil, apierrors.NewServiceUnavailable(fmt.Sprintf("no service port %d found for service %q", port, svc.Name))
}

// RandomEndpoint picks the "host:port" of an endpoint of the slices that
// serves the port named portName, as kube-apiserver picks it: the slices
// of the preferred family first, in random order within each kind; in a
// slice, from a random endpoint on, the first one that is ready (an
// endpoint whose readiness is unknown counts as ready) and that valid, if
// not nil, accepts. Only an endpoint's first address is used. None found
// is kube-apiserver's 503 naming the Service. The slices are not changed.
func RandomEndpoint(service string, slices []*discoveryv1.EndpointSlice, portName string, preferred corev1.IPFamily, valid func(*discoveryv1.Endpoint) bool) (string, error) {
	order := make([]int, len(slices))
	for i := range order {
		order[i] = i
	}
	if len(slices) > 1 {
		preferredType := discoveryv1.AddressType(preferred)
		random := rand.Perm(len(slices))
		sort.Slice(order, func(i, j int) bool {
			a, b := slices[order[i]], slices[order[j]]
			if a.AddressType != b.AddressType {
				return a.AddressType == preferredType
			}
			return random[order[i]] < random[order[j]]
		})
	}
	for _, i := range order {
		slice := slices[i]
		for _, p := range slice.Ports {
			if p.Name == nil || *p.Name != portName || p.Port == nil || len(slice.Endpoints) == 0 {
				continue
			}
			offset := rand.IntN(len(slice.Endpoints))
			for k := range slice.Endpoints {
				ep := &slice.Endpoints[(k+offset)%len(slice.Endpoints)]
				if ep.Conditions.Ready != nil && !*ep.Conditions.Ready {
					continue
				}
				if len(ep.Addresses) == 0 || (valid != nil && !valid(ep)) {
					continue
				}
				return net.JoinHostPort(ep.Addresses[0], strconv.Itoa(int(*p.Port))), nil
			}
		}
	}
	return "", noEndpoints(service)
}

// HasReadyEndpoint reports whether one of the slices has both a ready
// endpoint (readiness unknown counts as ready) and a port named portName:
// kube-apiserver's availability check (an APIService whose Service has
// none is MissingEndpoints). Unlike RandomEndpoint it looks at no address.
func HasReadyEndpoint(portName string, slices []*discoveryv1.EndpointSlice) bool {
	for _, s := range slices {
		ready := false
		for _, e := range s.Endpoints {
			if e.Conditions.Ready == nil || *e.Conditions.Ready {
				ready = true
				break
			}
		}
		if !ready {
			continue
		}
		for _, p := range s.Ports {
			if p.Name != nil && *p.Name == portName && p.Port != nil {
				return true
			}
		}
	}
	return false
}

func noEndpoints(service string) error {
	return apierrors.NewServiceUnavailable(fmt.Sprintf("no endpoints available for service %q", service))
}

func httpsURL(hostPort string) *url.URL {
	return &url.URL{Scheme: "https", Host: hostPort}
}
