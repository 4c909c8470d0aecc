package podsecurity

import (
	"strconv"
	"strings"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kapi-dev/kapi/pkg/admission"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/podsecurity/policy"
)

// Metrics are the plugin's counters, with kube-apiserver's names, help
// and labels. Register it with the server's metrics registry.
type Metrics struct {
	evaluations *prometheus.CounterVec
	exemptions  *prometheus.CounterVec
	errors      *prometheus.CounterVec
}

// NewMetrics makes the plugin's counters.
func NewMetrics() *Metrics {
	m := &Metrics{
		evaluations: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "pod_security_evaluations_total",
			Help: "[ALPHA] Number of policy evaluations that occurred, not counting ignored or exempt requests.",
		}, []string{"decision", "policy_level", "policy_version", "mode", "request_operation", "resource", "subresource"}),
		exemptions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "pod_security_exemptions_total",
			Help: "[ALPHA] Number of exempt requests, not counting ignored or out of scope requests.",
		}, []string{"request_operation", "resource", "subresource"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "pod_security_errors_total",
			Help: "[ALPHA] Number of errors preventing normal evaluation. Non-fatal errors may result in the latest restricted profile being used for evaluation.",
		}, []string{"fatal", "request_operation", "resource", "subresource"}),
	}
	// kube-apiserver creates the series of its commonest requests up
	// front, so they show (as 0) before any request.
	for _, op := range []string{"create", "update"} {
		m.evaluations.WithLabelValues(allow, string(policy.Privileged), "latest", modeEnforce, op, "pod", "")
		m.exemptions.WithLabelValues(op, "pod", "")
		m.exemptions.WithLabelValues(op, "controller", "")
	}
	return m
}

// Describe and Collect make Metrics a prometheus.Collector.
func (m *Metrics) Describe(ch chan<- *prometheus.Desc) {
	m.evaluations.Describe(ch)
	m.exemptions.Describe(ch)
	m.errors.Describe(ch)
}

func (m *Metrics) Collect(ch chan<- prometheus.Metric) {
	m.evaluations.Collect(ch)
	m.exemptions.Collect(ch)
	m.errors.Collect(ch)
}

// The modes and decisions the evaluations count.
const (
	modeEnforce = "enforce"
	modeAudit   = "audit"
	modeWarn    = "warn"
	allow       = "allow"
	deny        = "deny"
)

func (m *Metrics) evaluation(decision string, lv policy.LevelVersion, mode string, a *admission.Attributes) {
	if m == nil {
		return
	}
	version := lv.Version.String()
	switch {
	case lv.Version.Latest() || lv.Level == policy.Privileged:
		version = "latest"
	case lv.Version.Minor() > policy.MaxVersion:
		version = "future"
	}
	m.evaluations.WithLabelValues(decision, string(lv.Level), version, mode, operationLabel(a), resourceLabel(a), a.Subresource).Inc()
}

func (m *Metrics) exemption(a *admission.Attributes) {
	if m != nil {
		m.exemptions.WithLabelValues(operationLabel(a), resourceLabel(a), a.Subresource).Inc()
	}
}

func (m *Metrics) error(fatal bool, a *admission.Attributes) {
	if m != nil {
		m.errors.WithLabelValues(strconv.FormatBool(fatal), operationLabel(a), resourceLabel(a), a.Subresource).Inc()
	}
}

func operationLabel(a *admission.Attributes) string { return strings.ToLower(string(a.Operation)) }

func resourceLabel(a *admission.Attributes) string {
	switch a.Resource.GroupResource() {
	case podsResource:
		return "pod"
	case namespacesResource:
		return "namespace"
	}
	return "controller"
}
