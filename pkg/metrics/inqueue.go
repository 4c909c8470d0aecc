package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Watermark is a per-request-kind high watermark over one-second
// windows, as apiserver_current_inflight_requests is, for another
// series of the same shape.
type Watermark struct {
	w *inflightWatermark
}

// NewInqueueWatermark returns apiserver_current_inqueue_requests: the
// most requests of each kind waiting in API priority and fairness's
// queues at once in the last second. Only priority and fairness
// records it; its metrics register it.
func NewInqueueWatermark() *Watermark {
	w := newInflightWatermark(time.Now)
	w.desc = prometheus.NewDesc(
		"apiserver_current_inqueue_requests",
		"[ALPHA] Maximal number of queued requests in this apiserver per request kind in last second.",
		[]string{"request_kind"}, nil)
	return &Watermark{w: w}
}

// Observe records that n requests of kind (ReadOnlyKind or
// MutatingKind) are counted now.
func (w *Watermark) Observe(kind string, n int) { w.w.observe(kind, n) }

// Describe implements prometheus.Collector.
func (w *Watermark) Describe(ch chan<- *prometheus.Desc) { w.w.Describe(ch) }

// Collect implements prometheus.Collector.
func (w *Watermark) Collect(ch chan<- prometheus.Metric) { w.w.Collect(ch) }
