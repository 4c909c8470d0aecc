package cache

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are kube-apiserver's authentication_token_cache_* families,
// with its names, labels, buckets and (empty) help. One Metrics serves
// every cache of a server, as kube-apiserver's are global: a token the
// webhook answers is counted by the cache of the union and by the
// webhook's own. A nil *Metrics records nothing.
type Metrics struct {
	// requests and durations: every authentication, status "hit" (the
	// cache answered) or "miss" (it waited for the delegate).
	requests  *prometheus.CounterVec
	durations *prometheus.HistogramVec
	// fetches: the delegate's answers, status "ok" or "error".
	fetches *prometheus.CounterVec
	// active: status "in_flight", the delegate's authentications under
	// way; "blocked", the requests waiting for one.
	active *prometheus.GaugeVec
}

// NewMetrics returns unregistered metrics.
func NewMetrics() *Metrics {
	const help = "[ALPHA] "
	return &Metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "authentication_token_cache_request_total", Help: help,
		}, []string{"status"}),
		durations: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "authentication_token_cache_request_duration_seconds", Help: help,
			Buckets: prometheus.DefBuckets,
		}, []string{"status"}),
		fetches: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "authentication_token_cache_fetch_total", Help: help,
		}, []string{"status"}),
		active: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "authentication_token_cache_active_fetch_count", Help: help,
		}, []string{"status"}),
	}
}

func (m *Metrics) collectors() []prometheus.Collector {
	return []prometheus.Collector{m.requests, m.durations, m.fetches, m.active}
}

// Describe implements prometheus.Collector.
func (m *Metrics) Describe(ch chan<- *prometheus.Desc) {
	for _, c := range m.collectors() {
		c.Describe(ch)
	}
}

// Collect implements prometheus.Collector.
func (m *Metrics) Collect(ch chan<- prometheus.Metric) {
	for _, c := range m.collectors() {
		c.Collect(ch)
	}
}

// request counts one authentication. Its duration is observed in whole
// milliseconds, as kube-apiserver observes it.
func (m *Metrics) request(hit bool, took time.Duration) {
	if m == nil {
		return
	}
	status := "miss"
	if hit {
		status = "hit"
	}
	m.requests.WithLabelValues(status).Inc()
	m.durations.WithLabelValues(status).Observe(float64(took.Milliseconds()) / 1000)
}

// blocked counts the requests waiting for the delegate up or down.
func (m *Metrics) blocked(delta float64) {
	if m != nil {
		m.active.WithLabelValues("blocked").Add(delta)
	}
}

// fetching counts the delegate's authentications under way up or down.
func (m *Metrics) fetching(delta float64) {
	if m != nil {
		m.active.WithLabelValues("in_flight").Add(delta)
	}
}

// fetched counts one answer of the delegate.
func (m *Metrics) fetched(ok bool) {
	if m == nil {
		return
	}
	status := "error"
	if ok {
		status = "ok"
	}
	m.fetches.WithLabelValues(status).Inc()
}
