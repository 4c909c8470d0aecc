// Randomised consistency tests of the watch cache: concurrent writers
// change a small key space through the Cacher while many watchers, started
// at random moments with every kind of start (resourceVersion "0", "",
// SendInitialEvents, "now", a past resourceVersion), scope (everything, a
// namespace, one object), label and field selector (on an indexed field),
// bookmarks, voluntary reconnects and slow consumers, record what they
// receive. Each watcher's stream is then compared with etcd's own history
// of the prefix, read by a raw etcd watch started before the first write:
// it must be exactly the history after its start, in order, with nothing
// lost and nothing repeated, up to the write of an "end object" that the
// watcher sees, made for it after the writers are done.
//
// The seed of a run is logged; KAPI_CACHER_SEED=<n> replays the same
// operations and watcher plan (the interleaving of goroutines still
// varies). KAPI_CACHER_SOAK=1 runs bigger variants: more writers,
// watchers and writes, and a longer timeout, for example
//
//	KAPI_CACHER_SOAK=1 go test -race -run 'ExactlyEtcdHistory|SmallWindow|SlowWatchers' ./pkg/storage/cacher
//
// The two bugs these tests found (early bookmarks on watches passed on to
// etcd, and a start one revision before etcd's compaction) have
// regression tests at the end of this file.
package cacher_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kapi-dev/kapi/pkg/storage"
	"github.com/kapi-dev/kapi/pkg/storage/cacher"
	"github.com/kapi-dev/kapi/pkg/storage/etcd3"
)

// scenario is the shape of one randomised run.
type scenario struct {
	cfg               cacher.Config
	namespaces, names int
	writers, ops      int // ops per writer
	watchers          int // started at random moments during the writes
	slow              int // slow consumers, registered before the first write
	late              int // started after the last write, from past revisions
	// fromRVShare is the percentage of watchers that start from a past
	// resourceVersion.
	fromRVShare int
	// allow410 says the window is small enough for watches from a past
	// resourceVersion to be expired.
	allow410 bool
	// reconnectMax bounds how many events a reconnecting watcher reads
	// before it stops and watches again.
	reconnectMax int
	timeout      time.Duration
}

func soak() bool { return os.Getenv("KAPI_CACHER_SOAK") != "" }

// seed returns the run's seed: KAPI_CACHER_SEED if set, else a random one.
// It is logged either way.
func seed(t *testing.T) uint64 {
	t.Helper()
	s := rand.Uint64()
	if v := os.Getenv("KAPI_CACHER_SEED"); v != "" {
		var err error
		if s, err = strconv.ParseUint(v, 10, 64); err != nil {
			t.Fatalf("KAPI_CACHER_SEED=%q: %v", v, err)
		}
	}
	t.Logf("seed %d (replay with KAPI_CACHER_SEED=%d)", s, s)
	return s
}

func TestWatchersSeeExactlyEtcdHistory(t *testing.T) {
	sc := scenario{
		cfg:        cacher.Config{Capacity: 10000, BookmarkInterval: 5 * time.Millisecond, FreshnessTimeout: 20 * time.Second},
		namespaces: 3, names: 20,
		writers: 4, ops: 200,
		watchers:     60,
		fromRVShare:  40,
		reconnectMax: 40,
		timeout:      time.Minute,
	}
	if soak() {
		sc.namespaces, sc.names = 5, 40
		sc.writers, sc.ops = 8, 1000
		sc.watchers = 200
		sc.timeout = 15 * time.Minute
	}
	h := runScenario(t, seed(t), sc)
	if n := h.count410; n != 0 {
		t.Errorf("%d watchers got 410 though the window holds every event", n)
	}
}

// TestWatchersFromBeyondASmallWindowGetExpired: with a window of 16
// events, watches from old resourceVersions are expired, with exactly one
// ERROR event, 410 Expired, and nothing else, or passed on to etcd (as
// the Cacher's documentation says now, unlike kube-apiserver), which
// must then send exact history; the others still see exact history.
// After the writes, when the window is known and etcd has compacted half
// the history, a watch from the window must be served from it and one
// from before both the window and etcd's history must be expired.
func TestWatchersFromBeyondASmallWindowGetExpired(t *testing.T) {
	sc := scenario{
		cfg:        cacher.Config{Capacity: 16, MaxCapacity: 16, BookmarkInterval: 5 * time.Millisecond, FreshnessTimeout: 20 * time.Second},
		namespaces: 3, names: 20,
		writers: 4, ops: 100,
		watchers:     40,
		late:         24,
		fromRVShare:  70,
		allow410:     true,
		reconnectMax: 40,
		timeout:      time.Minute,
	}
	if soak() {
		sc.writers, sc.ops = 8, 600
		sc.watchers, sc.late = 160, 100
		sc.timeout = 15 * time.Minute
	}
	h := runScenario(t, seed(t), sc)
	if h.count410 == 0 {
		t.Error("no watcher got 410: the test did not exercise the expiry")
	}
}

// TestSlowWatchersResumeWithExactHistory: watchers that stop reading
// while many events happen are closed by the cache (WatcherBufferSize 8);
// watching again from the last resourceVersion they received, they end up
// with exact history if the window still holds it; if it does not, with
// exact history served by etcd, or a 410 after an exact prefix of the
// history.
func TestSlowWatchersResumeWithExactHistory(t *testing.T) {
	for _, tc := range []struct {
		name     string
		capacity int
	}{
		{"window holds them", 10000},
		{"window too small", 16},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := scenario{
				cfg: cacher.Config{Capacity: tc.capacity, MaxCapacity: tc.capacity, WatcherBufferSize: 8,
					BookmarkInterval: 5 * time.Millisecond, FreshnessTimeout: 20 * time.Second},
				namespaces: 2, names: 15,
				writers: 2, ops: 250,
				watchers:     8,
				slow:         4,
				fromRVShare:  40,
				allow410:     tc.capacity < 100,
				reconnectMax: 40,
				timeout:      time.Minute,
			}
			if soak() {
				sc.writers, sc.ops = 4, 800
				sc.watchers, sc.slow = 40, 16
				sc.timeout = 15 * time.Minute
			}
			h := runScenario(t, seed(t), sc)
			slowExpired := 0
			for _, r := range h.runs {
				if !r.spec.slow {
					continue
				}
				// The first stall of a slow watcher lasts until the cache
				// has dispatched firstStall events after the last one it
				// read, all for it: it must be closed, and its next watch
				// starts more than 16 events back.
				if r.closedByCache == 0 {
					t.Errorf("slow watcher %d was never closed by the cache", r.spec.id)
				}
				if r.status != nil {
					slowExpired++
				}
			}
			// Resuming from before the window, a slow watcher is served
			// by etcd, as the cacher's documentation says now, or
			// expired, as kube-apiserver does.
			if delegated := int(h.e.cacher.Stats().WatchesDelegated); tc.capacity < 100 && slowExpired+delegated < sc.slow {
				t.Errorf("%d slow watchers expired and %d watches passed on to etcd: want at least one of either per slow watcher (%d), "+
					"which fell %d events behind a window of %d", slowExpired, delegated, sc.slow, firstStall, tc.capacity)
			}
			if tc.capacity >= 100 && h.count410 != 0 {
				t.Errorf("%d watchers got 410 though the window holds every event", h.count410)
			}
			if n := h.e.cacher.Stats().WatchersTerminated; n < int64(sc.slow) {
				t.Errorf("Stats().WatchersTerminated = %d, want at least the %d slow watchers", n, sc.slow)
			}
		})
	}
}

// ---------------------------------------------------------------------
// Ground truth: etcd's history of the prefix.

// histEvent is one change of the prefix, as etcd reports it.
type histEvent struct {
	rev uint64
	typ watch.EventType // ADDED for a creation, MODIFIED, DELETED
	key string          // namespace/name
	// labels are those of the object after the change, or of its last
	// state for a deletion; prevLabels those before an update.
	labels, prevLabels labels.Set
}

// history is what a raw etcd watch of the prefix reports, in order.
type history struct {
	mu      sync.Mutex
	events  []histEvent
	err     error
	changed chan struct{}
}

// recordHistory watches the env's prefix in etcd itself, from revision
// after on, until ctx ends.
func recordHistory(ctx context.Context, e *env, after uint64) *history {
	h := &history{changed: make(chan struct{})}
	wch := e.client.Watch(ctx, e.etcdPrefix, clientv3.WithPrefix(), clientv3.WithPrevKV(), clientv3.WithRev(int64(after)+1))
	go func() {
		last := after
		for resp := range wch {
			var batch []histEvent
			err := resp.Err()
			for _, ev := range resp.Events {
				if err != nil {
					break
				}
				var he histEvent
				he, err = decodeHistEvent(e.etcdPrefix, ev)
				if err == nil && he.rev <= last {
					err = fmt.Errorf("etcd event at revision %d after one at %d", he.rev, last)
				}
				last = he.rev
				batch = append(batch, he)
			}
			h.mu.Lock()
			h.events = append(h.events, batch...)
			if err != nil && ctx.Err() == nil {
				h.err = err
			}
			close(h.changed)
			h.changed = make(chan struct{})
			h.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	return h
}

func decodeHistEvent(prefix string, ev *clientv3.Event) (histEvent, error) {
	he := histEvent{rev: uint64(ev.Kv.ModRevision), key: strings.TrimPrefix(string(ev.Kv.Key), prefix)}
	var err error
	switch {
	case ev.Type == clientv3.EventTypeDelete:
		he.typ = watch.Deleted
		if ev.PrevKv == nil {
			return he, fmt.Errorf("deletion of %s at %d without its previous state", he.key, he.rev)
		}
		he.labels, err = decodeLabels(ev.PrevKv.Value)
	case ev.IsCreate():
		he.typ = watch.Added
		he.labels, err = decodeLabels(ev.Kv.Value)
	default:
		he.typ = watch.Modified
		if ev.PrevKv == nil {
			return he, fmt.Errorf("update of %s at %d without its previous state", he.key, he.rev)
		}
		if he.labels, err = decodeLabels(ev.Kv.Value); err == nil {
			he.prevLabels, err = decodeLabels(ev.PrevKv.Value)
		}
	}
	return he, err
}

func decodeLabels(value []byte) (labels.Set, error) {
	obj, _, err := codec.Decode(value, nil, &corev1.ConfigMap{})
	if err != nil {
		return nil, err
	}
	return labels.Set(obj.(*corev1.ConfigMap).Labels), nil
}

// snapshot returns the events so far; the slice is never modified.
func (h *history) snapshot() []histEvent {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.events[:len(h.events):len(h.events)]
}

// waitUntil waits until cond holds for the events so far.
func (h *history) waitUntil(ctx context.Context, cond func([]histEvent) bool) error {
	for {
		h.mu.Lock()
		events, err, changed := h.events[:len(h.events):len(h.events)], h.err, h.changed
		h.mu.Unlock()
		if cond(events) {
			return nil
		}
		if err != nil {
			return err
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return fmt.Errorf("etcd history: %w", ctx.Err())
		}
	}
}

// seenAs is what watcher s sees of the event, as the cacher documents it:
// entering its selection is ADDED, leaving it DELETED, staying in it
// MODIFIED.
func (he histEvent) seenAs(s *watcherSpec) (watch.EventType, bool) {
	if he.typ != watch.Modified {
		return he.typ, s.matches(he.key, he.labels)
	}
	switch cur, prev := s.matches(he.key, he.labels), s.matches(he.key, he.prevLabels); {
	case cur && prev:
		return watch.Modified, true
	case cur:
		return watch.Added, true
	case prev:
		return watch.Deleted, true
	}
	return "", false
}

// ---------------------------------------------------------------------
// A counter that can be waited on.

type counter struct {
	mu      sync.Mutex
	n       int
	done    bool
	changed chan struct{}
}

func newCounter() *counter { return &counter{changed: make(chan struct{})} }

func (c *counter) update(f func()) {
	c.mu.Lock()
	f()
	close(c.changed)
	c.changed = make(chan struct{})
	c.mu.Unlock()
}

func (c *counter) add()    { c.update(func() { c.n++ }) }
func (c *counter) finish() { c.update(func() { c.done = true }) }

func (c *counter) isDone() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.done
}

// wait waits until the count reaches n or the counter is finished.
func (c *counter) wait(ctx context.Context, n int) {
	for {
		c.mu.Lock()
		ok, changed := c.n >= n || c.done, c.changed
		c.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return
		}
	}
}

// ---------------------------------------------------------------------
// Watchers.

type startKind int

const (
	fromZero          startKind = iota // "0": the state, then live events
	fromEmpty                          // "": the consistent state, then live events
	fromInitialEvents                  // SendInitialEvents: the state, a bookmark, live events
	fromNow                            // "0" without initial events
	fromRV                             // a past resourceVersion
)

func (k startKind) String() string {
	return [...]string{"rv=0", "rv=\"\"", "sendInitialEvents", "rv=0,sendInitialEvents=false", "rv=N"}[k]
}

type watcherSpec struct {
	id   int
	kind startKind
	// consistent asks a fromInitialEvents watch with resourceVersion "".
	consistent bool
	// ns, if set, restricts the watch to a namespace; name, if also set,
	// to one object (a non-recursive watch).
	ns, name string
	// labelSel and fieldSel select objects ("" for everything); pred
	// is the predicate they make.
	labelSel, fieldSel string
	pred               storage.SelectionPredicate
	// endKey (namespace/name) is the object whose write in the end round
	// ends the watcher's history, written with label color=endColor,
	// which the watcher selects.
	endKey, endColor string
	progressNotify   bool
	// reconnect: stop after a random number of events and watch again
	// from the last resourceVersion received.
	reconnect bool
	// slow: stop reading every so often until the cache has dispatched
	// more events (firstStall the first time).
	slow bool
	// early watchers are registered before the first write; the others
	// once launchAt writes are done.
	early    bool
	launchAt int
	// rv is where a fromRV watch starts; late watchers have it chosen in
	// advance, the others choose it when they start.
	rv   uint64
	late bool
}

func (s *watcherSpec) String() string {
	scope := "all"
	switch {
	case s.name != "":
		scope = s.ns + "/" + s.name
	case s.ns != "":
		scope = s.ns + "/*"
	}
	out := fmt.Sprintf("watcher %d (%s", s.id, s.kind)
	if s.kind == fromRV {
		out += fmt.Sprintf(" %d", s.rv)
	}
	if s.kind == fromInitialEvents {
		out += fmt.Sprintf(" consistent=%v", s.consistent)
	}
	out += ", scope " + scope
	if s.labelSel != "" {
		out += ", labels " + s.labelSel
	}
	if s.fieldSel != "" {
		out += ", fields " + s.fieldSel
	}
	for _, f := range []struct {
		on   bool
		name string
	}{{s.progressNotify, "bookmarks"}, {s.reconnect, "reconnects"}, {s.slow, "slow"}, {s.early, "early"}, {s.late, "late"}} {
		if f.on {
			out += ", " + f.name
		}
	}
	return out + ")"
}

func (s *watcherSpec) inScope(key string) bool {
	switch {
	case s.name != "":
		return key == s.ns+"/"+s.name
	case s.ns != "":
		return strings.HasPrefix(key, s.ns+"/")
	}
	return true
}

// evt is what the comparison looks at in an event.
type evt struct {
	Type watch.EventType
	Key  string // namespace/name
	RV   uint64
}

func (e evt) String() string { return fmt.Sprintf("%s %s@%d", e.Type, e.Key, e.RV) }

// watchRun is what one watcher received, across its reconnects.
type watchRun struct {
	spec *watcherSpec
	// lo and hi bound the revision S the events are relative to: the
	// initial state is the state at S, the live events those after S. A
	// watch from a resourceVersion, or whose initial events end with a
	// bookmark, knows S (lo == hi); one from "0" or "" only that it is
	// between etcd's revision before the Watch call (or the cache's
	// first list for "0") and after it.
	lo, hi   uint64
	initial  bool // got starts with the initial state as ADDED events
	nInitial int  // how many, when a bookmark said so; -1 otherwise
	got      []evt
	// finished: the watcher saw the end of its history, the history up to
	// endRV; end says how.
	finished bool
	endRV    uint64
	end      string
	// status is the ERROR event that ended the run, if one did, from the
	// watch of resourceVersion statusAsked, the run's statusAttempt-th
	// Watch call, after statusAfter events of that watch.
	status                     *metav1.Status
	statusAsked                uint64
	statusAttempt, statusAfter int
	problems                   []string

	watches, resumes, closedByCache, restarts, bookmarks int
}

func (r *watchRun) problem(format string, args ...any) {
	r.problems = append(r.problems, fmt.Sprintf(format, args...))
}

// ---------------------------------------------------------------------
// The harness.

var colors = []string{"red", "blue", "green", ""}

// labelSelectors all select color=red.
var labelSelectors = []string{"color=red", "color in (red,green)", "color!=blue", "color"}

// fieldSelectors select on the fields of colorAttrs; "color" and
// "metadata.name" are indexed by the cache. The %s is a namespace, the %02d a
// name's number.
var fieldSelectors = []string{"color=red", "color!=blue", "color=blue", "metadata.name=cm%02d", "metadata.namespace=%s", "color=red,metadata.namespace=%s"}

// colorAttrs are the selectable fields of the test's ConfigMaps: their
// name, namespace and label "color" (empty if they have none), which is
// indexed.
func colorAttrs(obj runtime.Object) (labels.Set, fields.Set, error) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, nil, err
	}
	return labels.Set(m.GetLabels()), fields.Set{
		"metadata.name": m.GetName(), "metadata.namespace": m.GetNamespace(), "color": m.GetLabels()["color"],
	}, nil
}

// matches reports whether s selects the object at key (namespace/name)
// with labels l.
func (s *watcherSpec) matches(key string, l labels.Set) bool {
	ns, name, _ := strings.Cut(key, "/")
	return s.pred.Label.Matches(l) && s.pred.Field.Matches(fields.Set{"metadata.name": name, "metadata.namespace": ns, "color": l["color"]})
}

// markerName is the name of the end object of watchers that do not
// select a name.
const markerName = "zz-marker"

type harness struct {
	t    *testing.T
	sc   scenario
	seed uint64
	e    *env
	// base is etcd's revision before the first write; the prefix is empty
	// there.
	base       uint64
	namespaces []string
	hist       *history
	writes     *counter     // write attempts done
	written    atomic.Int64 // writes that changed etcd
	// endFrom is etcd's revision before the end round: a watcher's
	// history ends with the first event of its end object after it.
	// endRev is the revision of the end round's last write.
	endFrom, endRev atomic.Uint64

	runs     []*watchRun
	count410 int
}

func runScenario(t *testing.T, seed uint64, sc scenario) *harness {
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), sc.timeout)
	defer cancel()
	sc.cfg.GetAttrs, sc.cfg.IndexedFields = colorAttrs, []string{"color", "metadata.name"}
	h := &harness{t: t, sc: sc, seed: seed, e: newEnv(t, sc.cfg), writes: newCounter()}
	for i := range sc.namespaces {
		h.namespaces = append(h.namespaces, fmt.Sprintf("ns%d", i))
	}
	h.e.list(t, storage.ListOptions{}) // the cache is filled
	h.base = h.e.currentRV(t)
	histCtx, stopHist := context.WithCancel(ctx)
	defer stopHist()
	h.hist = recordHistory(histCtx, h.e, h.base)

	specs := h.plan()
	runs := make([]*watchRun, len(specs))
	var registered, done sync.WaitGroup
	launch := func(i int) {
		registered.Add(1)
		done.Add(1)
		go func() {
			defer done.Done()
			var once sync.Once
			runs[i] = h.watch(ctx, specs[i], func() { once.Do(registered.Done) })
			once.Do(registered.Done)
		}()
	}
	// Early watchers are in place before the first write.
	for i, s := range specs {
		if s.early {
			launch(i)
		}
	}
	registered.Wait()
	for i, s := range specs {
		if !s.early && !s.late {
			launch(i)
		}
	}

	var (
		writersDone sync.WaitGroup
		writeErrs   = make(chan error, sc.writers)
	)
	for i := range sc.writers {
		writersDone.Go(func() {
			n, err := h.writer(ctx, i)
			h.written.Add(int64(n))
			if err != nil {
				writeErrs <- err
			}
		})
	}
	writersDone.Wait()
	h.writes.finish()
	close(writeErrs)
	for err := range writeErrs {
		t.Error(err)
	}
	// Every watcher has made its first Watch call before the end round.
	registered.Wait()
	h.endRound(ctx, specs, 1)
	done.Wait()

	var lateRuns []*watchRun
	if sc.late > 0 {
		lateRuns = h.late(ctx, len(specs))
	}
	hist := h.wholeHistory(ctx)
	last := hist[len(hist)-1].rev

	h.runs = append(runs, lateRuns...)
	failed := 0
	var stats struct{ events, resumes, closed, restarts, bookmarks int }
	for _, r := range h.runs {
		if r.status != nil {
			h.count410++
		}
		stats.events += len(r.got)
		stats.resumes += r.resumes
		stats.closed += r.closedByCache
		stats.restarts += r.restarts
		stats.bookmarks += r.bookmarks
		if err := h.check(r, hist, last); err != nil {
			failed++
			if failed <= 5 {
				t.Errorf("%v", err)
			}
		}
	}
	if failed > 5 {
		t.Errorf("... and %d more watchers diverged", failed-5)
	}
	t.Logf("%d etcd events (revisions %d..%d), %d watchers: %d events, %d bookmarks, %d voluntary reconnects, "+
		"%d closed by the cache, %d restarts from scratch, %d got 410; cache stats %+v; %v",
		len(hist), h.base+1, last, len(h.runs), stats.events, stats.bookmarks, stats.resumes,
		stats.closed, stats.restarts, h.count410, h.e.cacher.Stats(), time.Since(start).Round(time.Millisecond))
	return h
}

// endRound ends the history of the watchers of specs: after setting
// endFrom, it writes their end objects one after the other, each in the
// color a watcher waiting for it selects, so that each watcher sees a
// write of its end object.
func (h *harness) endRound(ctx context.Context, specs []*watcherSpec, round int) {
	t := h.t
	type write struct{ key, color string }
	var writes []write
	for _, s := range specs {
		if w := (write{s.endKey, s.endColor}); !slices.Contains(writes, w) {
			writes = append(writes, w)
		}
	}
	slices.SortFunc(writes, func(a, b write) int { return strings.Compare(a.key+" "+a.color, b.key+" "+b.color) })
	from, err := h.etcdRev(ctx)
	if err != nil {
		t.Fatal(err)
	}
	h.endFrom.Store(from)
	for i, w := range writes {
		ns, name, _ := strings.Cut(w.key, "/")
		out := &corev1.ConfigMap{}
		err := h.e.cacher.GuaranteedUpdate(ctx, key(ns, name), out, true, nil,
			func(cur runtime.Object, _ storage.ResponseMeta) (runtime.Object, error) {
				cm := cur.(*corev1.ConfigMap).DeepCopy()
				cm.Namespace, cm.Name = ns, name
				cm.Labels = map[string]string{"color": w.color}
				cm.Data = map[string]string{"v": fmt.Sprintf("end%d-%d", round, i)}
				return cm, nil
			})
		if err != nil {
			t.Fatalf("writing the end object %s: %v", w.key, err)
		}
		h.written.Add(1)
		h.endRev.Store(rvOf(t, out))
	}
}

// wholeHistory returns etcd's history of the prefix once it has every
// write, checking that it has no other.
func (h *harness) wholeHistory(ctx context.Context) []histEvent {
	t := h.t
	end := h.endRev.Load()
	if err := h.hist.waitUntil(ctx, func(evs []histEvent) bool { return len(evs) > 0 && evs[len(evs)-1].rev >= end }); err != nil {
		t.Fatalf("waiting for etcd's history to reach %d: %v", end, err)
	}
	hist := h.hist.snapshot()
	if int64(len(hist)) != h.written.Load() {
		t.Fatalf("etcd's watch reported %d events, the writers made %d writes", len(hist), h.written.Load())
	}
	return hist
}

// plan draws the watchers.
func (h *harness) plan() []*watcherSpec {
	rng := rand.New(rand.NewPCG(h.seed, 0))
	total := h.sc.writers * h.sc.ops
	var specs []*watcherSpec
	for i := range h.sc.watchers + h.sc.slow {
		s := &watcherSpec{id: i, launchAt: rng.IntN(total)}
		if i >= h.sc.watchers {
			// Slow watchers start before the writes, from the empty
			// prefix, so that everything they fall behind on is queued;
			// they watch everything, so that every event takes room in
			// their queue, however the cache filters.
			s.slow, s.early, s.kind, s.rv = true, true, fromRV, h.base
		} else {
			if p := rng.IntN(100); p < h.sc.fromRVShare {
				s.kind = fromRV
			} else {
				s.kind = []startKind{fromZero, fromEmpty, fromInitialEvents, fromNow}[rng.IntN(4)]
			}
			s.early = rng.IntN(10) == 0
			switch p := rng.IntN(100); {
			case p < 10:
				s.ns = h.namespaces[rng.IntN(len(h.namespaces))]
				s.name = fmt.Sprintf("cm%02d", rng.IntN(h.sc.names))
			case p < 50:
				s.ns = h.namespaces[rng.IntN(len(h.namespaces))]
			}
			h.drawSelectors(rng, s)
			s.progressNotify = rng.IntN(100) < 40
			s.reconnect = rng.IntN(100) < 35
			s.consistent = rng.IntN(2) == 0
		}
		h.finishSpec(s)
		specs = append(specs, s)
	}
	return specs
}

// late runs watchers from past revisions after the writes, when the
// cache's window is known (the cache has every event, so its window is
// the last Capacity of them), and after etcd has compacted the first half
// of the history. A watch from a revision in the window is served from
// it; one from before both the window and etcd's history can only be
// expired: exactly one ERROR event, 410. In between, the cache may pass
// the watch on to etcd, which has the history (as its documentation says
// now), or expire it (as kube-apiserver does): either is accepted, as long
// as what is served is exact.
func (h *harness) late(ctx context.Context, firstID int) []*watchRun {
	t := h.t
	hist := h.wholeHistory(ctx)
	h.e.list(t, storage.ListOptions{}) // the cache has every event
	capacity := h.sc.cfg.Capacity
	if h.sc.cfg.MaxCapacity != capacity {
		t.Fatal("late watchers need a window that does not grow: MaxCapacity == Capacity")
	}
	if s := h.e.cacher.Stats(); s.Relists != 0 {
		t.Fatalf("the cache re-listed (%d times): its window is not the last %d events", s.Relists, capacity)
	}
	if len(hist) < 2*capacity+10 {
		t.Fatalf("%d events: too few for a window of %d", len(hist), capacity)
	}
	final := hist[len(hist)-1].rev
	// The oldest resourceVersions the window, and etcd, can serve a
	// watch from.
	cacheFloor := hist[len(hist)-capacity-1].rev
	compacted := hist[len(hist)/2].rev
	if _, err := h.e.client.Compact(ctx, int64(compacted)); err != nil {
		t.Fatalf("compacting etcd at %d: %v", compacted, err)
	}
	// The etcd3 store serves watches from compacted on; one from
	// compacted-1 too unless its first event needs the compacted state
	// before it, and then it is expired.
	etcdFloor := compacted

	rng := rand.New(rand.NewPCG(h.seed, 1))
	var specs []*watcherSpec
	// The boundaries, watching everything, then random ones.
	boundaries := []uint64{cacheFloor - 1, cacheFloor, cacheFloor + 1, etcdFloor - 1, etcdFloor + 1, h.base}
	for i := range max(h.sc.late, len(boundaries)) {
		s := &watcherSpec{id: firstID + i, kind: fromRV, late: true}
		if i < len(boundaries) {
			s.rv = boundaries[i]
			h.finishSpec(s)
			specs = append(specs, s)
			continue
		}
		switch p := rng.IntN(100); {
		case p < 10:
			s.rv = h.base
		case p < 35:
			s.rv = cacheFloor + uint64(rng.IntN(5)) - 2
		case p < 60:
			s.rv = etcdFloor + uint64(rng.IntN(5)) - 2
		default:
			s.rv = h.base + uint64(rng.IntN(int(final-h.base)))
		}
		s.rv = min(s.rv, final-1)
		h.drawSelectors(rng, s)
		h.finishSpec(s)
		specs = append(specs, s)
	}

	runs := make([]*watchRun, len(specs))
	var registered, done sync.WaitGroup
	for i, s := range specs {
		registered.Add(1)
		done.Go(func() {
			var once sync.Once
			runs[i] = h.watch(ctx, s, func() { once.Do(registered.Done) })
			once.Do(registered.Done)
		})
	}
	registered.Wait()
	h.endRound(ctx, specs, 2)
	done.Wait()
	var served, expired, passedOn, expiredBetween int
	for _, r := range runs {
		switch n := r.spec.rv; {
		case n >= cacheFloor:
			served++
			if r.status != nil {
				t.Errorf("%v: expired, though the window has every event after %d: %+v", r.spec, cacheFloor, *r.status)
			}
		case n < etcdFloor-1:
			expired++
			if r.status == nil {
				t.Errorf("%v: not expired, though the window starts after %d and etcd's history after %d", r.spec, cacheFloor, etcdFloor)
			} else if m := r.status.Message; m != fmt.Sprintf("too old resource version: %d (%d)", n, cacheFloor) &&
				m != fmt.Sprintf("too old resource version: %d (%d)", n, etcdFloor) {
				t.Errorf("%v: message %q, want \"too old resource version: %d (<%d or %d>)\"", r.spec, m, n, cacheFloor, etcdFloor)
			}
		case r.status != nil:
			expiredBetween++
		default:
			passedOn++
		}
	}
	t.Logf("late watchers, window after %d, etcd's history after %d: %d from the window, %d expired; in between, %d served by etcd, %d expired",
		cacheFloor, etcdFloor, served, expired, passedOn, expiredBetween)
	return runs
}

func (h *harness) drawSelectors(rng *rand.Rand, s *watcherSpec) {
	if rng.IntN(100) < 30 {
		s.labelSel = labelSelectors[rng.IntN(len(labelSelectors))]
	}
	if rng.IntN(100) < 25 {
		// Selectors that agree with the scope, so that the watcher may
		// see something.
		s.fieldSel = fieldSelectors[rng.IntN(len(fieldSelectors))]
		switch ns := s.ns; {
		case strings.Contains(s.fieldSel, "%s"):
			if ns == "" {
				ns = h.namespaces[rng.IntN(len(h.namespaces))]
			}
			s.fieldSel = fmt.Sprintf(s.fieldSel, ns)
		case strings.Contains(s.fieldSel, "%02d"):
			s.fieldSel = fmt.Sprintf(s.fieldSel, rng.IntN(h.sc.names))
			if s.name != "" {
				s.fieldSel = "metadata.name=" + s.name
			}
		case s.fieldSel == "color=blue" && s.labelSel != "color":
			s.labelSel = ""
		}
	}
}

func (h *harness) finishSpec(s *watcherSpec) {
	s.pred = storage.SelectionPredicate{Label: labels.Everything(), Field: fields.Everything(), GetAttrs: colorAttrs}
	var err error
	if s.labelSel != "" {
		if s.pred.Label, err = labels.Parse(s.labelSel); err != nil {
			h.t.Fatal(err)
		}
	}
	if s.fieldSel != "" {
		if s.pred.Field, err = fields.ParseSelector(s.fieldSel); err != nil {
			h.t.Fatal(err)
		}
	}
	// The end object: one in scope that the selectors allow, written in
	// a color they select.
	ns, name := s.ns, s.name
	if v, ok := s.pred.Field.RequiresExactMatch("metadata.namespace"); ok {
		ns = v
	}
	if v, ok := s.pred.Field.RequiresExactMatch("metadata.name"); ok {
		name = v
	}
	if ns == "" {
		ns = h.namespaces[len(h.namespaces)-1]
	}
	if name == "" {
		name = markerName
	}
	s.endKey, s.endColor = ns+"/"+name, "red"
	if v, ok := s.pred.Field.RequiresExactMatch("color"); ok {
		s.endColor = v
	}
	if !s.inScope(s.endKey) || !s.matches(s.endKey, labels.Set{"color": s.endColor}) {
		h.t.Fatalf("%v does not see its end object %s in color %s", s, s.endKey, s.endColor)
	}
	if s.kind == fromInitialEvents {
		// The end of the initial events is told by a bookmark.
		s.progressNotify = true
	}
}

// writer makes sc.ops random writes and returns how many changed etcd.
func (h *harness) writer(ctx context.Context, i int) (int, error) {
	rng := rand.New(rand.NewPCG(h.seed, uint64(100+i)))
	randomLabels := func() map[string]string {
		if c := colors[rng.IntN(len(colors))]; c != "" {
			return map[string]string{"color": c}
		}
		return nil
	}
	written := 0
	for op := range h.sc.ops {
		ns := h.namespaces[rng.IntN(len(h.namespaces))]
		name := fmt.Sprintf("cm%02d", rng.IntN(h.sc.names))
		k := key(ns, name)
		var err error
		switch p := rng.IntN(100); {
		case p < 35:
			cm := configMap(ns, name, randomLabels(), map[string]string{"v": fmt.Sprintf("w%d-%d", i, op)})
			if err = h.e.cacher.Create(ctx, k, cm, &corev1.ConfigMap{}); storage.IsExist(err) {
				err, written = nil, written-1
			}
		case p < 80:
			lbls := randomLabels()
			err = h.e.cacher.GuaranteedUpdate(ctx, k, &corev1.ConfigMap{}, false, nil,
				func(cur runtime.Object, _ storage.ResponseMeta) (runtime.Object, error) {
					cm := cur.(*corev1.ConfigMap).DeepCopy()
					cm.Labels = lbls
					cm.Data = map[string]string{"v": fmt.Sprintf("w%d-%d", i, op)}
					return cm, nil
				})
			if storage.IsNotFound(err) {
				err, written = nil, written-1
			}
		default:
			if err = h.e.cacher.Delete(ctx, k, &corev1.ConfigMap{}, nil, nil); storage.IsNotFound(err) {
				err, written = nil, written-1
			}
		}
		if err != nil {
			return written, fmt.Errorf("writer %d, op %d on %s: %w", i, op, k, err)
		}
		written++
		h.writes.add()
	}
	return written, nil
}

func (h *harness) etcdRev(ctx context.Context) (uint64, error) {
	return h.e.cacher.CurrentResourceVersion(ctx)
}

// watch runs one watcher until it has seen the end of the history, got an
// ERROR event, or ctx ends. registered is called once its first Watch
// call has returned.
func (h *harness) watch(ctx context.Context, s *watcherSpec, registered func()) *watchRun {
	rng := rand.New(rand.NewPCG(h.seed, uint64(1000+s.id)))
	r := &watchRun{spec: s, nInitial: -1}
	if !s.early && !s.late {
		h.writes.wait(ctx, s.launchAt)
	}
	key, recursive := "/configmaps", true
	if s.ns != "" {
		key += "/" + s.ns
		if s.name != "" {
			key += "/" + s.name
			recursive = false
		}
	}

	if s.kind == fromRV && s.rv == 0 {
		hist := h.hist.snapshot()
		switch p := rng.IntN(4); {
		case p == 0 || len(hist) == 0:
			s.rv = h.base
		case p == 1:
			s.rv = hist[rng.IntN(len(hist))].rev
		case p == 2:
			s.rv = hist[len(hist)-1].rev
		default:
			rv, err := h.etcdRev(ctx)
			if err != nil {
				registered()
				r.problem("current revision: %v", err)
				return r
			}
			s.rv = rv
		}
	}
	first := storage.ListOptions{Recursive: recursive, Predicate: s.pred, ProgressNotify: s.progressNotify}
	yes, no := true, false
	switch s.kind {
	case fromZero:
		first.ResourceVersion = "0"
	case fromEmpty:
		first.ResourceVersion = ""
	case fromInitialEvents:
		first.SendInitialEvents = &yes
		first.ResourceVersionMatch = string(metav1.ResourceVersionMatchNotOlderThan)
		if !s.consistent {
			first.ResourceVersion = "0"
		}
	case fromNow:
		first.ResourceVersion = "0"
		first.SendInitialEvents = &no
	case fromRV:
		first.ResourceVersion = rvString(s.rv)
	}

	var (
		opts      storage.ListOptions
		restarted bool // the run started again from scratch
		// bookmarkEnd: the run started again after the end round had
		// begun, so its end object may be in its initial state or
		// before its start; a bookmark at or after the end round ends
		// it instead.
		bookmarkEnd bool
		scratch     bool   // opts is first
		liveKnown   bool   // the initial events, if any, are over: lastRV is where to resume
		lastRV      uint64 // where to resume, once liveKnown
		maxRV       uint64 // of the events received
		lastBM      uint64 // of the last bookmark received
		sinceStall  int
		stallEvery  = 1 + rng.IntN(3)
		stalls      int
	)
	begin := func() {
		opts, scratch = first, true
		r.got, r.nInitial, maxRV, lastBM, lastRV = nil, -1, 0, 0, 0
		r.initial = s.kind == fromZero || s.kind == fromEmpty || s.kind == fromInitialEvents
		// Only a watch from a resourceVersion knows where it starts; a
		// "now" watch learns it from its first event or bookmark.
		liveKnown = s.kind == fromRV
		if s.kind == fromRV {
			lastRV, r.lo, r.hi = s.rv, s.rv, s.rv
		}
	}
	resume := func() {
		opts = storage.ListOptions{Recursive: recursive, Predicate: s.pred, ProgressNotify: s.progressNotify,
			ResourceVersion: rvString(lastRV)}
		scratch = false
	}
	begin()
	for attempt := 0; ; attempt++ {
		before, err := h.etcdRev(ctx)
		var w watch.Interface
		if err == nil {
			w, err = h.e.cacher.Watch(ctx, key, opts)
		}
		var after uint64
		if err == nil {
			after, err = h.etcdRev(ctx)
		}
		registered()
		if err != nil {
			r.problem("Watch %+v: %v", opts, err)
			return r
		}
		r.watches++
		if restarted && scratch && h.endFrom.Load() != 0 {
			bookmarkEnd = true
		}
		if scratch && s.kind != fromRV {
			r.lo, r.hi = h.base, after
			if opts.ResourceVersion == "" {
				// Consistent: at least as new as etcd before the call.
				r.lo = before
			}
		}
		asked, _ := strconv.ParseUint(opts.ResourceVersion, 10, 64)
		stopAfter := 0
		if s.reconnect {
			stopAfter = 1 + rng.IntN(h.sc.reconnectMax)
		}
		n := 0
	read:
		for {
			var ev watch.Event
			var ok bool
			select {
			case ev, ok = <-w.ResultChan():
			case <-ctx.Done():
				w.Stop()
				r.problem("timed out after %d events (%d in the current watch); last resourceVersion %d", len(r.got), n, lastRV)
				return r
			}
			if !ok {
				// Closed by the cache, without an error: watch again
				// from the last resourceVersion, as a client does.
				r.closedByCache++
				if !liveKnown {
					// In the initial events of a "0" or "" watch, or
					// before anything of a "now" watch: nothing to
					// resume from; start again, as a client relists.
					// The new watch may start after the end round: it
					// asks for bookmarks, so that it can end with one.
					r.restarts++
					first.ProgressNotify, restarted = true, true
					begin()
				} else {
					resume()
				}
				break read
			}
			n++
			switch ev.Type {
			case watch.Error:
				st, _ := ev.Object.(*metav1.Status)
				if st == nil {
					r.problem("ERROR event carrying a %T", ev.Object)
					st = &metav1.Status{}
				}
				r.status, r.statusAsked, r.statusAttempt, r.statusAfter = st, asked, attempt, n-1
				w.Stop()
				select {
				case ev, ok := <-w.ResultChan():
					if ok {
						r.problem("%s event after the ERROR event", ev.Type)
					}
				case <-ctx.Done():
					r.problem("watch not closed after its ERROR event")
				}
				return r
			case watch.Bookmark:
				r.bookmarks++
				brv, err := storage.ObjectResourceVersion(ev.Object)
				if err != nil {
					r.problem("bookmark: %v", err)
					continue
				}
				if brv < maxRV {
					r.problem("bookmark at %d after an event at %d", brv, maxRV)
				}
				if brv < lastBM {
					r.problem("bookmark at %d after a bookmark at %d", brv, lastBM)
				}
				lastBM = brv
				m, err := meta.Accessor(ev.Object)
				if err != nil {
					r.problem("bookmark: %v", err)
					continue
				}
				if m.GetAnnotations()[metav1.InitialEventsAnnotationKey] == "true" {
					if s.kind != fromInitialEvents || !scratch || liveKnown {
						r.problem("unexpected initial-events-end bookmark at %d after %d events", brv, len(r.got))
					} else {
						if brv < r.lo || brv > r.hi {
							r.problem("initial-events-end bookmark at %d, outside [%d, %d]", brv, r.lo, r.hi)
						}
						r.nInitial, r.lo, r.hi, liveKnown = len(r.got), brv, brv, true
					}
				} else if s.kind == fromInitialEvents && scratch && !liveKnown {
					r.problem("bookmark at %d before the initial-events-end bookmark", brv)
				}
				if s.kind == fromNow {
					liveKnown = true
				}
				if liveKnown {
					lastRV = brv
				}
				if end := h.endRev.Load(); bookmarkEnd && end != 0 && brv >= end {
					r.end = fmt.Sprintf("ended by a bookmark at %d (a %T) after %d events of its watch %d, from resourceVersion %q",
						brv, ev.Object, n-1, attempt, opts.ResourceVersion)
					r.endRV, r.finished = end, true
					w.Stop()
					return r
				}
			default:
				obj := ev.Object
				if c, ok := obj.(runtime.CacheableObject); ok {
					obj = c.GetObject()
				}
				cm, ok := obj.(*corev1.ConfigMap)
				if !ok {
					r.problem("%s event carrying a %T", ev.Type, ev.Object)
					continue
				}
				rv, err := storage.ObjectResourceVersion(cm)
				if err != nil {
					r.problem("%s event: %v", ev.Type, err)
					continue
				}
				e := evt{ev.Type, cm.Namespace + "/" + cm.Name, rv}
				if lastBM != 0 && rv <= lastBM {
					r.problem("%v after a bookmark at %d", e, lastBM)
				}
				r.got = append(r.got, e)
				maxRV = max(maxRV, rv)
				if s.kind == fromNow {
					liveKnown = true
				}
				if liveKnown {
					lastRV = rv
				}
				if from := h.endFrom.Load(); !bookmarkEnd && from != 0 && e.Key == s.endKey && rv > from {
					r.end = fmt.Sprintf("ended by %v, the write of its end object", e)
					r.endRV, r.finished = rv, true
					w.Stop()
					return r
				}
			}
			if liveKnown && stopAfter > 0 && n >= stopAfter {
				w.Stop()
				r.resumes++
				resume()
				break read
			}
			if s.slow && liveKnown && ev.Type != watch.Bookmark {
				if sinceStall++; sinceStall >= stallEvery {
					// The first stall is long enough to be closed for
					// sure; later ones may or may not be.
					behind := firstStall
					if stalls++; stalls > 1 {
						behind = 1 + rng.IntN(firstStall)
					}
					sinceStall, stallEvery = 0, 5+rng.IntN(30)
					if err := h.stall(ctx, lastRV, behind); err != nil {
						r.problem("stalling: %v", err)
					}
				}
			}
		}
	}
}

// firstStall is how many events a slow watcher lets the cache dispatch
// without reading, the first time: far more than WatcherBufferSize (8)
// and whatever the watcher buffers besides, but fewer than the writes
// make after it.
const firstStall = 100

// stall returns once the cache has dispatched behind events
// after revision rv (or every event, if the writes end before).
func (h *harness) stall(ctx context.Context, rv uint64, behind int) error {
	var target uint64
	err := h.hist.waitUntil(ctx, func(evs []histEvent) bool {
		i, _ := slices.BinarySearchFunc(evs, rv+1, func(e histEvent, rv uint64) int { return cmpUint(e.rev, rv) })
		if len(evs)-i >= behind {
			target = evs[i+behind-1].rev
			return true
		}
		return h.writes.isDone()
	})
	if err != nil {
		return err
	}
	if target == 0 {
		if target, err = h.etcdRev(ctx); err != nil {
			return err
		}
	}
	// A NotOlderThan list from the cache waits until the cache has
	// reached target, that is has applied, and dispatched, every event
	// up to it.
	pred := storage.Everything
	pred.Limit = 1
	return h.e.cacher.GetList(ctx, "/configmaps", storage.ListOptions{
		Recursive: true, Predicate: pred,
		ResourceVersion: rvString(target), ResourceVersionMatch: string(metav1.ResourceVersionMatchNotOlderThan),
	}, &corev1.ConfigMapList{})
}

func cmpUint(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// ---------------------------------------------------------------------
// Checking a run against the history.

// check compares what r received with the history, which ends at last:
// up to the end of r's history if r got there, else a prefix of it.
func (h *harness) check(r *watchRun, hist []histEvent, last uint64) error {
	var errs []string
	errs = append(errs, r.problems...)
	complete := r.finished
	if st := r.status; st != nil {
		complete = false
		switch {
		case !h.sc.allow410:
			errs = append(errs, fmt.Sprintf("unexpected ERROR event: %+v", *st))
		case r.statusAfter > 0:
			errs = append(errs, fmt.Sprintf("ERROR event after %d events of the same watch: %+v", r.statusAfter, *st))
		case r.statusAttempt == 0 && r.spec.kind != fromRV:
			errs = append(errs, fmt.Sprintf("a %s watch got an ERROR event: %+v", r.spec.kind, *st))
		}
		if err := check410(st, r.statusAsked, last); err != nil {
			errs = append(errs, err.Error())
		}
		if r.statusAttempt == 0 && len(r.got) > 0 {
			errs = append(errs, fmt.Sprintf("%d events before the ERROR event", len(r.got)))
		}
	} else if !r.finished && len(r.problems) == 0 {
		errs = append(errs, "did not reach the end of the history")
	}
	final := last
	if r.finished {
		final = r.endRV
	}
	if len(errs) == 0 || len(r.got) > 0 {
		if diff := h.compare(r, hist, final, complete); diff != "" {
			errs = append(errs, diff)
		}
	}
	if len(errs) == 0 {
		return nil
	}
	if r.end != "" {
		errs = append(errs, r.end)
	}
	return fmt.Errorf("%v, %d watches, %d events:\n\t%s", r.spec, r.watches, len(r.got), strings.Join(errs, "\n\t"))
}

// check410 checks the Status of an expired watch from resourceVersion
// asked: "too old resource version: asked (oldest)", oldest after asked.
func check410(st *metav1.Status, asked, final uint64) error {
	if st.Code != http.StatusGone || st.Reason != metav1.StatusReasonExpired || st.Status != metav1.StatusFailure {
		return fmt.Errorf("ERROR status %+v, want 410 Expired", *st)
	}
	var got, oldest uint64
	if _, err := fmt.Sscanf(st.Message, "too old resource version: %d (%d)", &got, &oldest); err != nil || got != asked {
		return fmt.Errorf("ERROR message %q, want \"too old resource version: %d (<oldest>)\"", st.Message, asked)
	}
	if oldest <= asked || oldest > final {
		return fmt.Errorf("ERROR message %q: the oldest resourceVersion should be after %d and at most %d", st.Message, asked, final)
	}
	return nil
}

// compare looks for a start revision S within [r.lo, r.hi] for which what
// r received is the initial state at S (as ADDED events, in any order),
// if r has one, then the history after S up to final, as r's scope and
// selector see it; or, if r did not complete, a prefix of that. It
// returns "" if there is one, else the first divergence from the closest
// candidate.
func (h *harness) compare(r *watchRun, hist []histEvent, final uint64, complete bool) string {
	s := r.spec
	end, _ := slices.BinarySearchFunc(hist, final+1, func(e histEvent, rv uint64) int { return cmpUint(e.rev, rv) })
	hist = hist[:end]
	// What the watcher sees of each event, and whether it selects the
	// object each creation or update leaves.
	seen := make([]watch.EventType, len(hist))
	selects := make([]bool, len(hist))
	for i, ev := range hist {
		if !s.inScope(ev.key) {
			continue
		}
		if typ, ok := ev.seenAs(s); ok {
			seen[i] = typ
		}
		selects[i] = ev.typ != watch.Deleted && s.matches(ev.key, ev.labels)
	}
	state := map[string]int{} // key -> index of its last creation or update
	bestJ, bestScore := -1, -1
	for j := 0; j <= len(hist); j++ {
		// Candidate j: S is in [hist[j-1].rev, hist[j].rev).
		if j > 0 {
			if ev := hist[j-1]; ev.typ == watch.Deleted {
				delete(state, ev.key)
			} else {
				state[ev.key] = j - 1
			}
		}
		var from, to uint64 = 0, ^uint64(0)
		if j > 0 {
			from = hist[j-1].rev
		}
		if j < len(hist) {
			to = hist[j].rev
		}
		if from > r.hi {
			break
		}
		if to <= r.lo {
			continue
		}
		score, ok := quickCompare(r, hist, seen, selects, state, j, complete)
		if ok {
			return ""
		}
		if score > bestScore {
			bestJ, bestScore = j, score
		}
	}
	if bestJ < 0 {
		return fmt.Sprintf("no start revision in [%d, %d]", r.lo, r.hi)
	}

	// Describe the divergence from the closest candidate.
	j := bestJ
	clear(state)
	for i, ev := range hist[:j] {
		if ev.typ == watch.Deleted {
			delete(state, ev.key)
		} else {
			state[ev.key] = i
		}
	}
	var initial, live []evt
	if r.initial {
		for k, i := range state {
			if selects[i] {
				initial = append(initial, evt{watch.Added, k, hist[i].rev})
			}
		}
	}
	for i := j; i < len(hist); i++ {
		if seen[i] != "" {
			live = append(live, evt{seen[i], hist[i].key, hist[i].rev})
		}
	}
	_, diff := compareEvents(r, initial, live, complete)
	at := fmt.Sprintf("start %d", r.lo)
	if r.lo != r.hi {
		from, to := h.base, "end"
		if j > 0 {
			from = hist[j-1].rev
		}
		if j < len(hist) {
			to = strconv.FormatUint(hist[j].rev, 10)
		}
		at = fmt.Sprintf("closest start in [%d, %s) of bounds [%d, %d]", from, to, r.lo, r.hi)
	}
	return at + ": " + diff
}

// quickCompare reports whether r.got is what the watcher should have got
// with candidate start j, and how many events matched if not.
func quickCompare(r *watchRun, hist []histEvent, seen []watch.EventType, selects []bool, state map[string]int, j int, complete bool) (score int, ok bool) {
	got, k := r.got, 0
	if r.initial {
		for _, i := range state {
			if selects[i] {
				k++
			}
		}
		if r.nInitial >= 0 && r.nInitial != k {
			return 0, false
		}
		if len(got) < k {
			if complete {
				return 0, false
			}
			k = len(got)
		}
		keys := make(map[string]bool, k)
		for _, e := range got[:k] {
			i, ok := state[e.Key]
			if !ok || !selects[i] || e != (evt{watch.Added, e.Key, hist[i].rev}) || keys[e.Key] {
				return score, false
			}
			keys[e.Key] = true
			score++
		}
	}
	for i := j; i < len(hist); i++ {
		if seen[i] == "" {
			continue
		}
		if k == len(got) {
			return score, !complete
		}
		if got[k] != (evt{seen[i], hist[i].key, hist[i].rev}) {
			return score, false
		}
		k++
		score++
	}
	return score, k == len(got)
}

// compareEvents compares r.got with the initial events (in any order)
// followed by the live ones. score is how many events matched.
func compareEvents(r *watchRun, initial, live []evt, complete bool) (score int, diff string) {
	got, k := r.got, len(initial)
	if r.nInitial >= 0 && r.nInitial != k {
		return 0, fmt.Sprintf("%d initial events before the bookmark, the state has %d objects in scope: got %v, want %v",
			r.nInitial, k, got[:r.nInitial], sortedEvts(initial))
	}
	if len(got) < k {
		if complete {
			return 0, fmt.Sprintf("%d events, the state has %d objects in scope: got %v, want %v", len(got), k, got, sortedEvts(initial))
		}
		k = len(got) // a prefix, in any order
	}
	want := map[evt]int{}
	for _, e := range initial {
		want[e]++
	}
	var unexpected []evt
	for _, e := range got[:k] {
		if want[e] > 0 {
			want[e]--
			score++
		} else {
			unexpected = append(unexpected, e)
		}
	}
	if len(unexpected) > 0 || (k == len(initial) && score < k) {
		var missing []evt
		for e, n := range want {
			for range n {
				missing = append(missing, e)
			}
		}
		return score, fmt.Sprintf("initial events: unexpected %v, missing %v", sortedEvts(unexpected), sortedEvts(missing))
	}
	rest := got[k:]
	for i := range rest {
		if i >= len(live) {
			return score + i, fmt.Sprintf("event %d: got %v after the end of the history; want nothing (got %s)", k+i, rest[i], around(rest, i))
		}
		if rest[i] != live[i] {
			return score + i, fmt.Sprintf("event %d: got %v, want %v\n\t\tgot  %s\n\t\twant %s", k+i, rest[i], live[i], around(rest, i), around(live, i))
		}
	}
	if complete && len(rest) < len(live) {
		return score + len(rest), fmt.Sprintf("event %d: missing, want %v (want %s)", k+len(rest), live[len(rest)], around(live, len(rest)))
	}
	return score + len(rest), ""
}

func sortedEvts(es []evt) []evt {
	es = slices.Clone(es)
	slices.SortFunc(es, func(a, b evt) int { return cmpUint(a.RV, b.RV) })
	return es
}

// around shows es[i] with a few events either side.
func around(es []evt, i int) string {
	lo, hi := max(0, i-3), min(len(es), i+4)
	var parts []string
	for j := lo; j < hi; j++ {
		p := es[j].String()
		if j == i {
			p = "[" + p + "]"
		}
		parts = append(parts, p)
	}
	out := strings.Join(parts, ", ")
	if lo > 0 {
		out = "... " + out
	}
	if hi < len(es) {
		out += " ..."
	}
	return out
}

// ---------------------------------------------------------------------
// Regressions found by the randomised tests.

// A watch from before the window is passed on to etcd. When its etcd watch
// had history to catch up on and progress was requested on a gRPC stream
// it shared with other watches (the cache's own, whose consistent reads
// ask for progress), the first thing it sent could be a BOOKMARK at etcd's
// current revision, before the events after its resourceVersion: a client
// resuming from that bookmark, as client-go does, lost every event in
// between (compare etcd-io/etcd#15220). Every etcd3 watch now has a stream
// of its own, except the cache's, which names its stream; progress
// requests, however many, reach no other watch.
func TestNoBookmarkBeforeTheEventsOfAWatchPassedOnToEtcd(t *testing.T) {
	e := newEnv(t, cacher.Config{Capacity: 16, MaxCapacity: 16})
	first := rvOf(t, e.create(t, configMap("ns", "a", nil, map[string]string{"v": "0"})))
	for i := range 1500 {
		e.update(t, "ns", "a", func(cm *corev1.ConfigMap) { cm.Data["v"] = strconv.Itoa(i) })
	}
	final := e.currentRV(t)
	e.list(t, storage.ListOptions{}) // the cache's window is the last 16 events

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			// On the default stream, and on the cache's through a
			// consistent read of a cache that lags etcd (the write
			// elsewhere).
			_ = e.backend.(etcd3.ProgressRequester).RequestWatchProgress(ctx)
			_, _ = e.client.Put(ctx, "/cachertest-unrelated/"+t.Name(), "x")
			_ = e.cacher.GetList(ctx, "/configmaps", storage.ListOptions{Recursive: true, Predicate: selector(t, "none=none")}, &corev1.ConfigMapList{})
			time.Sleep(time.Millisecond)
		}
	}()
	defer func() { cancel(); <-done }()
	// Before the fix, about one watch in a hundred got the early bookmark
	// (more under -race); each replays 1,500 events, so the default run
	// tries a few dozen and the soak run many more.
	attempts := 30
	if soak() {
		attempts = 500
	}
	for attempt := range attempts {
		w, err := e.cacher.Watch(ctx, "/configmaps", storage.ListOptions{
			ResourceVersion: rvString(first), Recursive: true, ProgressNotify: true, Predicate: storage.Everything,
		})
		if err != nil {
			t.Fatal(err)
		}
		var last uint64
		n := 0
		for ev := range w.ResultChan() {
			if ev.Type == watch.Error {
				t.Fatalf("ERROR event: %+v", ev.Object)
			}
			rv := rvOf(t, ev.Object)
			if ev.Type == watch.Bookmark {
				if last < final {
					w.Stop()
					t.Fatalf("watch %d from %d: BOOKMARK at %d after %d events; the events %d..%d are still to come",
						attempt, first, rv, n, max(last, first)+1, final)
				}
				continue
			}
			last = rv
			n++
			if last >= final {
				break
			}
		}
		w.Stop()
		if last < final {
			t.Fatalf("watch %d from %d ended at %d, before %d", attempt, first, last, final)
		}
	}
}

// After etcd is compacted at revision C, the etcd3 store's 410 said that a
// watch could start from C-1, and accepted one; but if the event at C is a
// deletion (or an update seen through a selector), the previous state it
// needs is compacted, and the watch sent a 500 instead. The store now names
// C as the oldest start, and a watch from C-1 that needs the state before
// C gets the 410. Watches from before the Cacher's window are the store's.
func TestWatchFromJustBeforeTheCompactedRevision(t *testing.T) {
	e := newEnv(t, cacher.Config{Capacity: 4, MaxCapacity: 4})
	e.create(t, configMap("ns", "a", nil, map[string]string{"v": "0"}))
	e.update(t, "ns", "a", func(cm *corev1.ConfigMap) { cm.Data["v"] = "1" })
	// The event at the compacted revision is a deletion: its DELETED
	// event carries the previous state.
	compacted := rvOf(t, e.delete(t, "ns", "a"))
	for i := range 10 {
		e.create(t, configMap("ns", "b"+strconv.Itoa(i), nil, nil))
	}
	e.list(t, storage.ListOptions{}) // the cache's window is the last 4 events
	if _, err := e.client.Compact(context.Background(), int64(compacted)); err != nil {
		t.Fatal(err)
	}
	for _, w := range []struct {
		name string
		w    storage.Interface
	}{{"etcd3 store", e.backend}, {"Cacher", e.cacher}} {
		// The oldest resourceVersion the store's 410 offers.
		ctx, cancel := context.WithTimeout(context.Background(), eventTimeout)
		defer cancel()
		wi, err := w.w.Watch(ctx, "/configmaps", storage.ListOptions{ResourceVersion: rvString(compacted - 1), Recursive: true, Predicate: storage.Everything})
		if err != nil {
			t.Fatal(err)
		}
		ev := next(t, wi)
		wi.Stop()
		switch {
		case ev.Type == watch.Deleted && rvOf(t, ev.Object) == compacted:
		case ev.Type == watch.Error && ev.Object.(*metav1.Status).Code == http.StatusGone:
		default:
			t.Errorf("%s: watch from %d, etcd compacted at %d: got %s %+v, want DELETED at %d or a 410",
				w.name, compacted-1, compacted, ev.Type, ev.Object, compacted)
		}
	}
}
