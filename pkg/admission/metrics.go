package admission

import (
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// The phases of the chain, as the "type" label names them.
const (
	stepAdmit    = "admit"
	stepValidate = "validate"
)

// latencyBuckets are kube-apiserver's buckets of admission latencies.
var latencyBuckets = []float64{0.005, 0.025, 0.1, 0.5, 1.0, 2.5}

// Metrics are the admission chain's latencies, with kube-apiserver's
// names, help and labels. Register it with the server's metrics registry.
type Metrics struct {
	plugins     *prometheus.HistogramVec
	steps       *prometheus.HistogramVec
	stepSummary *prometheus.SummaryVec
}

// NewMetrics makes the chain's metrics.
func NewMetrics() *Metrics {
	return &Metrics{
		plugins: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "apiserver_admission_controller_admission_duration_seconds",
			Help:    "[STABLE] Admission controller latency histogram in seconds, identified by name and broken out for each operation and API resource and type (validate or admit).",
			Buckets: latencyBuckets,
		}, []string{"name", "operation", "rejected", "type"}),
		steps: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "apiserver_admission_step_admission_duration_seconds",
			Help:    "[STABLE] Admission sub-step latency histogram in seconds, broken out for each operation and API resource and step type (validate or admit).",
			Buckets: latencyBuckets,
		}, []string{"operation", "rejected", "type"}),
		stepSummary: prometheus.NewSummaryVec(prometheus.SummaryOpts{
			Name:       "apiserver_admission_step_admission_duration_seconds_summary",
			Help:       "[ALPHA] Admission sub-step latency summary in seconds, broken out for each operation and API resource and step type (validate or admit).",
			Objectives: map[float64]float64{0.5: 0.05, 0.9: 0.01, 0.99: 0.001},
			MaxAge:     5 * time.Hour,
		}, []string{"operation", "rejected", "type"}),
	}
}

// Describe and Collect make Metrics a prometheus.Collector.
func (m *Metrics) Describe(ch chan<- *prometheus.Desc) {
	m.plugins.Describe(ch)
	m.steps.Describe(ch)
	m.stepSummary.Describe(ch)
}

func (m *Metrics) Collect(ch chan<- prometheus.Metric) {
	m.plugins.Collect(ch)
	m.steps.Collect(ch)
	m.stepSummary.Collect(ch)
}

func (m *Metrics) observePlugin(name, step string, a *Attributes, err error, elapsed time.Duration) {
	if m == nil {
		return
	}
	m.plugins.WithLabelValues(name, string(a.Operation), strconv.FormatBool(err != nil), step).Observe(elapsed.Seconds())
}

func (m *Metrics) observeStep(step string, a *Attributes, err error, elapsed time.Duration) {
	if m == nil {
		return
	}
	labels := []string{string(a.Operation), strconv.FormatBool(err != nil), step}
	m.steps.WithLabelValues(labels...).Observe(elapsed.Seconds())
	m.stepSummary.WithLabelValues(labels...).Observe(elapsed.Seconds())
}
