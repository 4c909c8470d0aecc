package node

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apimachinery/pkg/util/proxy"

	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

// ProxyREST is nodes/proxy: any method, with any path after it, passed
// on to the node's kubelet ("name"), or to another port of the node
// ("name:port", "scheme:name:port").
type ProxyREST struct {
	kubelets *Kubelets
}

var _ rest.Connecter = &ProxyREST{}

// ProxyMethods are the methods the proxy subresources take.
var ProxyMethods = []string{"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"}

func (r *ProxyREST) New() runtime.Object      { return &corev1.NodeProxyOptions{} }
func (r *ProxyREST) Destroy()                 {}
func (r *ProxyREST) NamespaceScoped() bool    { return false }
func (r *ProxyREST) ConnectMethods() []string { return ProxyMethods }
func (r *ProxyREST) NewConnectOptions() (runtime.Object, bool, string) {
	return &corev1.NodeProxyOptions{}, true, "path"
}

// Connect proxies to the node's kubelet, or to the port the name asks for.
func (r *ProxyREST) Connect(ctx context.Context, id string, opts runtime.Object, responder rest.Responder) (http.Handler, error) {
	proxyOpts := opts.(*corev1.NodeProxyOptions)
	location, transport, err := r.location(ctx, id)
	if err != nil {
		return nil, err
	}
	location.Path = utilnet.JoinPreservingTrailingSlash(location.Path, proxyOpts.Path)
	return proxy.NewUpgradeAwareHandler(location, transport, true, false, responder), nil
}

// location is where a nodes/proxy request goes: the kubelet with its
// transport when the port is the kubelet's or none, the node's other port
// with the proxy transport otherwise. Only nodes whose address resolves
// to global unicast addresses are proxied to.
func (r *ProxyREST) location(ctx context.Context, id string) (*url.URL, http.RoundTripper, error) {
	scheme, name, port, valid := utilnet.SplitSchemeNamePort(id)
	if !valid {
		return nil, nil, apierrors.NewBadRequest(fmt.Sprintf("invalid node request %q", id))
	}
	info, err := r.kubelets.ConnectionInfo(ctx, name)
	if err != nil {
		return nil, nil, err
	}
	if err := IsProxyableHostname(ctx, info.Hostname); err != nil {
		return nil, nil, apierrors.NewBadRequest(err.Error())
	}
	if port == "" || port == info.Port {
		return &url.URL{Scheme: info.Scheme, Host: net.JoinHostPort(info.Hostname, info.Port)}, info.Transport, nil
	}
	return &url.URL{Scheme: scheme, Host: net.JoinHostPort(info.Hostname, port)}, r.kubelets.ProxyTransport(), nil
}

// IsProxyableHostname reports why a host may not be proxied to: every
// address it resolves to must be global unicast (not loopback,
// link-local or multicast), as kube-apiserver requires.
func IsProxyableHostname(ctx context.Context, hostname string) error {
	addrs, err := net.DefaultResolver.LookupIPAddr(ctx, hostname)
	if err != nil {
		return err
	}
	if len(addrs) == 0 {
		return fmt.Errorf("no addresses for hostname")
	}
	for _, a := range addrs {
		if !a.IP.IsGlobalUnicast() {
			return fmt.Errorf("address not allowed")
		}
	}
	return nil
}
