package objectcount_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/pkg/storage"
	"github.com/kapi-dev/kapi/pkg/storage/objectcount"
)

// counting is a storage that counts: its Stats are set by the test.
type counting struct {
	storage.Interface // not called

	mu    sync.Mutex
	stats storage.Stats
	err   error
	keys  []string
}

func (c *counting) Stats(_ context.Context, key string) (storage.Stats, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.keys = append(c.keys, key)
	return c.stats, c.err
}

func (c *counting) set(stats storage.Stats, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stats, c.err = stats, err
}

// clock is a clock the test moves.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

var configMaps = schema.GroupResource{Resource: "configmaps"}

// waitFor polls cond; the deadline only keeps a broken test from
// hanging.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// gathered returns the tracker's series as "name group/resource" ->
// value, and fails if a help text is not kube-apiserver 1.37.1's
// (recorded from its /metrics).
func gathered(t *testing.T, tr *objectcount.Tracker) map[string]float64 {
	t.Helper()
	reg := prometheus.NewRegistry()
	reg.MustRegister(tr.Collector())
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	help := map[string]string{
		"apiserver_resource_objects":             "[ALPHA] Number of stored objects at the time of last check split by kind. In case of a fetching error, the value will be -1.",
		"apiserver_resource_size_estimate_bytes": "[ALPHA] Estimated size of stored objects in database. Estimate is based on sum of last observed sizes of serialized objects. In case of a fetching error, the value will be -1.",
	}
	out := map[string]float64{}
	for _, f := range families {
		if f.GetHelp() != help[f.GetName()] {
			t.Errorf("help of %s = %q, want %q", f.GetName(), f.GetHelp(), help[f.GetName()])
		}
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			out[f.GetName()+" "+labels["group"]+"/"+labels["resource"]] = m.GetGauge().GetValue()
		}
	}
	return out
}

func series(objects, size float64) map[string]float64 {
	return map[string]float64{
		"apiserver_resource_objects /configmaps":             objects,
		"apiserver_resource_size_estimate_bytes /configmaps": size,
	}
}

func sameSeries(a, b map[string]float64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// A tracked resource is counted at once and then every period; a count
// that fails leaves the last one, which goes stale after three minutes,
// and sets the metrics to -1, as in kube-apiserver.
func TestTrackerCountsStalesAndForgets(t *testing.T) {
	clk := &clock{now: time.Unix(1_000_000, 0)}
	tr := objectcount.New(objectcount.Options{Period: time.Hour, Now: clk.Now})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go tr.Run(ctx)

	if _, err := tr.Get(configMaps); !errors.Is(err, objectcount.ErrUnknown) {
		t.Fatalf("Get of an untracked resource: err = %v, want ErrUnknown", err)
	}
	if m := gathered(t, tr); len(m) != 0 {
		t.Errorf("metrics of no resource: %v, want none", m)
	}

	s := &counting{stats: storage.Stats{ObjectCount: 5000, EstimatedAverageObjectSizeBytes: 1200}}
	stop := tr.Track(configMaps, s, "/configmaps")
	// Counted at once, although the period is an hour.
	waitFor(t, "the first count", func() bool { _, err := tr.Get(configMaps); return err == nil })
	got, _ := tr.Get(configMaps)
	if got != s.stats {
		t.Errorf("Get = %+v, want %+v", got, s.stats)
	}
	if s.keys[0] != "/configmaps" {
		t.Errorf("counted below %q, want /configmaps", s.keys[0])
	}
	if m, want := gathered(t, tr), series(5000, 5000*1200); !sameSeries(m, want) {
		t.Errorf("metrics = %v, want %v", m, want)
	}

	clk.advance(objectcount.StaleAfter + time.Second)
	if stale, err := tr.Get(configMaps); !errors.Is(err, objectcount.ErrStale) || stale != s.stats {
		t.Errorf("Get after %v without a count = %+v, %v; want the last stats and ErrStale", objectcount.StaleAfter, stale, err)
	}
	stop()
	if _, err := tr.Get(configMaps); !errors.Is(err, objectcount.ErrUnknown) {
		t.Errorf("Get after the resource is no longer tracked: err = %v, want ErrUnknown", err)
	}
	if m := gathered(t, tr); len(m) != 0 {
		t.Errorf("metrics after the resource is no longer tracked: %v, want none", m)
	}
}

func TestTrackerReportsFailedCountsAsMinusOne(t *testing.T) {
	tr := objectcount.New(objectcount.Options{Period: time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go tr.Run(ctx)

	s := &counting{stats: storage.Stats{ObjectCount: 3}} // size unknown
	tr.Track(configMaps, s, "/configmaps")
	waitFor(t, "the first count", func() bool { _, err := tr.Get(configMaps); return err == nil })
	if m, want := gathered(t, tr), series(3, -1); !sameSeries(m, want) {
		t.Errorf("metrics of objects without a size estimate = %v, want %v", m, want)
	}

	s.set(storage.Stats{}, errors.New("etcd unavailable"))
	waitFor(t, "a failed count", func() bool {
		return sameSeries(gathered(t, tr), series(-1, -1))
	})
	// The last good count is still served until it goes stale.
	if got, err := tr.Get(configMaps); err != nil || got.ObjectCount != 3 {
		t.Errorf("Get after a failed count = %+v, %v; want the last count, 3", got, err)
	}
}

// A resource with several stores (a custom resource in several versions)
// is known as long as one of them is tracked.
func TestTrackerKeepsAResourceWhileOneStoreTracksIt(t *testing.T) {
	tr := objectcount.New(objectcount.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go tr.Run(ctx)

	v1 := &counting{stats: storage.Stats{ObjectCount: 7}}
	v2 := &counting{stats: storage.Stats{ObjectCount: 7}}
	stopV1 := tr.Track(configMaps, v1, "/configmaps")
	stopV2 := tr.Track(configMaps, v2, "/configmaps")
	waitFor(t, "the first count", func() bool { _, err := tr.Get(configMaps); return err == nil })
	stopV1()
	stopV1()
	if _, err := tr.Get(configMaps); err != nil {
		t.Errorf("Get with one store left: %v", err)
	}
	stopV2()
	if _, err := tr.Get(configMaps); !errors.Is(err, objectcount.ErrUnknown) {
		t.Errorf("Get with no store left: err = %v, want ErrUnknown", err)
	}
}
