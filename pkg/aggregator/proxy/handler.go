// Package proxy passes the requests for the group version of a remote
// APIService (one with spec.service) to the server behind its Service, as
// kube-apiserver's aggregator does.
//
// One Handler serves one APIService, at /apis/<group>/<version> and below
// (the discovery document of the group version included: kube-apiserver
// proxies it too). For a request it:
//
//   - answers 503 "service unavailable" (plain text, as kube-apiserver's
//     http.Error) while the APIService is not Available, or when its
//     Service cannot be resolved (serviceresolver: the cluster IP, or an
//     endpoint with --enable-aggregator-routing);
//   - sends the request to https://<resolved address><path>?<query, re-
//     encoded>, TLS verified with the caBundle for <service>.<namespace>.svc
//     (Transports), presenting the --proxy-client-cert-file certificate;
//   - says who the user is with X-Remote-User, X-Remote-Uid,
//     X-Remote-Group and X-Remote-Extra-<escaped key>, replacing any such
//     header the client sent. The client's credentials are gone by then:
//     the authentication filter removes Authorization and the front-proxy
//     headers, the impersonation filter the Impersonate-* headers;
//   - streams the response (a watch is flushed event by event) and
//     passes upgrades (exec, attach, port-forward: SPDY and websockets)
//     through, with apimachinery's UpgradeAwareHandler as kube-apiserver;
//   - refuses a redirect from the backend with 502
//     (--aggregator-reject-forwarding-redirect); a backend it cannot reach
//     is a 503 "error trying to reach service: ...".
//
// A request for the group version's discovery document gets five
// seconds, as in kube-apiserver, so that one slow server does not stall
// every client's discovery.
//
// A local APIService's handler passes requests to the delegate.
package proxy

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apimachinery/pkg/util/proxy"
	"k8s.io/client-go/transport"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	"k8s.io/streaming/pkg/httpstream"

	"github.com/kapi-dev/kapi/pkg/endpoints/auditcontext"
	"github.com/kapi-dev/kapi/pkg/endpoints/request"
	"github.com/kapi-dev/kapi/pkg/metrics"
	"github.com/kapi-dev/kapi/pkg/serviceresolver"
)

// discoveryTimeout bounds a request for a group version's discovery
// document, as kube-apiserver bounds it.
const discoveryTimeout = 5 * time.Second

// Config is what the handlers of every APIService share.
type Config struct {
	// Resolver finds the address of an APIService's Service.
	Resolver serviceresolver.Resolver
	// Transports makes the connections to the Services' servers.
	Transports *Transports
	// Delegate serves the requests of local APIServices (the next server
	// of the delegation chain); nil answers them 404.
	Delegate http.Handler
	// RejectForwardingRedirects is --aggregator-reject-forwarding-redirect
	// (true in kube-apiserver unless turned off).
	RejectForwardingRedirects bool
	// SendUID sends the user's UID as X-Remote-Uid (kube-apiserver's
	// RemoteRequestHeaderUID feature gate, on by default in 1.37).
	SendUID bool
	// Metrics counts the requests the proxy refuses in
	// apiserver_request_terminations_total, component aggregator; nil
	// counts nothing.
	Metrics *metrics.Registry
}

// Handler serves the group version of one APIService. Update it when the
// APIService changes; it may serve requests meanwhile.
type Handler struct {
	config *Config
	info   atomic.Pointer[handlingInfo]
}

// handlingInfo is what a request needs to know of the APIService.
type handlingInfo struct {
	name      string
	local     bool
	available bool
	// apiService is the object the information came from, for the
	// transport.
	apiService       *apiregistrationv1.APIService
	serviceNamespace string
	serviceName      string
	servicePort      int32
}

// NewHandler returns the handler of apiService.
func NewHandler(config *Config, apiService *apiregistrationv1.APIService) *Handler {
	h := &Handler{config: config}
	h.Update(apiService)
	return h
}

// Update takes the APIService's new spec and status.
func (h *Handler) Update(apiService *apiregistrationv1.APIService) {
	if apiService.Spec.Service == nil {
		h.info.Store(&handlingInfo{name: apiService.Name, local: true})
		return
	}
	info := &handlingInfo{
		name:             apiService.Name,
		available:        IsAvailable(apiService),
		apiService:       apiService,
		serviceNamespace: apiService.Spec.Service.Namespace,
		serviceName:      apiService.Spec.Service.Name,
		servicePort:      443,
	}
	if p := apiService.Spec.Service.Port; p != nil {
		info.servicePort = *p
	}
	h.info.Store(info)
}

// IsAvailable reports whether an APIService's Available condition is True.
func IsAvailable(apiService *apiregistrationv1.APIService) bool {
	for _, c := range apiService.Status.Conditions {
		if c.Type == apiregistrationv1.Available {
			return c.Status == apiregistrationv1.ConditionTrue
		}
	}
	return false
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	info := h.info.Load()
	if info.local {
		if h.config.Delegate == nil {
			http.Error(w, "", http.StatusNotFound)
			return
		}
		h.config.Delegate.ServeHTTP(w, req)
		return
	}
	if !info.available {
		h.proxyError(w, req, "service unavailable", http.StatusServiceUnavailable)
		return
	}
	rt, err := h.config.Transports.For(info.apiService)
	if err != nil {
		h.proxyError(w, req, err.Error(), http.StatusInternalServerError)
		return
	}
	u, ok := request.UserFrom(req.Context())
	if !ok {
		h.proxyError(w, req, "missing user", http.StatusInternalServerError)
		return
	}
	resolved, err := h.config.Resolver.ResolveEndpoint(info.serviceNamespace, info.serviceName, info.servicePort)
	if err != nil {
		h.proxyError(w, req, "service unavailable", http.StatusServiceUnavailable)
		return
	}
	location := &url.URL{Scheme: "https", Host: resolved.Host, Path: req.URL.Path, RawQuery: req.URL.Query().Encode()}

	ctx := req.Context()
	if isDiscovery(req) {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, discoveryTimeout)
		defer cancel()
	}
	out := req.WithContext(ctx)
	out.Header = utilnet.CloneHeader(req.Header)
	out.URL = location
	out.Host = location.Host
	if id, ok := auditcontext.IDFrom(req.Context()); ok {
		out.Header.Set("Audit-Id", string(id))
	}
	uid := ""
	if h.config.SendUID {
		uid = u.GetUID()
	}
	// Set on the request itself rather than by a round tripper: an
	// upgrade dials the backend directly and writes this request.
	transport.SetAuthProxyHeaders(out, u.GetName(), uid, u.GetGroups(), u.GetExtra())

	upgrade := httpstream.IsUpgradeRequest(req)
	handler := proxy.NewUpgradeAwareHandler(location, rt, true, upgrade, responder{w: w})
	handler.RejectForwardingRedirects = h.config.RejectForwardingRedirects
	handler.ServeHTTP(w, out)
}

// proxyError answers a request the proxy refuses, as kube-apiserver's
// aggregator: plain text, counted as a termination of the aggregator.
func (h *Handler) proxyError(w http.ResponseWriter, req *http.Request, msg string, code int) {
	http.Error(w, msg, code)
	info, ok := request.RequestInfoFrom(req.Context())
	if !ok || h.config.Metrics == nil {
		return
	}
	l := metrics.RequestLabelsFor(req, info)
	l.Component = "aggregator"
	h.config.Metrics.RecordTermination(l, code)
}

// isDiscovery reports whether a request is for a group version's
// discovery document, /apis/<group>/<version>.
func isDiscovery(req *http.Request) bool {
	info, ok := request.RequestInfoFrom(req.Context())
	if !ok || info.IsResourceRequest {
		return false
	}
	return len(strings.Split(strings.Trim(info.Path, "/"), "/")) == 3
}

// responder answers the proxy's failures as kube-apiserver's aggregator:
// a 503 with the error as plain text.
type responder struct{ w http.ResponseWriter }

func (r responder) Error(_ http.ResponseWriter, _ *http.Request, err error) {
	http.Error(r.w, err.Error(), http.StatusServiceUnavailable)
}

// Handlers are the handlers of the remote APIServices, one each, kept up
// to date as the APIServices change (the aggregator server's
// RemoteHandlers).
type Handlers struct {
	config *Config

	mu     sync.Mutex
	byName map[string]*Handler
}

// NewHandlers returns the handlers of no APIService yet.
func NewHandlers(config *Config) *Handlers {
	return &Handlers{config: config, byName: map[string]*Handler{}}
}

// Handler returns the handler of an APIService, updated to its current
// spec and status.
func (hs *Handlers) Handler(apiService *apiregistrationv1.APIService) http.Handler {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	if h := hs.byName[apiService.Name]; h != nil {
		h.Update(apiService)
		return h
	}
	h := NewHandler(hs.config, apiService)
	hs.byName[apiService.Name] = h
	return h
}

// Remove forgets the handler of an APIService that is gone or local, and
// closes its idle connections.
func (hs *Handlers) Remove(name string) {
	hs.mu.Lock()
	delete(hs.byName, name)
	hs.mu.Unlock()
	hs.config.Transports.Forget(name)
}

// Transport returns what reaches the server behind a remote APIService
// for the aggregator's own requests (its discovery and OpenAPI
// downloads): the APIService's transport, and the base URL of the
// address its Service resolves to now. It fails as a proxied request
// would: the transport cannot be built, or the Service not resolved.
func (c *Config) Transport(apiService *apiregistrationv1.APIService) (http.RoundTripper, *url.URL, error) {
	rt, err := c.Transports.For(apiService)
	if err != nil {
		return nil, nil, err
	}
	ref := apiService.Spec.Service
	if ref == nil {
		return nil, nil, fmt.Errorf("APIService %s is local", apiService.Name)
	}
	port := int32(443)
	if ref.Port != nil {
		port = *ref.Port
	}
	u, err := c.Resolver.ResolveEndpoint(ref.Namespace, ref.Name, port)
	if err != nil {
		return nil, nil, err
	}
	return rt, &url.URL{Scheme: "https", Host: u.Host}, nil
}
