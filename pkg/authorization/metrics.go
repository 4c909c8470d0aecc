package authorization

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kapi-dev/kapi/pkg/authorization/authorizer"
	"github.com/kapi-dev/kapi/pkg/metrics"
)

// Metrics are kube-apiserver's metrics of the authorizers, with its
// names, help and labels: the terminal decisions of each configured
// authorizer, the webhooks' round trips and match conditions, and the
// reloads of --authorization-config. They are registered by whoever
// serves /metrics; a nil *Metrics records nothing.
type Metrics struct {
	decisions          *prometheus.CounterVec
	webhookEvaluations *prometheus.CounterVec
	webhookDurations   *prometheus.HistogramVec
	webhookFailOpen    *prometheus.CounterVec
	matchErrors        *prometheus.CounterVec
	matchExclusions    *prometheus.CounterVec
	matchDurations     *prometheus.HistogramVec
	// reloads are the apiserver_authorization_config_controller_*
	// families of --authorization-config.
	reloads *metrics.ConfigReloads
}

// NewMetrics returns unregistered metrics of the server named serverID
// (its apiserver identity).
func NewMetrics(serverID string) *Metrics {
	return &Metrics{
		decisions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_authorization_decisions_total",
			Help: "[ALPHA] Total number of terminal decisions made by an authorizer split by authorizer type, name, and decision.",
		}, []string{"type", "name", "decision"}),
		webhookEvaluations: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_authorization_webhook_evaluations_total",
			Help: "[ALPHA] Round-trips to authorization webhooks.",
		}, []string{"name", "result"}),
		webhookDurations: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "apiserver_authorization_webhook_duration_seconds",
			Help:    "[ALPHA] Request latency in seconds.",
			Buckets: prometheus.DefBuckets,
		}, []string{"name", "result"}),
		webhookFailOpen: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_authorization_webhook_evaluations_fail_open_total",
			Help: "[ALPHA] NoOpinion results due to webhook timeout or error.",
		}, []string{"name", "result"}),
		matchErrors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_authorization_match_condition_evaluation_errors_total",
			Help: "[ALPHA] Total number of errors when an authorization webhook encounters a match condition error split by authorizer type and name.",
		}, []string{"type", "name"}),
		matchExclusions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_authorization_match_condition_exclusions_total",
			Help: "[ALPHA] Total number of exclusions when an authorization webhook is skipped because match conditions exclude it.",
		}, []string{"type", "name"}),
		matchDurations: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "apiserver_authorization_match_condition_evaluation_seconds",
			Help:    "[ALPHA] Authorization match condition evaluation time in seconds, split by authorizer type and name.",
			Buckets: []float64{0.001, 0.005, 0.01, 0.025, 0.1, 0.2, 0.25},
		}, []string{"type", "name"}),
		reloads: metrics.NewConfigReloads(metrics.ConfigReloadOpts{
			Prefix:        "apiserver_authorization_config_controller",
			ReloadsHelp:   "[BETA] Total number of automatic reloads of authorization configuration split by status and apiserver identity.",
			TimestampHelp: "[BETA] Timestamp of the last automatic reload of authorization configuration split by status and apiserver identity.",
			InfoHelp:      "[ALPHA] Information about the last applied authorization configuration with hash as label, split by apiserver identity.",
		}, serverID),
	}
}

// IdentityHash is how kube-apiserver labels metrics with its identity:
// "sha256:" and the hex digest of it.
func IdentityHash(id string) string {
	return metrics.Hash(id)
}

func (m *Metrics) collectors() []prometheus.Collector {
	return []prometheus.Collector{m.decisions, m.webhookEvaluations, m.webhookDurations, m.webhookFailOpen,
		m.matchErrors, m.matchExclusions, m.matchDurations, m.reloads}
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

// WebhookEvaluated implements webhook.Observer.
func (m *Metrics) WebhookEvaluated(name, result string, elapsed time.Duration) {
	if m == nil {
		return
	}
	m.webhookEvaluations.WithLabelValues(name, result).Inc()
	m.webhookDurations.WithLabelValues(name, result).Observe(elapsed.Seconds())
}

// WebhookFailedOpen implements webhook.Observer.
func (m *Metrics) WebhookFailedOpen(name, result string) {
	if m == nil {
		return
	}
	m.webhookFailOpen.WithLabelValues(name, result).Inc()
}

// MatchConditionsEvaluated implements webhook.Observer; only webhooks
// have match conditions.
func (m *Metrics) MatchConditionsEvaluated(name string, excluded, failed bool, elapsed time.Duration) {
	if m == nil {
		return
	}
	m.matchDurations.WithLabelValues(ModeWebhook, name).Observe(elapsed.Seconds())
	switch {
	case failed:
		m.matchErrors.WithLabelValues(ModeWebhook, name).Inc()
	case excluded:
		m.matchExclusions.WithLabelValues(ModeWebhook, name).Inc()
	}
}

// inUse records the configuration file in use, by its content: at
// start and after each successful reload (last_config_info).
func (m *Metrics) inUse(data []byte) {
	if m != nil {
		m.reloads.InUse(metrics.Hash(string(data)))
	}
}

// reloaded counts a reload of the configuration file that changed it:
// data is the new chain's file, now in use.
func (m *Metrics) reloaded(data []byte) {
	if m != nil {
		m.reloads.Reloaded(metrics.Hash(string(data)))
	}
}

// reloadFailed counts a reload after which the old chain stays.
func (m *Metrics) reloadFailed() {
	if m != nil {
		m.reloads.ReloadFailed()
	}
}

// counted counts the terminal decisions of one configured authorizer
// (not of the system:masters and public-path shortcuts, which kube-
// apiserver does not count either).
type counted struct {
	authorizer.Authorizer
	typ, name string
	metrics   *Metrics
}

func (c counted) Authorize(ctx context.Context, attrs authorizer.Attributes) (authorizer.Decision, string, error) {
	d, reason, err := c.Authorizer.Authorize(ctx, attrs)
	switch d {
	case authorizer.DecisionAllow:
		c.metrics.decisions.WithLabelValues(c.typ, c.name, "allowed").Inc()
	case authorizer.DecisionDeny:
		c.metrics.decisions.WithLabelValues(c.typ, c.name, "denied").Inc()
	}
	return d, reason, err
}
