// Package objectcount keeps, for every resource, how many objects are
// stored and their average size, refreshed once a minute: what API
// priority and fairness needs to estimate what a list costs, and what the
// metrics apiserver_resource_objects and
// apiserver_resource_size_estimate_bytes export.
//
// kube-apiserver does the same: each resource's registry store polls its
// storage's Stats every minute and sets the tracker the work estimator
// reads. A count is stale three minutes after its last successful
// refresh (two or three failures), and the estimator then assumes the
// worst.
//
// Nothing here is on the request path: a Tracker reads storage from its
// own goroutine, and Get only reads a map.
package objectcount

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/pkg/storage"
)

// Defaults of kube-apiserver.
const (
	// DefaultPeriod is how often counts are refreshed
	// (kube-apiserver's CountMetricPollPeriod).
	DefaultPeriod = time.Minute
	// StaleAfter is how old a count may be before Get calls it stale.
	StaleAfter = 3 * time.Minute
)

var (
	// ErrUnknown is returned by Get for a resource whose objects have not
	// been counted: not tracked (a resource served by an extension API
	// server, or one that does not exist), or not counted yet.
	ErrUnknown = errors.New("object count not found for the given resource")
	// ErrStale is returned by Get, with the last count, when the count
	// has not been refreshed for StaleAfter.
	ErrStale = errors.New("object count has gone stale for the given resource")
)

// Tracker keeps the stats of the resources it tracks. Its methods are safe
// for concurrent use.
type Tracker struct {
	period time.Duration
	now    func() time.Time
	log    *slog.Logger

	// kick wakes the refresh loop for resources tracked since its last
	// round.
	kick chan struct{}

	mu        sync.RWMutex
	resources map[schema.GroupResource]*resource
}

// resource is one tracked resource.
type resource struct {
	// sources are the storages that count it, each with its key: a
	// resource with several stores (a custom resource served in several
	// versions) is counted through the first.
	sources []*source
	// counted is false until the first refresh, done out of turn.
	counted bool

	stats storage.Stats
	// updated is when stats were last read successfully; zero if never.
	updated time.Time
	// failed says that the last refresh failed: the metrics say -1.
	failed bool
}

type source struct {
	reader storage.StatsReader
	key    string
}

// Options configure a Tracker.
type Options struct {
	// Period is how often every resource is counted; 0 means
	// DefaultPeriod.
	Period time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Logger receives failed counts; nil discards them.
	Logger *slog.Logger
}

// New returns a Tracker; Run refreshes its counts.
func New(opts Options) *Tracker {
	if opts.Period <= 0 {
		opts.Period = DefaultPeriod
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	return &Tracker{
		period:    opts.Period,
		now:       opts.Now,
		log:       opts.Logger,
		kick:      make(chan struct{}, 1),
		resources: map[schema.GroupResource]*resource{},
	}
}

// Track counts the objects of gr below key through s, if s can count
// (implements storage.StatsReader), from the next round of Run on; a new
// resource is counted at once. The returned function stops tracking
// through s: once no storage counts gr, Get no longer knows it and its
// metrics are removed.
func (t *Tracker) Track(gr schema.GroupResource, s storage.Interface, key string) (stop func()) {
	reader, ok := s.(storage.StatsReader)
	if !ok {
		return func() {}
	}
	src := &source{reader: reader, key: key}
	t.mu.Lock()
	r := t.resources[gr]
	if r == nil {
		r = &resource{}
		t.resources[gr] = r
	}
	r.sources = append(r.sources, src)
	t.mu.Unlock()
	select {
	case t.kick <- struct{}{}:
	default:
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			t.mu.Lock()
			defer t.mu.Unlock()
			r := t.resources[gr]
			if r == nil {
				return
			}
			for i, s := range r.sources {
				if s == src {
					r.sources = append(r.sources[:i:i], r.sources[i+1:]...)
					break
				}
			}
			if len(r.sources) == 0 {
				delete(t.resources, gr)
			}
		})
	}
}

// Get returns the last stats of gr: ErrUnknown if it has none, ErrStale
// (with the stats) if they are older than StaleAfter.
func (t *Tracker) Get(gr schema.GroupResource) (storage.Stats, error) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	r := t.resources[gr]
	if r == nil || r.updated.IsZero() {
		return storage.Stats{}, ErrUnknown
	}
	if t.now().Sub(r.updated) > StaleAfter {
		return r.stats, ErrStale
	}
	return r.stats, nil
}

// Run counts every tracked resource each period, and new ones as they are
// tracked, until ctx ends.
func (t *Tracker) Run(ctx context.Context) {
	ticker := time.NewTicker(t.period)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.kick:
			t.refresh(ctx, false)
		case <-ticker.C:
			t.refresh(ctx, true)
		}
	}
}

// refresh counts every tracked resource (all), or those never counted.
func (t *Tracker) refresh(ctx context.Context, all bool) {
	type job struct {
		gr  schema.GroupResource
		src *source
	}
	var jobs []job
	t.mu.Lock()
	for gr, r := range t.resources {
		if all || !r.counted {
			r.counted = true
			jobs = append(jobs, job{gr, r.sources[0]})
		}
	}
	t.mu.Unlock()
	for _, j := range jobs {
		if ctx.Err() != nil {
			return
		}
		stats, err := j.src.reader.Stats(ctx, j.src.key)
		if err != nil {
			t.log.Debug("counting objects failed", "resource", j.gr.String(), "err", err)
		}
		t.mu.Lock()
		if r := t.resources[j.gr]; r != nil {
			r.failed = err != nil
			if err == nil {
				r.stats, r.updated = stats, t.now()
			}
		}
		t.mu.Unlock()
	}
}

// Collector returns the metrics of the tracked resources, as
// kube-apiserver 1.37 exports them (it no longer exports
// apiserver_storage_objects): a resource's series appear after its first
// count and are -1 while its last count failed.
func (t *Tracker) Collector() prometheus.Collector { return collector{t} }

var (
	objectsDesc = prometheus.NewDesc("apiserver_resource_objects",
		"[ALPHA] Number of stored objects at the time of last check split by kind. In case of a fetching error, the value will be -1.",
		[]string{"group", "resource"}, nil)
	sizeDesc = prometheus.NewDesc("apiserver_resource_size_estimate_bytes",
		"[ALPHA] Estimated size of stored objects in database. Estimate is based on sum of last observed sizes of serialized objects. In case of a fetching error, the value will be -1.",
		[]string{"group", "resource"}, nil)
)

type collector struct{ t *Tracker }

func (c collector) Describe(ch chan<- *prometheus.Desc) {
	ch <- objectsDesc
	ch <- sizeDesc
}

func (c collector) Collect(ch chan<- prometheus.Metric) {
	c.t.mu.RLock()
	defer c.t.mu.RUnlock()
	for gr, r := range c.t.resources {
		if !r.failed && r.updated.IsZero() {
			continue
		}
		objects, size := float64(r.stats.ObjectCount), float64(r.stats.ObjectCount*r.stats.EstimatedAverageObjectSizeBytes)
		if r.failed {
			objects, size = -1, -1
		} else if r.stats.ObjectCount > 0 && r.stats.EstimatedAverageObjectSizeBytes == 0 {
			size = -1
		}
		ch <- prometheus.MustNewConstMetric(objectsDesc, prometheus.GaugeValue, objects, gr.Group, gr.Resource)
		ch <- prometheus.MustNewConstMetric(sizeDesc, prometheus.GaugeValue, size, gr.Group, gr.Resource)
	}
}
