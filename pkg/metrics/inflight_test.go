package metrics

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// fakeClock is a clock tests move by hand.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time                { return c.t }
func (c *fakeClock) step(d time.Duration)          { c.t = c.t.Add(d) }
func newFakeClock() *fakeClock                     { return &fakeClock{t: time.Unix(1000, 0)} }
func (c *fakeClock) watermark() *inflightWatermark { return newInflightWatermark(c.now) }

// reported returns what a scrape would show for each kind.
func reported(t *testing.T, w *inflightWatermark) (readOnly, mutating float64) {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(w)
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range families {
		for _, m := range mf.GetMetric() {
			switch m.GetLabel()[0].GetValue() {
			case ReadOnlyKind:
				readOnly = m.GetGauge().GetValue()
			case MutatingKind:
				mutating = m.GetGauge().GetValue()
			}
		}
	}
	return readOnly, mutating
}

func TestInflightWatermarkReportsTheHighestCountOfTheLastSecond(t *testing.T) {
	clock := newFakeClock()
	w := clock.watermark()

	// Nothing observed yet: both kinds are reported as 0.
	if ro, mu := reported(t, w); ro != 0 || mu != 0 {
		t.Fatalf("initially reported %v/%v, want 0/0", ro, mu)
	}

	// A burst to 5 read-only requests and back, and 2 mutating ones,
	// within the first second.
	for _, n := range []int{1, 2, 3, 4, 5, 4, 3} {
		w.observe(ReadOnlyKind, n)
	}
	w.observe(MutatingKind, 2)
	w.observe(MutatingKind, 1)
	// The window is not over: the previous (empty) one is reported.
	if ro, mu := reported(t, w); ro != 0 || mu != 0 {
		t.Fatalf("during the first window reported %v/%v, want 0/0", ro, mu)
	}

	clock.step(1500 * time.Millisecond)
	if ro, mu := reported(t, w); ro != 5 || mu != 2 {
		t.Fatalf("after the burst reported %v/%v, want 5/2", ro, mu)
	}

	// The next window starts at the counts still executing (3 and 1) and
	// sees no change.
	clock.step(time.Second)
	if ro, mu := reported(t, w); ro != 3 || mu != 1 {
		t.Fatalf("a quiet window later reported %v/%v, want 3/1", ro, mu)
	}

	// Many quiet windows later the counts are unchanged.
	clock.step(time.Minute)
	if ro, mu := reported(t, w); ro != 3 || mu != 1 {
		t.Fatalf("a minute later reported %v/%v, want 3/1", ro, mu)
	}

	// Everything finishes.
	w.observe(ReadOnlyKind, 0)
	w.observe(MutatingKind, 0)
	clock.step(time.Second)
	if ro, mu := reported(t, w); ro != 3 || mu != 1 {
		t.Fatalf("in the window where requests finished reported %v/%v, want 3/1", ro, mu)
	}
	clock.step(time.Second)
	if ro, mu := reported(t, w); ro != 0 || mu != 0 {
		t.Fatalf("after requests finished reported %v/%v, want 0/0", ro, mu)
	}
}

func TestInflightWatermarkIgnoresUnknownKinds(t *testing.T) {
	clock := newFakeClock()
	w := clock.watermark()
	w.observe("bogus", 7)
	clock.step(time.Second)
	if n := seriesCount(t, w); n != 2 {
		t.Errorf("collected %d series, want 2 (one per kind)", n)
	}
	if ro, mu := reported(t, w); ro != 0 || mu != 0 {
		t.Errorf("reported %v/%v, want 0/0", ro, mu)
	}
}
