package metrics

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// inflightWindow is the period over which apiserver_current_inflight_requests
// reports the highest concurrency.
const inflightWindow = time.Second

// inflightWatermark is the collector of apiserver_current_inflight_requests:
// per request kind, the highest number of requests executing at once in
// the last complete one-second window. The current count alone would miss
// the bursts the metric exists to show.
//
// kube-apiserver samples the watermark with a ticker goroutine. Here the
// windows roll forward lazily, whenever a count is observed or the metric
// is collected, so there is no goroutine to start or stop.
type inflightWatermark struct {
	desc *prometheus.Desc
	now  func() time.Time

	mu          sync.Mutex
	windowStart time.Time
	// Indexed by kindIndex.
	latest  [2]int // the count last observed
	highest [2]int // the highest count in the current window
	last    [2]int // the highest count in the last complete window
}

var inflightKinds = [2]string{ReadOnlyKind, MutatingKind}

func kindIndex(kind string) (int, bool) {
	for i, k := range inflightKinds {
		if k == kind {
			return i, true
		}
	}
	return 0, false
}

func newInflightWatermark(now func() time.Time) *inflightWatermark {
	return &inflightWatermark{
		desc: prometheus.NewDesc(
			"apiserver_current_inflight_requests",
			"[STABLE] Maximal number of currently used inflight request limit of this apiserver per request kind in last second.",
			[]string{"request_kind"}, nil),
		now:         now,
		windowStart: now(),
	}
}

func (w *inflightWatermark) observe(kind string, n int) {
	i, ok := kindIndex(kind)
	if !ok {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.roll()
	w.latest[i] = n
	w.highest[i] = max(w.highest[i], n)
}

// roll closes the current window if it has ended. A new window starts at
// the count that was executing when the old one ended: requests that span
// windows count in each of them.
func (w *inflightWatermark) roll() {
	elapsed := w.now().Sub(w.windowStart)
	switch {
	case elapsed < inflightWindow:
		return
	case elapsed < 2*inflightWindow:
		w.last = w.highest
		w.windowStart = w.windowStart.Add(inflightWindow)
	default:
		// Whole windows passed with no change: the count was constant.
		w.last = w.latest
		w.windowStart = w.now()
	}
	w.highest = w.latest
}

// Describe implements prometheus.Collector.
func (w *inflightWatermark) Describe(ch chan<- *prometheus.Desc) {
	ch <- w.desc
}

// Collect implements prometheus.Collector.
func (w *inflightWatermark) Collect(ch chan<- prometheus.Metric) {
	w.mu.Lock()
	w.roll()
	last := w.last
	w.mu.Unlock()
	for i, kind := range inflightKinds {
		ch <- prometheus.MustNewConstMetric(w.desc, prometheus.GaugeValue, float64(last[i]), kind)
	}
}
