package mutating

import (
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	celadmission "github.com/kapi-dev/kapi/pkg/cel/admission"
)

// Metrics are kube-apiserver's metrics of mutating admission policies,
// with its names, help, buckets and labels: each mutation evaluated,
// counted and timed by policy, binding and outcome. A nil *Metrics
// records nothing.
type Metrics struct {
	checks  *prometheus.CounterVec
	latency *prometheus.HistogramVec
}

// NewMetrics makes the metrics; register them with the server's
// registry.
func NewMetrics() *Metrics {
	labels := []string{"policy", "policy_binding", "error_type"}
	return &Metrics{
		checks: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_mutating_admission_policy_check_total",
			Help: "[ALPHA] Mutation admission policy check total, labeled by policy and further identified by binding.",
		}, labels),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "apiserver_mutating_admission_policy_check_duration_seconds",
			Help:    "[ALPHA] Mutation admission latency for individual mutation expressions in seconds, labeled by policy and binding.",
			Buckets: []float64{0.0000005, 0.001, 0.01, 0.1, 1.0},
		}, labels),
	}
}

// Describe implements prometheus.Collector.
func (m *Metrics) Describe(ch chan<- *prometheus.Desc) {
	m.checks.Describe(ch)
	m.latency.Describe(ch)
}

// Collect implements prometheus.Collector.
func (m *Metrics) Collect(ch chan<- prometheus.Metric) {
	m.checks.Collect(ch)
	m.latency.Collect(ch)
}

// observe records one mutation's outcome, its error_type as
// kube-apiserver classifies err.
func (m *Metrics) observe(policy, binding string, err error, elapsed time.Duration) {
	if m == nil {
		return
	}
	t := "no_error"
	switch {
	case err == nil:
	case strings.HasPrefix(err.Error(), "compilation"):
		t = "compile_error"
	case strings.HasPrefix(err.Error(), celadmission.OutOfBudget):
		t = "out_of_budget"
	default:
		t = "invalid_error"
	}
	m.checks.WithLabelValues(policy, binding, t).Inc()
	m.latency.WithLabelValues(policy, binding, t).Observe(elapsed.Seconds())
}
