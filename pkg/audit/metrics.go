package audit

import (
	"context"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// Metrics are kube-apiserver's audit metrics: events sent to backends
// (apiserver_audit_event_total), events a backend failed to store or a
// full buffer dropped (apiserver_audit_error_total, by plugin), the
// levels the policy chose (apiserver_audit_level_total) and the requests
// refused because their event could not be stored
// (apiserver_audit_requests_rejected_total).
type Metrics struct {
	events   prometheus.Counter
	errors   *prometheus.CounterVec
	levels   *prometheus.CounterVec
	rejected prometheus.Counter
}

// NewMetrics returns unregistered metrics.
func NewMetrics() *Metrics {
	return &Metrics{
		events: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "apiserver_audit_event_total",
			Help: "[ALPHA] Counter of audit events generated and sent to the audit backend.",
		}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_audit_error_total",
			Help: "[ALPHA] Counter of audit events that failed to be audited properly. Plugin identifies the plugin affected by the error.",
		}, []string{"plugin"}),
		levels: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_audit_level_total",
			Help: "[ALPHA] Counter of policy levels for audit events (1 per request).",
		}, []string{"level"}),
		rejected: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "apiserver_audit_requests_rejected_total",
			Help: "[ALPHA] Counter of apiserver requests rejected due to an error in audit logging backend.",
		}),
	}
}

// ObserveLevel counts the level the policy chose for a request. A nil
// Metrics counts nothing.
func (m *Metrics) ObserveLevel(l Level) {
	if m != nil {
		m.levels.WithLabelValues(string(l)).Inc()
	}
}

// RequestRejected counts a request refused because its first event could
// not be stored. A nil Metrics counts nothing.
func (m *Metrics) RequestRejected() {
	if m != nil {
		m.rejected.Inc()
	}
}

// AddErrors counts n events plugin failed to store.
func (m *Metrics) AddErrors(plugin string, n int) { m.errors.WithLabelValues(plugin).Add(float64(n)) }

// Errors is the count of events plugin failed to store.
func (m *Metrics) Errors(plugin string) float64 {
	var d dto.Metric
	if err := m.errors.WithLabelValues(plugin).Write(&d); err != nil {
		return 0
	}
	return d.GetCounter().GetValue()
}

// Describe implements prometheus.Collector.
func (m *Metrics) Describe(ch chan<- *prometheus.Desc) {
	m.events.Describe(ch)
	m.errors.Describe(ch)
	m.levels.Describe(ch)
	m.rejected.Describe(ch)
}

// Collect implements prometheus.Collector.
func (m *Metrics) Collect(ch chan<- prometheus.Metric) {
	m.events.Collect(ch)
	m.errors.Collect(ch)
	m.levels.Collect(ch)
	m.rejected.Collect(ch)
}

// Counted counts the events handed to b.
func Counted(b Backend, m *Metrics) Backend { return counted{b, m} }

type counted struct {
	Backend
	m *Metrics
}

func (c counted) ProcessEvents(events ...*Event) bool {
	c.m.events.Add(float64(len(events)))
	return c.Backend.ProcessEvents(events...)
}

func (c counted) Run(ctx context.Context) error { return c.Backend.Run(ctx) }
