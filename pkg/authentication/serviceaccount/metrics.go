package serviceaccount

import "github.com/prometheus/client_golang/prometheus"

// Metrics are kube-apiserver's counts of the service-account tokens used,
// with its names and help. A nil *Metrics counts nothing.
type Metrics struct {
	// legacy counts tokens without an audience: legacy Secret tokens.
	legacy prometheus.Counter
	// stale and valid count bound tokens with a warnafter claim (the
	// extended tokens kubelets get), used after it and before it.
	stale, valid prometheus.Counter
	// auto, manual and invalidAuto count legacy tokens by their Secret:
	// one the account lists (made by the token controller), one made by
	// hand, and an auto-generated one marked invalid by the cleaner.
	auto, manual, invalidAuto prometheus.Counter
}

// NewMetrics returns unregistered metrics.
func NewMetrics() *Metrics {
	counter := func(name, help string) prometheus.Counter {
		return prometheus.NewCounter(prometheus.CounterOpts{Name: name, Help: help})
	}
	return &Metrics{
		legacy:      counter("serviceaccount_legacy_tokens_total", "[BETA] Cumulative legacy service account tokens used"),
		stale:       counter("serviceaccount_stale_tokens_total", "[BETA] Cumulative stale projected service account tokens used"),
		valid:       counter("serviceaccount_valid_tokens_total", "[BETA] Cumulative valid projected service account tokens used"),
		auto:        counter("serviceaccount_legacy_auto_token_uses_total", "[ALPHA] Cumulative auto-generated legacy tokens used"),
		manual:      counter("serviceaccount_legacy_manual_token_uses_total", "[ALPHA] Cumulative manually created legacy tokens used"),
		invalidAuto: counter("serviceaccount_invalid_legacy_auto_token_uses_total", "[ALPHA] Cumulative invalid auto-generated legacy tokens used"),
	}
}

func (m *Metrics) all() []prometheus.Counter {
	return []prometheus.Counter{m.legacy, m.stale, m.valid, m.auto, m.manual, m.invalidAuto}
}

// Describe implements prometheus.Collector.
func (m *Metrics) Describe(ch chan<- *prometheus.Desc) {
	for _, c := range m.all() {
		c.Describe(ch)
	}
}

// Collect implements prometheus.Collector.
func (m *Metrics) Collect(ch chan<- prometheus.Metric) {
	for _, c := range m.all() {
		c.Collect(ch)
	}
}

// usedLegacy counts a token without an audience.
func (m *Metrics) usedLegacy() {
	if m != nil {
		m.legacy.Inc()
	}
}

// usedExtended counts a bound token with a warnafter claim.
func (m *Metrics) usedExtended(stale bool) {
	switch {
	case m == nil:
	case stale:
		m.stale.Inc()
	default:
		m.valid.Inc()
	}
}

// legacySecret is where a legacy token comes from.
type legacySecret int

const (
	manualSecret legacySecret = iota
	autoSecret
	invalidatedSecret
)

// usedLegacySecret counts a legacy token by its Secret.
func (m *Metrics) usedLegacySecret(s legacySecret) {
	if m == nil {
		return
	}
	switch s {
	case manualSecret:
		m.manual.Inc()
	case autoSecret:
		m.auto.Inc()
	case invalidatedSecret:
		m.invalidAuto.Inc()
	}
}
