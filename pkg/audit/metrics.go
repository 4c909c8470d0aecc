package audit

import (
	"context"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// Metrics are kube-apiserver's audit metrics: events sent to backends
// (apiserver_audit_event_total) and events a backend failed to store or a
// full buffer dropped (apiserver_audit_error_total, by plugin).
type Metrics struct {
	events prometheus.Counter
	errors *prometheus.CounterVec
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
}

// Collect implements prometheus.Collector.
func (m *Metrics) Collect(ch chan<- prometheus.Metric) {
	m.events.Collect(ch)
	m.errors.Collect(ch)
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
