package metrics

import (
	"crypto/sha256"
	"fmt"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

// Hash is how kube-apiserver puts an identity, an issuer, a key ID or a
// configuration into a label: "sha256:" and the hex digest, or "" for
// nothing.
func Hash(data string) string {
	if data == "" {
		return ""
	}
	return fmt.Sprintf("sha256:%x", sha256.Sum256([]byte(data)))
}

// Results of a configuration reload, the status label.
const (
	ReloadSuccess = "success"
	ReloadFailure = "failure"
)

// ConfigReloadOpts name the three families kube-apiserver keeps of a
// configuration file it reloads automatically:
// <Prefix>_automatic_reloads_total, <Prefix>_automatic_reload_last_timestamp_seconds
// (both by status and apiserver_id_hash) and <Prefix>_last_config_info
// (apiserver_id_hash and the hash of the configuration in use).
type ConfigReloadOpts struct {
	// Prefix is e.g. "apiserver_authentication_config_controller".
	Prefix string
	// The help texts, stability prefix included ("[ALPHA] ...").
	ReloadsHelp, TimestampHelp, InfoHelp string
}

// ConfigReloads are the reload metrics of one configuration file of one
// server. It is a prometheus.Collector; a nil *ConfigReloads records
// nothing.
type ConfigReloads struct {
	reloads    *prometheus.CounterVec
	timestamps *prometheus.GaugeVec
	info       *prometheus.Desc
	serverHash string

	mu         sync.Mutex
	configHash string // "" until a configuration is in use
}

// NewConfigReloads returns unregistered reload metrics of the server
// named serverID (its apiserver identity).
func NewConfigReloads(opts ConfigReloadOpts, serverID string) *ConfigReloads {
	return &ConfigReloads{
		reloads: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: opts.Prefix + "_automatic_reloads_total",
			Help: opts.ReloadsHelp,
		}, []string{"status", "apiserver_id_hash"}),
		timestamps: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: opts.Prefix + "_automatic_reload_last_timestamp_seconds",
			Help: opts.TimestampHelp,
		}, []string{"status", "apiserver_id_hash"}),
		info:       prometheus.NewDesc(opts.Prefix+"_last_config_info", opts.InfoHelp, []string{"apiserver_id_hash", "hash"}, nil),
		serverHash: Hash(serverID),
	}
}

// InUse records the configuration now in use, by the hash of its
// content ("sha256:<hex>"): at start, and after a successful reload.
func (m *ConfigReloads) InUse(configHash string) {
	if m == nil {
		return
	}
	m.mu.Lock()
	m.configHash = configHash
	m.mu.Unlock()
}

// Reloaded counts an automatic reload that replaced the configuration
// in use by one whose content hashes to configHash.
func (m *ConfigReloads) Reloaded(configHash string) {
	if m == nil {
		return
	}
	m.reloads.WithLabelValues(ReloadSuccess, m.serverHash).Inc()
	m.timestamps.WithLabelValues(ReloadSuccess, m.serverHash).SetToCurrentTime()
	m.InUse(configHash)
}

// ReloadFailed counts an automatic reload that left the configuration
// in use as it was.
func (m *ConfigReloads) ReloadFailed() {
	if m == nil {
		return
	}
	m.reloads.WithLabelValues(ReloadFailure, m.serverHash).Inc()
	m.timestamps.WithLabelValues(ReloadFailure, m.serverHash).SetToCurrentTime()
}

// Describe implements prometheus.Collector.
func (m *ConfigReloads) Describe(ch chan<- *prometheus.Desc) {
	m.reloads.Describe(ch)
	m.timestamps.Describe(ch)
	ch <- m.info
}

// Collect implements prometheus.Collector: last_config_info is one
// series, of the configuration in use.
func (m *ConfigReloads) Collect(ch chan<- prometheus.Metric) {
	m.reloads.Collect(ch)
	m.timestamps.Collect(ch)
	m.mu.Lock()
	hash := m.configHash
	m.mu.Unlock()
	if hash != "" {
		ch <- prometheus.MustNewConstMetric(m.info, prometheus.GaugeValue, 1, m.serverHash, hash)
	}
}
