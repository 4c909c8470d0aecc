package metrics

import (
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// timingRatioVec is kube-apiserver's "timing ratio histogram": a
// histogram of a ratio (numerator / denominator) observed at the end of
// every nanosecond. Each bucket accumulates the nanoseconds the ratio
// spent at or below its bound, the sum is the integral of the ratio
// over time in nanoseconds, and the count the nanoseconds observed.
// Nothing is observed per event, so a change costs the same however
// often it happens; the time since the last change is added when the
// value changes or is collected.
type timingRatioVec struct {
	desc   *prometheus.Desc
	bounds []float64
	now    func() time.Time

	mu       sync.Mutex
	children map[string]*timingRatio
	order    []*timingRatio
}

func newTimingRatioVec(name, help string, bounds []float64, constLabels prometheus.Labels, now func() time.Time, labels ...string) *timingRatioVec {
	return &timingRatioVec{
		desc:     prometheus.NewDesc(name, help, labels, constLabels),
		bounds:   bounds,
		now:      now,
		children: map[string]*timingRatio{},
	}
}

// timingRatio is one series of a timingRatioVec. Its methods are
// guarded by the vec's lock.
type timingRatio struct {
	labels                 []string
	last                   time.Time
	numerator, denominator float64
	// buckets[i] counts nanoseconds at or below bounds[i] and above
	// bounds[i-1]; the last one those above every bound.
	buckets []uint64
	sum     float64
}

// with returns the series of the label values, creating it with the
// given initial numerator and denominator.
func (v *timingRatioVec) with(numerator, denominator float64, labels ...string) *timingRatio {
	key := strings.Join(labels, "\xff")
	v.mu.Lock()
	defer v.mu.Unlock()
	if c, ok := v.children[key]; ok {
		return c
	}
	c := &timingRatio{
		labels:      labels,
		last:        v.now(),
		numerator:   numerator,
		denominator: denominator,
		buckets:     make([]uint64, len(v.bounds)+1),
	}
	v.children[key] = c
	v.order = append(v.order, c)
	return c
}

func (v *timingRatioVec) advanceLocked(c *timingRatio) {
	now := v.now()
	dt := now.Sub(c.last)
	if dt <= 0 {
		return
	}
	c.last = now
	x := c.numerator / c.denominator
	c.buckets[sort.SearchFloat64s(v.bounds, x)] += uint64(dt)
	c.sum += float64(dt) * x
}

func (v *timingRatioVec) set(c *timingRatio, numerator float64) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.advanceLocked(c)
	c.numerator = numerator
}

func (v *timingRatioVec) add(c *timingRatio, delta float64) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.advanceLocked(c)
	c.numerator += delta
}

// setDenominator changes the denominator; one of zero or less is
// ignored, so that the ratio stays finite.
func (v *timingRatioVec) setDenominator(c *timingRatio, denominator float64) {
	if denominator <= 0 {
		return
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	v.advanceLocked(c)
	c.denominator = denominator
}

// Describe implements prometheus.Collector.
func (v *timingRatioVec) Describe(ch chan<- *prometheus.Desc) { ch <- v.desc }

// Collect implements prometheus.Collector.
func (v *timingRatioVec) Collect(ch chan<- prometheus.Metric) {
	v.mu.Lock()
	defer v.mu.Unlock()
	for _, c := range v.order {
		v.advanceLocked(c)
		cumulative := make(map[float64]uint64, len(v.bounds))
		var n uint64
		for i, b := range v.bounds {
			n += c.buckets[i]
			cumulative[b] = n
		}
		n += c.buckets[len(v.bounds)]
		ch <- prometheus.MustNewConstHistogram(v.desc, n, c.sum, cumulative, c.labels...)
	}
}
