package value

import (
	"context"
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/pkg/endpoints/request"
)

// Metrics are kube-apiserver's metrics of encryption at rest: every
// transformation by resource, direction, prefix and outcome, how long it
// took, and the envelope providers' cache misses. A nil *Metrics records
// nothing.
type Metrics struct {
	operations  *prometheus.CounterVec
	durations   *prometheus.HistogramVec
	cacheMisses prometheus.Counter
}

// NewMetrics returns unregistered metrics.
func NewMetrics() *Metrics {
	return &Metrics{
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
	}
}

// Describe implements prometheus.Collector.
func (m *Metrics) Describe(ch chan<- *prometheus.Desc) {
	m.operations.Describe(ch)
	m.durations.Describe(ch)
	m.cacheMisses.Describe(ch)
}

// Collect implements prometheus.Collector.
func (m *Metrics) Collect(ch chan<- prometheus.Metric) {
	m.operations.Collect(ch)
	m.durations.Collect(ch)
	m.cacheMisses.Collect(ch)
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
