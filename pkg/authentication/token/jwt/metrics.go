package jwt

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kapi-dev/kapi/pkg/metrics"
)

// Metrics are kube-apiserver's metrics of its JWT authenticators: how
// long the verification of a token of a configured issuer took, and when
// each issuer's key set (JWKS) was last fetched, and what it was. One
// Metrics serves every authenticator of a server; a nil *Metrics records
// nothing.
type Metrics struct {
	latency    *prometheus.HistogramVec
	fetchTimes *prometheus.GaugeVec
	keySetInfo *prometheus.Desc
	serverHash string

	mu      sync.Mutex
	keySets map[string]string // issuer hash -> hash of its last fetched key set
}

// NewMetrics returns unregistered metrics of the server named serverID
// (its apiserver identity).
func NewMetrics(serverID string) *Metrics {
	return &Metrics{
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "apiserver_authentication_jwt_authenticator_latency_seconds",
			Help: "[ALPHA] Latency of jwt authentication operations in seconds. This is the time spent authenticating a token for cache miss only (i.e. when the token is not found in the cache).",
			// kube-apiserver's: the default buckets from 1ms.
			Buckets: []float64{.001, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"result", "jwt_issuer_hash"}),
		fetchTimes: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "apiserver_authentication_jwt_authenticator_jwks_fetch_last_timestamp_seconds",
			Help: "[ALPHA] Timestamp of the last successful or failed JWKS fetch split by result, api server identity and jwt issuer for the JWT authenticator.",
		}, []string{"result", "jwt_issuer_hash", "apiserver_id_hash"}),
		keySetInfo: prometheus.NewDesc("apiserver_authentication_jwt_authenticator_jwks_fetch_last_key_set_info",
			"[ALPHA] Information about the last JWKS fetched by the JWT authenticator with hash as label, split by api server identity and jwt issuer.",
			[]string{"jwt_issuer_hash", "apiserver_id_hash", "hash"}, nil),
		serverHash: metrics.Hash(serverID),
		keySets:    map[string]string{},
	}
}

// authenticated records one verification of a token of issuer: a token
// of another issuer is not counted, as in kube-apiserver.
func (m *Metrics) authenticated(issuer string, ok bool, elapsed time.Duration) {
	if m == nil {
		return
	}
	result := "success"
	if !ok {
		result = "failure"
	}
	m.latency.WithLabelValues(result, metrics.Hash(issuer)).Observe(elapsed.Seconds())
}

// fetched records a fetch of issuer's key set: keySet is the document
// fetched, nil if the fetch failed or did not hold a key set.
func (m *Metrics) fetched(issuer string, keySet []byte) {
	if m == nil {
		return
	}
	issuerHash := metrics.Hash(issuer)
	result := "failure"
	if keySet != nil {
		result = "success"
		m.mu.Lock()
		m.keySets[issuerHash] = metrics.Hash(string(keySet))
		m.mu.Unlock()
	}
	m.fetchTimes.WithLabelValues(result, issuerHash, m.serverHash).SetToCurrentTime()
}

// Forget drops the key-set series of an issuer no longer configured (its
// latencies stay, as kube-apiserver's do).
func (m *Metrics) Forget(issuer string) {
	if m == nil {
		return
	}
	issuerHash := metrics.Hash(issuer)
	m.mu.Lock()
	delete(m.keySets, issuerHash)
	m.mu.Unlock()
	for _, result := range []string{"success", "failure"} {
		m.fetchTimes.DeleteLabelValues(result, issuerHash, m.serverHash)
	}
}

// Describe implements prometheus.Collector.
func (m *Metrics) Describe(ch chan<- *prometheus.Desc) {
	m.latency.Describe(ch)
	m.fetchTimes.Describe(ch)
	ch <- m.keySetInfo
}

// Collect implements prometheus.Collector.
func (m *Metrics) Collect(ch chan<- prometheus.Metric) {
	m.latency.Collect(ch)
	m.fetchTimes.Collect(ch)
	m.mu.Lock()
	defer m.mu.Unlock()
	for issuerHash, hash := range m.keySets {
		ch <- prometheus.MustNewConstMetric(m.keySetInfo, prometheus.GaugeValue, 1, issuerHash, m.serverHash, hash)
	}
}
