package validating

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are kube-apiserver's metrics of validating admission policies,
// with its names, help and labels. A nil *Metrics records nothing.
type Metrics struct {
	checks  *prometheus.CounterVec
	latency *prometheus.HistogramVec
}

var metricLabels = []string{"policy", "policy_binding", "error_type", "enforcement_action"}

// NewMetrics makes the metrics; register them with the server's
// registry.
func NewMetrics() *Metrics {
	return &Metrics{
		checks: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_validating_admission_policy_check_total",
			Help: "[BETA] Validation admission policy check total, labeled by policy and further identified by binding and enforcement action taken.",
		}, metricLabels),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "apiserver_validating_admission_policy_check_duration_seconds",
			Help:    "[BETA] Validation admission latency for individual validation expressions in seconds, labeled by policy and further including binding and enforcement action taken.",
			Buckets: []float64{0.0000005, 0.001, 0.01, 0.1, 1.0},
		}, metricLabels),
	}
}

// Collectors are the metrics to register.
func (m *Metrics) Collectors() []prometheus.Collector {
	return []prometheus.Collector{m.checks, m.latency}
}

func (m *Metrics) observe(policy, binding, errorType, action string, elapsed time.Duration) {
	if m == nil {
		return
	}
	m.checks.WithLabelValues(policy, binding, errorType, action).Inc()
	m.latency.WithLabelValues(policy, binding, errorType, action).Observe(elapsed.Seconds())
}
