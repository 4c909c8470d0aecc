package service

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apimachinery/pkg/util/proxy"

	"github.com/kapi-dev/kapi/pkg/endpoints/request"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
	"github.com/kapi-dev/kapi/pkg/serviceresolver"
)

// EndpointSlices finds the EndpointSlices of a service (those labelled
// kubernetes.io/service-name with its name).
type EndpointSlices interface {
	EndpointSlices(ctx context.Context, namespace, service string) ([]*discoveryv1.EndpointSlice, error)
}

// Proxy is the services/proxy subresource, a resource of its own so that
// it is built from what it reads: the services, their EndpointSlices and
// the pods behind them.
type Proxy struct {
	REST *ProxyREST
}

// NewProxy returns services/proxy. Without EndpointSlices every request
// is a 503, as kube-apiserver answers a service without endpoints.
func NewProxy(services *Storage, pods rest.Getter, slices EndpointSlices, transport http.RoundTripper) (*Proxy, error) {
	family := corev1.IPv4Protocol
	if fams := services.Service.alloc.families; len(fams) > 0 {
		family = fams[0]
	}
	return &Proxy{REST: &ProxyREST{services: services.Service, pods: pods, slices: slices, transport: transport, primaryFamily: family}}, nil
}

// Map returns "services/proxy".
func (p *Proxy) Map() map[string]rest.Storage {
	return map[string]rest.Storage{"services/proxy": p.REST}
}

// ProxyREST passes any method, with any path after it, to a ready
// endpoint of the service ("name", "name:port" or "scheme:name:port", the
// port by number or by the service port's name) that is a pod of the
// namespace with that IP.
type ProxyREST struct {
	services      rest.Getter
	pods          rest.Getter
	slices        EndpointSlices
	transport     http.RoundTripper
	primaryFamily corev1.IPFamily
}

var _ rest.Connecter = &ProxyREST{}

func (r *ProxyREST) New() runtime.Object   { return &corev1.ServiceProxyOptions{} }
func (r *ProxyREST) Destroy()              {}
func (r *ProxyREST) NamespaceScoped() bool { return true }
func (r *ProxyREST) ConnectMethods() []string {
	return []string{"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"}
}
func (r *ProxyREST) NewConnectOptions() (runtime.Object, bool, string) {
	return &corev1.ServiceProxyOptions{}, true, "path"
}

func (r *ProxyREST) Connect(ctx context.Context, id string, opts runtime.Object, responder rest.Responder) (http.Handler, error) {
	proxyOpts := opts.(*corev1.ServiceProxyOptions)
	location, err := r.location(ctx, id)
	if err != nil {
		return nil, err
	}
	location.Path = utilnet.JoinPreservingTrailingSlash(location.Path, proxyOpts.Path)
	return proxy.NewUpgradeAwareHandler(location, r.transport, true, false, responder), nil
}

// location picks the endpoint, as kube-apiserver does (see
// serviceresolver.RandomEndpoint): the slices of the cluster's primary
// family first, a random ready endpoint serving the port's name that is
// a pod.
func (r *ProxyREST) location(ctx context.Context, id string) (*url.URL, error) {
	scheme, name, port, valid := utilnet.SplitSchemeNamePort(id)
	if !valid {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("invalid service request %q", id))
	}
	if n, err := strconv.ParseInt(port, 10, 64); err == nil {
		obj, err := r.services.Get(ctx, name, &metav1.GetOptions{})
		if err != nil {
			return nil, err
		}
		if n != int64(int32(n)) {
			return nil, apierrors.NewServiceUnavailable(fmt.Sprintf("no service port %d found for service %q", n, name))
		}
		p, err := serviceresolver.FindPort(obj.(*corev1.Service), int32(n))
		if err != nil {
			return nil, err
		}
		port = p.Name
	}
	if r.slices == nil {
		return nil, apierrors.NewServiceUnavailable(fmt.Sprintf("no endpoints available for service %q", name))
	}
	namespace := request.NamespaceValue(ctx)
	if namespace == "" {
		return nil, apierrors.NewBadRequest("missing required namespace")
	}
	slices, err := r.slices.EndpointSlices(ctx, namespace, name)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	hostPort, err := serviceresolver.RandomEndpoint(name, slices, port, r.primaryFamily, func(ep *discoveryv1.Endpoint) bool {
		return r.isPod(ctx, namespace, ep)
	})
	if err != nil {
		return nil, err
	}
	return &url.URL{Scheme: scheme, Host: hostPort}, nil
}

// isPod reports whether an endpoint is a pod of the namespace with the
// endpoint's address: only pods are proxied to.
func (r *ProxyREST) isPod(ctx context.Context, namespace string, ep *discoveryv1.Endpoint) bool {
	if ep.TargetRef == nil || ep.TargetRef.Namespace != namespace || len(ep.Addresses) == 0 {
		return false
	}
	obj, err := r.pods.Get(ctx, ep.TargetRef.Name, &metav1.GetOptions{})
	if err != nil {
		return false
	}
	for _, ip := range obj.(*corev1.Pod).Status.PodIPs {
		if ip.IP == ep.Addresses[0] {
			return true
		}
	}
	return false
}
