// Package metrics holds kapi's Prometheus metrics and serves them on
// /metrics. Names, help texts, labels and label values are
// kube-apiserver's, so that existing dashboards and alerts work unchanged.
//
// There is no global registry: each server creates a Registry and hands
// it to whatever records metrics, so that several servers (or tests) in
// one process never share counters.
package metrics

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// APIServerComponent is the component label of requests served by the
// API server itself.
const APIServerComponent = "apiserver"

// Request kinds of apiserver_current_inflight_requests.
const (
	ReadOnlyKind = "readOnly"
	MutatingKind = "mutating"
)

// Registry is the set of metrics one server exports. Its methods are safe
// for concurrent use.
type Registry struct {
	registry *prometheus.Registry

	requests      *prometheus.CounterVec
	latencies     *prometheus.HistogramVec
	responseSizes *prometheus.HistogramVec
	longRunning   *prometheus.GaugeVec
	terminations  *prometheus.CounterVec
	inflight      *inflightWatermark
	auth          auth
}

// requestLatencyBuckets are kube-apiserver's buckets for
// apiserver_request_duration_seconds, fine below a second for the
// latency SLOs and coarse up to the default 60s request timeout.
var requestLatencyBuckets = []float64{
	0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3,
	4, 5, 6, 8, 10, 15, 20, 30, 45, 60,
}

// NewRegistry returns a Registry with the request metrics and the Go
// runtime and process collectors registered.
func NewRegistry() *Registry {
	r := &Registry{
		registry: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_request_total",
			Help: "[STABLE] Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.",
		}, []string{"verb", "dry_run", "group", "version", "resource", "subresource", "scope", "component", "code"}),
		latencies: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "apiserver_request_duration_seconds",
			Help:    "[STABLE] Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.",
			Buckets: requestLatencyBuckets,
		}, []string{"verb", "dry_run", "group", "version", "resource", "subresource", "scope", "component"}),
		responseSizes: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "apiserver_response_sizes",
			Help: "[STABLE] Response size distribution in bytes for each group, version, verb, resource, subresource, scope and component.",
			// 1 kB to 1 GB.
			Buckets: prometheus.ExponentialBuckets(1000, 10, 7),
		}, []string{"verb", "group", "version", "resource", "subresource", "scope", "component"}),
		longRunning: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "apiserver_longrunning_requests",
			Help: "[STABLE] Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope and component. Not all requests are tracked this way.",
		}, []string{"verb", "group", "version", "resource", "subresource", "scope", "component"}),
		terminations: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_request_terminations_total",
			Help: "[ALPHA] Number of requests which apiserver terminated in self-defense.",
		}, []string{"verb", "group", "version", "resource", "subresource", "scope", "component", "code"}),
		inflight: newInflightWatermark(time.Now),
		auth:     newAuth(),
	}
	r.registry.MustRegister(
		// kube-apiserver exports every runtime/metrics series besides the
		// classic go_memstats_* ones.
		collectors.NewGoCollector(collectors.WithGoCollectorRuntimeMetrics(collectors.MetricsAll)),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		r.requests,
		r.latencies,
		r.responseSizes,
		r.longRunning,
		r.terminations,
		r.inflight,
	)
	r.registry.MustRegister(r.auth.collectors()...)
	return r
}

// Register adds a collector of another part of the server.
func (r *Registry) Register(c prometheus.Collector) error {
	return r.registry.Register(c)
}

// MustRegister is Register that panics on error, for collectors
// registered at construction time.
func (r *Registry) MustRegister(cs ...prometheus.Collector) {
	r.registry.MustRegister(cs...)
}

// Gatherer exposes the registry's metrics to other exporters and tests.
func (r *Registry) Gatherer() prometheus.Gatherer {
	return r.registry
}

// Handler serves the metrics in the Prometheus text format (gzipped when
// the scraper accepts it). A collector that fails does not hide the
// others.
func (r *Registry) Handler() http.Handler {
	return promhttp.HandlerFor(r.registry, promhttp.HandlerOpts{
		ErrorHandling: promhttp.ContinueOnError,
	})
}

// ObserveRequest records a finished request: it counts it in
// apiserver_request_total, observes its duration, and, for GET and LIST,
// its response size, as kube-apiserver does.
func (r *Registry) ObserveRequest(l RequestLabels, code int, elapsed time.Duration, responseBytes int64) {
	r.CountRequest(l, code)
	r.latencies.WithLabelValues(l.Verb, l.DryRun, l.Group, l.Version, l.Resource, l.Subresource, l.Scope, l.Component).Observe(elapsed.Seconds())
	if l.Verb == "GET" || l.Verb == "LIST" {
		r.responseSizes.WithLabelValues(l.Verb, l.Group, l.Version, l.Resource, l.Subresource, l.Scope, l.Component).Observe(float64(responseBytes))
	}
}

// CountRequest counts a request in apiserver_request_total without
// observing a duration: for requests rejected before they were served,
// such as max-in-flight's 429s.
func (r *Registry) CountRequest(l RequestLabels, code int) {
	r.requests.WithLabelValues(l.Verb, l.DryRun, l.Group, l.Version, l.Resource, l.Subresource, l.Scope, l.Component, strconv.Itoa(code)).Inc()
}

// RecordTermination counts a request the server cut short to protect
// itself: a 429 from max-in-flight, a 504 from the request timeout.
func (r *Registry) RecordTermination(l RequestLabels, code int) {
	r.terminations.WithLabelValues(l.Verb, l.Group, l.Version, l.Resource, l.Subresource, l.Scope, l.Component, strconv.Itoa(code)).Inc()
}

// TrackLongRunning counts a long-running request in
// apiserver_longrunning_requests until done is called.
func (r *Registry) TrackLongRunning(l RequestLabels) (done func()) {
	g := r.longRunning.WithLabelValues(l.Verb, l.Group, l.Version, l.Resource, l.Subresource, l.Scope, l.Component)
	g.Inc()
	return g.Dec
}

// ObserveInflight records that n requests of kind (ReadOnlyKind or
// MutatingKind) are executing. Max-in-flight calls it whenever a request
// starts or ends.
func (r *Registry) ObserveInflight(kind string, n int) {
	r.inflight.observe(kind, n)
}
