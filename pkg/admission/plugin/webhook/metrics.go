package webhook

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// The error_type label of apiserver_admission_webhook_rejection_count.
const (
	rejectionCallingWebhook = "calling_webhook_error"
	rejectionInternal       = "apiserver_internal_error"
	rejectionNoError        = "no_error"
)

// Metrics are kube-apiserver's metrics of admission webhooks, with its
// names, help and labels; both webhook plugins share one. A nil
// *Metrics records nothing.
type Metrics struct {
	latency         *prometheus.HistogramVec
	rejections      *prometheus.CounterVec
	failOpen        *prometheus.CounterVec
	requests        *prometheus.CounterVec
	conditionErrors *prometheus.CounterVec
	exclusions      *prometheus.CounterVec
	conditionTime   *prometheus.HistogramVec
}

// NewMetrics makes the metrics; register them with the server's
// registry.
func NewMetrics() *Metrics {
	return &Metrics{
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "apiserver_admission_webhook_admission_duration_seconds",
			Help:    "[STABLE] Admission webhook latency histogram in seconds, identified by name and broken out for each operation and API resource and type (validate or admit).",
			Buckets: []float64{0.005, 0.025, 0.1, 0.5, 1.0, 2.5, 10, 25},
		}, []string{"name", "type", "operation", "rejected"}),
		rejections: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_admission_webhook_rejection_count",
			Help: "[ALPHA] Admission webhook rejection count, identified by name and broken out for each admission type (validating or admit) and operation. Additional labels specify an error type (calling_webhook_error or apiserver_internal_error if an error occurred; no_error otherwise) and optionally a non-zero rejection code if the webhook rejects the request with an HTTP status code (honored by the apiserver when the code is greater or equal to 400). Codes greater than 600 are truncated to 600, to keep the metrics cardinality bounded.",
		}, []string{"name", "type", "operation", "error_type", "rejection_code"}),
		failOpen: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_admission_webhook_fail_open_count",
			Help: "[ALPHA] Admission webhook fail open count, identified by name and broken out for each admission type (validating or admit).",
		}, []string{"name", "type"}),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_admission_webhook_request_total",
			Help: "[ALPHA] Admission webhook request total, identified by name and broken out for each admission type (validating or admit) and operation. Additional labels specify whether the request was rejected or not and an HTTP status code. Codes greater than 600 are truncated to 600, to keep the metrics cardinality bounded.",
		}, []string{"name", "type", "operation", "code", "rejected"}),
		conditionErrors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_admission_match_condition_evaluation_errors_total",
			Help: "[ALPHA] Admission match condition evaluation errors count, identified by name of resource containing the match condition and broken out for each kind containing matchConditions (webhook or policy), operation and admission type (validate or admit).",
		}, []string{"name", "kind", "type", "operation"}),
		exclusions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_admission_match_condition_exclusions_total",
			Help: "[ALPHA] Admission match condition evaluation exclusions count, identified by name of resource containing the match condition and broken out for each kind containing matchConditions (webhook or policy), operation and admission type (validate or admit).",
		}, []string{"name", "kind", "type", "operation"}),
		conditionTime: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "apiserver_admission_match_condition_evaluation_seconds",
			Help:    "[ALPHA] Admission match condition evaluation time in seconds, identified by name and broken out for each kind containing matchConditions (webhook or policy), operation and type (validate or admit).",
			Buckets: []float64{0.001, 0.005, 0.01, 0.025, 0.1, 0.2, 0.25},
		}, []string{"name", "kind", "type", "operation"}),
	}
}

func (m *Metrics) collectors() []prometheus.Collector {
	return []prometheus.Collector{m.latency, m.rejections, m.failOpen, m.requests, m.conditionErrors, m.exclusions, m.conditionTime}
}

// Describe and Collect make Metrics a prometheus.Collector.
func (m *Metrics) Describe(ch chan<- *prometheus.Desc) {
	for _, c := range m.collectors() {
		c.Describe(ch)
	}
}

func (m *Metrics) Collect(ch chan<- prometheus.Metric) {
	for _, c := range m.collectors() {
		c.Collect(ch)
	}
}

func capCode(code int) string {
	if code > 600 {
		code = 600
	}
	return strconv.Itoa(code)
}

// ObserveCall records one call of h and its outcome: err is nil, a
// *CallError, a *Rejection, or another (internal) error; rejected says
// whether the write was refused because of it.
func (m *Metrics) ObserveCall(h *Hook, op string, elapsed time.Duration, err error, rejected bool) {
	if m == nil {
		return
	}
	code := 200
	switch e := err.(type) {
	case nil:
	case *CallError:
		code = int(e.Status.ErrStatus.Code)
		if rejected && !errors.Is(e.Reason, context.Canceled) {
			m.rejections.WithLabelValues(h.Name, h.Type(), op, rejectionCallingWebhook, capCode(code)).Inc()
		}
	case *Rejection:
		code = int(e.Status.ErrStatus.Code)
		m.rejections.WithLabelValues(h.Name, h.Type(), op, rejectionNoError, capCode(code)).Inc()
	default:
		code = 0
		m.rejections.WithLabelValues(h.Name, h.Type(), op, rejectionInternal, "0").Inc()
	}
	m.requests.WithLabelValues(h.Name, h.Type(), op, capCode(code), strconv.FormatBool(rejected)).Inc()
	m.latency.WithLabelValues(h.Name, h.Type(), op, strconv.FormatBool(rejected)).Observe(elapsed.Seconds())
}

// ObserveFailOpen records a failed call of h that let the write go on.
func (m *Metrics) ObserveFailOpen(h *Hook) {
	if m == nil {
		return
	}
	m.failOpen.WithLabelValues(h.Name, h.Type()).Inc()
}

// observeConditions records an evaluation of h's match conditions: its
// time, each condition that failed, and an exclusion when they did not
// match.
func (m *Metrics) observeConditions(h *Hook, op string, elapsed time.Duration, matched bool, err error, evalErrors int) {
	if m == nil || len(h.MatchConditions) == 0 {
		return
	}
	typ := "validating"
	if h.Mutating {
		typ = "admit"
	}
	m.ObserveConditions(h.Name, "webhook", typ, op, elapsed, evalErrors)
	if !matched && err == nil {
		m.exclusions.WithLabelValues(h.Name, "webhook", typ, op).Inc()
	}
}

// ObserveConditions records an evaluation of the match conditions of a
// webhook or policy (kind "webhook" or "policy") called name, of type
// typ, for a write's op: its time and the number of conditions that
// failed. The admission policy plugins record theirs here: kube-apiserver
// counts both in the same metrics.
func (m *Metrics) ObserveConditions(name, kind, typ, op string, elapsed time.Duration, evalErrors int) {
	if m == nil {
		return
	}
	if evalErrors > 0 {
		m.conditionErrors.WithLabelValues(name, kind, typ, op).Add(float64(evalErrors))
	}
	m.conditionTime.WithLabelValues(name, kind, typ, op).Observe(elapsed.Seconds())
}
