package app

import (
	"fmt"
	"log/slog"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/client-go/tools/cache"

	aggdiscovery "github.com/kapi-dev/kapi/pkg/aggregator/discovery"
	aggopenapi "github.com/kapi-dev/kapi/pkg/aggregator/openapi"
	"github.com/kapi-dev/kapi/pkg/aggregator/remote"
	"github.com/kapi-dev/kapi/pkg/endpoints/discovery"
	"github.com/kapi-dev/kapi/pkg/openapi"
	"github.com/kapi-dev/kapi/pkg/server"
)

// addRemoteDocuments puts the discovery and OpenAPI documents of the
// remote APIServices (those apiServices, the aggregator's informer, sees)
// into the chain's, with kube-apiserver's post-start hooks: readiness waits
// until every remote APIService known at start is in discovery (stale if
// its server did not answer), as kube-apiserver's does. It returns the
// handler of /openapi/: local's documents with the remote ones.
func addRemoteDocuments(s *server.GenericAPIServer, apiServices cache.SharedIndexInformer, disc *discovery.Registry,
	local *openapi.Service, transport remote.Transport, log *slog.Logger) (http.Handler, error) {
	manager := aggdiscovery.New(aggdiscovery.Config{Registry: disc, Transport: transport, Logger: log.With("component", "apiservice-discovery")})
	documents := aggopenapi.New(aggopenapi.Config{Local: local, Transport: transport, Logger: log.With("component", "apiservice-openapi")})
	for _, h := range []remote.APIServiceHandler{manager, documents} {
		if _, err := apiServices.AddEventHandler(remote.EventHandler(h)); err != nil {
			return nil, fmt.Errorf("apiservice informer: %w", err)
		}
	}
	s.AddPostStartHook("apiservice-discovery-controller", func(ctx server.PostStartHookContext) error {
		if !cache.WaitForCacheSync(ctx.Done(), apiServices.HasSynced) {
			return nil // shutting down
		}
		synced := make(chan struct{})
		go manager.Run(ctx, 2, func() { close(synced) })
		select {
		case <-synced:
		case <-ctx.Done():
		}
		return nil
	})
	s.AddPostStartHook("apiservice-openapi-controller", func(ctx server.PostStartHookContext) error {
		go documents.RunV2(ctx, 1)
		return nil
	})
	s.AddPostStartHook("apiservice-openapiv3-controller", func(ctx server.PostStartHookContext) error {
		go documents.RunV3(ctx, 1)
		return nil
	})
	return documents, nil
}

// discoveryMetrics are kube-apiserver's metrics of the discovery documents.
func discoveryMetrics(disc *discovery.Registry) []prometheus.Collector {
	return []prometheus.Collector{prometheus.NewCounterFunc(prometheus.CounterOpts{
		Name: "aggregator_discovery_aggregation_count_total",
		Help: "[ALPHA] Counter of number of times discovery was aggregated",
	}, func() float64 { return float64(disc.Builds()) })}
}
