package app

import (
	"fmt"
	"log/slog"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"

	aggregatorserver "github.com/kapi-dev/kapi/pkg/aggregator"
	"github.com/kapi-dev/kapi/pkg/aggregator/availability"
	"github.com/kapi-dev/kapi/pkg/aggregator/proxy"
	"github.com/kapi-dev/kapi/pkg/client"
	"github.com/kapi-dev/kapi/pkg/metrics"
	"github.com/kapi-dev/kapi/pkg/server"
)

// AggregatorConfig is how the aggregator reaches the servers of remote
// APIServices.
type AggregatorConfig struct {
	// ProxyClientCertFile and ProxyClientKeyFile are
	// --proxy-client-cert-file and --proxy-client-key-file: the client
	// certificate presented to them, re-read when the files change. As
	// in kube-apiserver, none is presented unless both are set.
	ProxyClientCertFile, ProxyClientKeyFile string
	// RejectForwardingRedirects is --aggregator-reject-forwarding-redirect:
	// a redirect from a backend becomes a 502 (true by default).
	RejectForwardingRedirects bool
}

// proxyCertReloadInterval is how often the files of the proxy client
// certificate are read again (kube-apiserver watches them).
const proxyCertReloadInterval = 2 * time.Second

// aggregatorRemote is what reaches the servers of remote APIServices:
// the proxy's handlers, and the client certificate they present.
type aggregatorRemote struct {
	cert     *proxy.ClientCert
	config   *proxy.Config
	handlers *proxy.Handlers
}

// newAggregatorRemote builds the proxy of remote APIServices, resolving
// Services as the webhooks do (--enable-aggregator-routing, the loopback
// for the kubernetes Service).
func newAggregatorRemote(c *Config, informers *client.Informers, loopbackHost string, registry *metrics.Registry, log *slog.Logger) (*aggregatorRemote, error) {
	r := &aggregatorRemote{}
	if a := c.Aggregator; a.ProxyClientCertFile != "" && a.ProxyClientKeyFile != "" {
		cert, err := proxy.NewClientCert(a.ProxyClientCertFile, a.ProxyClientKeyFile, log)
		if err != nil {
			return nil, fmt.Errorf("--proxy-client-cert-file, --proxy-client-key-file: %w", err)
		}
		r.cert = cert
	}
	r.config = &proxy.Config{
		Resolver:                  serviceResolver(informers, c.Admission.EnableAggregatorRouting, loopbackHost),
		Transports:                proxy.NewTransports(r.cert),
		RejectForwardingRedirects: c.Aggregator.RejectForwardingRedirects,
		SendUID:                   c.FeatureGates.Enabled("RemoteRequestHeaderUID"),
		Metrics:                   registry,
	}
	r.handlers = proxy.NewHandlers(r.config)
	return r, nil
}

// addControllers adds to the aggregator server the reloading of the
// client certificate and the two availability controllers, with
// kube-apiserver's hook names and five workers each.
func (r *aggregatorRemote) addControllers(s *aggregatorserver.Server, informers *client.Informers, clients *client.Set, registry *metrics.Registry, log *slog.Logger) error {
	if r.cert != nil {
		s.AddPostStartHook("aggregator-reload-proxy-client-cert", func(ctx server.PostStartHookContext) error {
			go r.cert.Run(ctx, proxyCertReloadInterval)
			return nil
		})
	}
	m := availability.NewMetrics()
	registry.MustRegister(m.Collectors()...)
	writer := client.For[*apiregistrationv1.APIService, *apiregistrationv1.APIServiceList](clients, "apiservices", "")
	log = log.With("component", "apiservice-availability")
	local, err := availability.NewLocal(s.APIServices, s.APIServiceLister, writer, m, log)
	if err != nil {
		return err
	}
	s.AddPostStartHook(availability.LocalHook, func(ctx server.PostStartHookContext) error {
		go local.Run(ctx, 5)
		return nil
	})
	remote, err := availability.NewRemote(availability.RemoteConfig{
		APIServices:    s.APIServices,
		Lister:         s.APIServiceLister,
		Services:       client.InformerFor[*corev1.Service, *corev1.ServiceList](informers, "services"),
		EndpointSlices: client.InformerFor[*discoveryv1.EndpointSlice, *discoveryv1.EndpointSliceList](informers, "endpointslices"),
		Writer:         writer,
		Resolver:       r.config.Resolver,
		Transports:     r.config.Transports,
		Metrics:        m,
		Logger:         log,
	})
	if err != nil {
		return err
	}
	s.AddPostStartHook(availability.RemoteHook, func(ctx server.PostStartHookContext) error {
		go remote.Run(ctx, 5)
		return nil
	})
	return nil
}
