package value

import (
	"container/list"
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/pkg/endpoints/request"
	"github.com/kapi-dev/kapi/pkg/metrics"
)

// Metrics are kube-apiserver's metrics of encryption at rest: every
// transformation by resource, direction, prefix and outcome, how long it
// took, the envelope providers' cache misses, and the KMS v2 key IDs in
// use (by their sha256, as kube-apiserver labels them). A nil *Metrics
// records nothing.
type Metrics struct {
	operations  *prometheus.CounterVec
	durations   *prometheus.HistogramVec
	cacheMisses prometheus.Counter

	keyIDs           *prometheus.CounterVec
	keyIDTimes       *prometheus.GaugeVec
	statusKeyIDTimes *prometheus.GaugeVec
	invalidKeyIDs    *prometheus.CounterVec
	kmsLatencies     *prometheus.HistogramVec
	dekSourceCache   *prometheus.GaugeVec
	serverHash       string
	// usedKeyIDs and statusKeyIDs keep the label sets of the key-ID
	// series, the most recent 100 of each, as kube-apiserver does: a
	// plugin that rotates often does not grow /metrics without end.
	usedKeyIDs, statusKeyIDs *recentLabels
}

// maxKeyIDSeries is how many key-ID label sets kube-apiserver keeps.
const maxKeyIDSeries = 100

// NewMetrics returns unregistered metrics of the server named serverID
// (its apiserver identity).
func NewMetrics(serverID string) *Metrics {
	m := &Metrics{
		operations: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_storage_transformation_operations_total",
			Help: "[ALPHA] Total number of transformations. Successful transformation will have a status 'OK' and a varied status string when the transformation fails. " +
				"The status, resource, and transformation_type fields can be used for alerting purposes. For example, you can monitor for encryption/decryption failures using the transformation_type " +
				"(e.g., from_storage for decryption and to_storage for encryption). Additionally, these fields can be used to ensure that the correct transformers are applied to each resource.",
		}, []string{"resource", "transformation_type", "transformer_prefix", "status"}),
		durations: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "apiserver_storage_transformation_duration_seconds",
			Help:    "[ALPHA] Latencies in seconds of value transformation operations.",
			Buckets: prometheus.ExponentialBuckets(5e-6, 2, 25),
		}, []string{"transformation_type", "transformer_prefix"}),
		cacheMisses: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "apiserver_storage_envelope_transformation_cache_misses_total",
			Help: "[ALPHA] Total number of cache misses while accessing key decryption key(KEK).",
		}),
		keyIDs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_envelope_encryption_key_id_hash_total",
			Help: "[ALPHA] Number of times a keyID is used split by transformation type, provider, and apiserver identity.",
		}, []string{"transformation_type", "provider_name", "key_id_hash", "apiserver_id_hash"}),
		keyIDTimes: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "apiserver_envelope_encryption_key_id_hash_last_timestamp_seconds",
			Help: "[ALPHA] The last time in seconds when a keyID was used.",
		}, []string{"transformation_type", "provider_name", "key_id_hash", "apiserver_id_hash"}),
		statusKeyIDTimes: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "apiserver_envelope_encryption_key_id_hash_status_last_timestamp_seconds",
			Help: "[ALPHA] The last time in seconds when a keyID was returned by the Status RPC call.",
		}, []string{"provider_name", "key_id_hash", "apiserver_id_hash"}),
		invalidKeyIDs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_envelope_encryption_invalid_key_id_from_status_total",
			Help: "[ALPHA] Number of times an invalid keyID is returned by the Status RPC call split by error.",
		}, []string{"provider_name", "error"}),
		kmsLatencies: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "apiserver_envelope_encryption_kms_operations_latency_seconds",
			Help: "[ALPHA] KMS operation duration with gRPC error code status total.",
			// kube-apiserver's: 0.1ms doubling to about 52s.
			Buckets: prometheus.ExponentialBuckets(0.0001, 2, 20),
		}, []string{"provider_name", "method_name", "grpc_status_code"}),
		dekSourceCache: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "apiserver_envelope_encryption_dek_source_cache_size",
			Help: "[ALPHA] Number of records in data encryption key (DEK) source cache. On a restart, this value is an approximation of the number of decrypt RPC calls the server will make to the KMS plugin.",
		}, []string{"provider_name"}),
		serverHash: metrics.Hash(serverID),
	}
	m.usedKeyIDs = newRecentLabels(maxKeyIDSeries, func(l []string) {
		m.keyIDs.DeleteLabelValues(l...)
		m.keyIDTimes.DeleteLabelValues(l...)
	})
	m.statusKeyIDs = newRecentLabels(maxKeyIDSeries, func(l []string) { m.statusKeyIDTimes.DeleteLabelValues(l...) })
	return m
}

func (m *Metrics) collectors() []prometheus.Collector {
	return []prometheus.Collector{m.operations, m.durations, m.cacheMisses, m.keyIDs, m.keyIDTimes, m.statusKeyIDTimes, m.invalidKeyIDs,
		m.kmsLatencies, m.dekSourceCache}
}

// Describe implements prometheus.Collector.
func (m *Metrics) Describe(ch chan<- *prometheus.Desc) {
	for _, c := range m.collectors() {
		c.Describe(ch)
	}
}

// Collect implements prometheus.Collector.
func (m *Metrics) Collect(ch chan<- prometheus.Metric) {
	m.usedKeyIDs.mu.Lock()
	defer m.usedKeyIDs.mu.Unlock()
	m.statusKeyIDs.mu.Lock()
	defer m.statusKeyIDs.mu.Unlock()
	for _, c := range m.collectors() {
		c.Collect(ch)
	}
}

// KeyIDRead records that provider read a value written under the
// plugin's key keyID.
func (m *Metrics) KeyIDRead(provider, keyID string) { m.keyIDUsed(fromStorage, provider, keyID) }

// KeyIDWritten records that provider wrote a value under the plugin's
// key keyID.
func (m *Metrics) KeyIDWritten(provider, keyID string) { m.keyIDUsed(toStorage, provider, keyID) }

func (m *Metrics) keyIDUsed(direction, provider, keyID string) {
	if m == nil {
		return
	}
	labels := []string{direction, provider, metrics.Hash(keyID), m.serverHash}
	m.usedKeyIDs.add(labels, func() {
		m.keyIDs.WithLabelValues(labels...).Inc()
		m.keyIDTimes.WithLabelValues(labels...).SetToCurrentTime()
	})
}

// KeyIDFromStatus records that provider's plugin named keyID as its
// current key in a Status answer.
func (m *Metrics) KeyIDFromStatus(provider, keyID string) {
	if m == nil {
		return
	}
	labels := []string{provider, metrics.Hash(keyID), m.serverHash}
	m.statusKeyIDs.add(labels, func() { m.statusKeyIDTimes.WithLabelValues(labels...).SetToCurrentTime() })
}

// InvalidKeyIDFromStatus counts a Status answer of provider's plugin
// whose key ID is invalid, by kube-apiserver's code: "empty" or
// "too_long".
func (m *Metrics) InvalidKeyIDFromStatus(provider, code string) {
	if m != nil {
		m.invalidKeyIDs.WithLabelValues(provider, code).Inc()
	}
}

// KMSCall records one call of provider's plugin: method is the gRPC
// method ("/v2.KeyManagementService/Encrypt"), err its outcome.
func (m *Metrics) KMSCall(provider, method string, elapsed time.Duration, err error) {
	if m != nil {
		m.kmsLatencies.WithLabelValues(provider, method, statusOf(err)).Observe(elapsed.Seconds())
	}
}

// DEKSourceCacheSize records how many decrypted data-key sources
// provider keeps.
func (m *Metrics) DEKSourceCacheSize(provider string, n int) {
	if m != nil {
		m.dekSourceCache.WithLabelValues(provider).Set(float64(n))
	}
}

// recentLabels is a set of label sets that forgets (and deletes the
// series of) the least recently used one beyond its size.
type recentLabels struct {
	mu     sync.Mutex
	size   int
	order  *list.List // of []string, most recent first
	index  map[string]*list.Element
	forget func([]string)
}

func newRecentLabels(size int, forget func([]string)) *recentLabels {
	return &recentLabels{size: size, order: list.New(), index: map[string]*list.Element{}, forget: forget}
}

// add marks labels used and records the use with record, under the lock
// Collect takes, so that a forgotten series is never half there.
func (r *recentLabels) add(labels []string, record func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	key := strings.Join(labels, "\x00")
	if e, ok := r.index[key]; ok {
		r.order.MoveToFront(e)
	} else {
		r.index[key] = r.order.PushFront(labels)
		if r.order.Len() > r.size {
			last := r.order.Back()
			r.order.Remove(last)
			old := last.Value.([]string)
			delete(r.index, strings.Join(old, "\x00"))
			r.forget(old)
		}
	}
	record()
}

// The directions of a transformation.
const (
	fromStorage = "from_storage"
	toStorage   = "to_storage"
)

// observe records one transformation of the resource the request of ctx
// is about.
func (m *Metrics) observe(ctx context.Context, direction, prefix string, elapsed time.Duration, err error) {
	if m == nil {
		return
	}
	var resource schema.GroupResource
	if info, ok := request.RequestInfoFrom(ctx); ok {
		resource = schema.GroupResource{Group: info.APIGroup, Resource: info.Resource}
	}
	m.operations.WithLabelValues(resource.String(), direction, prefix, statusOf(err)).Inc()
	if err == nil {
		m.durations.WithLabelValues(direction, prefix).Observe(elapsed.Seconds())
	}
}

// CacheMiss counts a value whose data key an envelope provider had to ask
// its KMS plugin to decrypt.
func (m *Metrics) CacheMiss() {
	if m != nil {
		m.cacheMisses.Inc()
	}
}

// statusOf is the status label of a transformation: "OK", the gRPC code
// of a KMS plugin's error, or "unknown-non-grpc" for any other failure.
func statusOf(err error) string {
	if err == nil {
		return codes.OK.String()
	}
	var s interface{ GRPCStatus() *status.Status }
	if errors.As(err, &s) {
		return s.GRPCStatus().Code().String()
	}
	return "unknown-non-grpc"
}
