// Package cacher is the watch cache: a storage.Interface that sits in front
// of another one (the etcd3 store) for one resource and serves lists and
// watches from memory.
//
// # Design
//
// A Cacher runs one goroutine, the reflector, that lists the resource's
// prefix from the underlying storage and then watches it from the list's
// revision, with progress notifications. Every event it receives is applied,
// under the Cacher's lock, to
//
//   - the current state: a B-tree of immutable entries (the object, its
//     labels and fields) ordered by storage key, plus the indexes;
//   - the window: a ring buffer of the most recent events, each holding
//     the object, its previous state and the event's revision. It starts
//     with room for Capacity events and doubles, up to MaxCapacity, rather
//     than evict an event less than 75 seconds old, as kube-apiserver's
//     does;
//   - the Cacher's revision (rv): the revision up to which the cache has seen
//     every event. Progress notifications (BOOKMARK events of the underlying
//     watch) advance it without an event, which is what consistent reads
//     wait for.
//
// and is then handed, still under the lock, to every watcher with a
// non-blocking send into the watcher's bounded input queue. Holding the lock
// across apply and dispatch is what makes a new watcher's starting point
// exact: a watcher registers under the same lock, takes what it must replay
// (the window after its resourceVersion, or the current state) and from then
// on receives every later event through its queue, so each event is
// delivered once, in order.
//
// # Watchers
//
// Each watcher has a goroutine that sends the replayed events, then the
// queued ones, to its result channel, filtering them by key and predicate
// (an object that starts or stops matching is ADDED or DELETED, as in the
// etcd3 store). Objects in events are shared between watchers and with the
// cache: consumers must not modify them.
//
// Slow watchers: the input queue holds WatcherBufferSize events. When the
// reflector finds a watcher's queue full it terminates that watcher at once:
// the queued events are dropped and its result channel is closed, without
// an error event, so that the client watches again from the last
// resourceVersion it received (and gets 410 if that has left the window).
// The reflector never waits for a watcher, and a watcher never holds more
// than its queue, so one slow client neither stalls the others nor grows
// memory. Bookmarks are best effort: a full queue skips the bookmark rather
// than terminating the watcher.
//
// # Re-initialisation
//
// If the underlying watch ends or fails, the reflector watches again from
// the cache's revision; watchers are unaffected because nothing was missed.
// If that revision has been compacted (410), the reflector lists again:
// the state is replaced, the window restarts at the new list's revision,
// and every watcher is terminated with a 410 Expired error event, since the
// events between its position and the new list are lost.
//
// # Writes
//
// Writes go to the underlying storage, and return once the cache has
// applied the write's event and handed it to its watchers' queues: a
// client that has a write's response finds it in every read the cache
// serves, and every watch of the resource has the event on its way. The
// wait is short: the embedded etcd hands a write's event to its watches
// before the write returns, so what is left is the reflector decoding and
// applying it. It is bounded (writeVisibleTimeout): a cache whose watch
// has failed, and is being restarted, delays writes by that much at most,
// and they still succeed. kube-apiserver does not wait, and its watchers
// can learn of a write after its client did; the in-process informers of
// kapi's admission plugins, fed from this cache, should not.
//
// # What is served from memory
//
// Writes always go to the underlying storage. Get is served from the cache
// when it has a resourceVersion ("0", or N once the cache has reached N);
// without one it is a quorum read of the storage, as in kube-apiserver.
// GetList is served from the cache for resourceVersion "" (consistent:
// after the cache has caught up with the storage's current revision, else
// from the storage), "0", and NotOlderThan N (after the cache has reached
// N, else a TooLargeResourceVersion error).
//
// Lists at a given past revision R (resourceVersionMatch=Exact, a continue
// token, the legacy paged form with resourceVersion and limit) are served
// from the cache too while the window holds every event after R: the
// current state, with the objects those events changed put back as they
// were at R (the window keeps each event's previous object). This is what
// kube-apiserver's cache snapshots give: pages of a list stay consistent
// at the first page's revision even after etcd compacted it. Older
// revisions go to the storage, which answers or says 410 Expired.
//
// Continue tokens are the etcd3 store's, so either can continue a list the
// other started.
//
// # Indexes
//
// IndexedFields (the pods' spec.nodeName) are indexed: a list whose field
// selector pins one to a value reads only the matching objects, and a
// watcher whose selector pins one is only handed events of objects that
// have or had that value, so a thousand kubelets do not each filter every
// pod event.
//
// # Encoding once
//
// Objects in watch events are wrapped (cachingObject) so that each event
// is encoded once per wire format, however many watchers send it.
package cacher

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kapi-dev/kapi/pkg/storage"
)

// Defaults of Config.
const (
	// DefaultCapacity is kube-apiserver's --default-watch-cache-size: the
	// window's initial capacity.
	DefaultCapacity = 100
	// DefaultMaxCapacity is how far the window may grow to keep the last
	// 75 seconds of events, kube-apiserver's upper bound.
	DefaultMaxCapacity = 100 * 1024
	// DefaultWatcherBufferSize is how many events a watcher may lag
	// behind the cache before it is terminated. The queue holds pointers
	// to shared events, so a deep queue costs 8 bytes an entry.
	DefaultWatcherBufferSize = 1024
	// DefaultBookmarkInterval is how often watchers that asked for
	// bookmarks get one.
	DefaultBookmarkInterval = 5 * time.Second
	// DefaultFreshnessTimeout bounds how long a read waits for the cache
	// to reach a revision: kube-apiserver's 3 seconds.
	DefaultFreshnessTimeout = 3 * time.Second
	// DefaultRetryInterval is how long the reflector waits after a failed
	// list or watch of the underlying storage before trying again.
	DefaultRetryInterval = 500 * time.Millisecond
)

// listPageSize is how many objects the reflector reads from the
// underlying storage per page when it lists.
const listPageSize = 10000

// Config configures a Cacher.
type Config struct {
	// Storage is the storage the cache is in front of.
	Storage storage.Interface
	// ResourcePrefix is the key below which the resource's objects live,
	// such as "/configmaps".
	ResourcePrefix string
	// NewFunc returns an empty object of the resource; NewListFunc an
	// empty list.
	NewFunc     func() runtime.Object
	NewListFunc func() runtime.Object
	// KeyFunc returns the storage key of an object. Nil means
	// ResourcePrefix/namespace/name, or ResourcePrefix/name for an object
	// without a namespace, as the registry makes keys.
	KeyFunc func(obj runtime.Object) (string, error)
	// GetAttrs returns the labels and selectable fields of an object. The
	// cache computes them once per object version and matches every
	// predicate against them. Nil means the object's labels, and the
	// fields metadata.name and metadata.namespace.
	GetAttrs storage.AttrFunc
	// IndexedFields are selectable fields (such as the pods'
	// spec.nodeName) the cache indexes: a list or watch whose field
	// selector pins one of them to a value looks at the matching objects
	// only.
	IndexedFields []string
	// Capacity is how many recent events the window starts with room
	// for; it keeps them to serve watches and lists from a past
	// resourceVersion. 0 means DefaultCapacity. The window grows, up to
	// MaxCapacity, rather than evict an event less than 75 s old.
	Capacity int
	// MaxCapacity bounds the window. 0 means the larger of Capacity and
	// DefaultMaxCapacity.
	MaxCapacity int
	// WatcherBufferSize is how many events a watcher's queue holds: a
	// watcher is terminated when its queue is full, that is when it is
	// this many events behind, plus the few its goroutine has already
	// handed its consumer. 0 means DefaultWatcherBufferSize.
	WatcherBufferSize int
	// BookmarkInterval is how often watchers that asked for bookmarks
	// (ProgressNotify) get one. 0 means DefaultBookmarkInterval.
	BookmarkInterval time.Duration
	// FreshnessTimeout bounds how long a read waits for the cache to reach
	// the revision it needs. 0 means DefaultFreshnessTimeout.
	FreshnessTimeout time.Duration
	// RetryInterval is the pause after a failed list or watch of Storage.
	// 0 means DefaultRetryInterval.
	RetryInterval time.Duration
	// Logger receives the failures of the reflector's lists and watches,
	// which it retries; nil discards them.
	Logger *slog.Logger
}

// progressRequester is implemented by storages whose watches can be asked
// for a progress notification (the etcd3 store).
type progressRequester interface {
	RequestWatchProgress(ctx context.Context) error
}

// watchStreamIsolator is implemented by storages that can give a watch
// an etcd watch stream of its own (the etcd3 store).
type watchStreamIsolator interface {
	WithOwnWatchStream(ctx context.Context, name string) context.Context
}

// Cacher is a storage.Interface serving reads and watches of one resource
// from memory. Its methods are safe for concurrent use.
type Cacher struct {
	cfg     Config
	storage storage.Interface

	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{} // closed when the goroutines have ended

	mu sync.RWMutex
	// ready is set once the first list is applied.
	ready bool
	// rv is the revision the cache has seen everything up to.
	rv uint64
	// advanced is closed and replaced whenever rv advances or ready
	// changes, waking waiters.
	advanced chan struct{}
	// state is the current object of every key.
	state *state
	// window holds the most recent events.
	window ring
	// watchers are the live watchers.
	watchers watcherSet
	nextID   int64
	// watchCounts counts the watchers by what they watch, for
	// InterestedWatchers; it has a lock of its own, so that reading it
	// never waits for the reflector.
	watchCounts watchCounts

	// Counters of what was served how, for tests and metrics; atomic, so
	// that counting a read takes no lock.
	listsFromCache, listsDelegated, watchesDelegated, watchersTerminated, relists atomic.Int64
}

// Stats counts the reads a Cacher served and passed on.
type Stats struct {
	// ListsFromCache and ListsDelegated count GetList calls.
	ListsFromCache, ListsDelegated int64
	// WatchesDelegated counts watches from before the window, which the
	// storage served.
	WatchesDelegated int64
	// WatchersTerminated counts watchers closed because they fell behind.
	WatchersTerminated int64
	// Relists counts lists of the underlying storage after the first.
	Relists int64
}

var _ storage.Interface = (*Cacher)(nil)

// New returns a Cacher and starts filling it in the background. Reads that
// need the cache before it is filled wait for it (bounded by
// FreshnessTimeout) or go to the underlying storage. Stop releases it.
func New(cfg Config) (*Cacher, error) {
	if cfg.Storage == nil || cfg.NewFunc == nil || cfg.NewListFunc == nil {
		return nil, errors.New("cacher: Storage, NewFunc and NewListFunc are required")
	}
	if cfg.ResourcePrefix == "" || cfg.ResourcePrefix == "/" {
		return nil, fmt.Errorf("cacher: invalid resource prefix %q", cfg.ResourcePrefix)
	}
	if cfg.Capacity <= 0 {
		cfg.Capacity = DefaultCapacity
	}
	if cfg.MaxCapacity <= 0 {
		cfg.MaxCapacity = max(cfg.Capacity, DefaultMaxCapacity)
	}
	if cfg.WatcherBufferSize <= 0 {
		cfg.WatcherBufferSize = DefaultWatcherBufferSize
	}
	if cfg.BookmarkInterval <= 0 {
		cfg.BookmarkInterval = DefaultBookmarkInterval
	}
	if cfg.FreshnessTimeout <= 0 {
		cfg.FreshnessTimeout = DefaultFreshnessTimeout
	}
	if cfg.RetryInterval <= 0 {
		cfg.RetryInterval = DefaultRetryInterval
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	prefix := "/" + strings.Trim(cfg.ResourcePrefix, "/")
	cfg.ResourcePrefix = prefix
	if cfg.KeyFunc == nil {
		cfg.KeyFunc = defaultKeyFunc(prefix)
	}
	if cfg.GetAttrs == nil {
		cfg.GetAttrs = defaultAttrs
	}
	ctx, cancel := context.WithCancel(context.Background())
	if iso, ok := cfg.Storage.(watchStreamIsolator); ok {
		// Progress notifications, which consistent reads wait for, come
		// only when every watch on a stream has caught up: the cache's
		// own watch gets a stream of its own.
		ctx = iso.WithOwnWatchStream(ctx, "watch-cache"+prefix)
	}
	c := &Cacher{
		cfg:      cfg,
		storage:  cfg.Storage,
		ctx:      ctx,
		cancel:   cancel,
		done:     make(chan struct{}),
		advanced: make(chan struct{}),
		state:    newState(cfg.IndexedFields),
		window:   newRing(cfg.Capacity, cfg.MaxCapacity),
		watchers: newWatcherSet(),
	}
	c.watchCounts.init(prefix)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); c.reflect() }()
	go func() { defer wg.Done(); c.bookmarks() }()
	go func() { wg.Wait(); close(c.done) }()
	return c, nil
}

// Stop ends the reflector and closes every watcher. Reads that are still
// made afterwards go to the underlying storage.
func (c *Cacher) Stop() {
	c.cancel()
	<-c.done
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ready = false
	c.wakeLocked()
	c.watchers.each(func(w *cacheWatcher) { c.terminateLocked(w, nil) })
}

// Stats returns what the cache has served so far.
func (c *Cacher) Stats() Stats {
	return Stats{
		ListsFromCache:     c.listsFromCache.Load(),
		ListsDelegated:     c.listsDelegated.Load(),
		WatchesDelegated:   c.watchesDelegated.Load(),
		WatchersTerminated: c.watchersTerminated.Load(),
		Relists:            c.relists.Load(),
	}
}

func defaultKeyFunc(prefix string) func(runtime.Object) (string, error) {
	return func(obj runtime.Object) (string, error) {
		m, err := meta.Accessor(obj)
		if err != nil {
			return "", err
		}
		if m.GetName() == "" {
			return "", errors.New("object has no name")
		}
		if ns := m.GetNamespace(); ns != "" {
			return prefix + "/" + ns + "/" + m.GetName(), nil
		}
		return prefix + "/" + m.GetName(), nil
	}
}

func defaultAttrs(obj runtime.Object) (labels.Set, fields.Set, error) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, nil, err
	}
	return labels.Set(m.GetLabels()), fields.Set{
		"metadata.name":      m.GetName(),
		"metadata.namespace": m.GetNamespace(),
	}, nil
}

// Create implements storage.Interface by passing it on; it returns once
// the cache has the new object (see "Writes" in the package doc).
func (c *Cacher) Create(ctx context.Context, key string, obj, out runtime.Object) error {
	if err := c.storage.Create(ctx, key, obj, out); err != nil {
		return err
	}
	c.awaitWrite(ctx, out)
	return nil
}

// GuaranteedUpdate implements storage.Interface by passing it on; it
// returns once the cache has the update.
func (c *Cacher) GuaranteedUpdate(ctx context.Context, key string, destination runtime.Object, ignoreNotFound bool,
	preconditions *storage.Preconditions, tryUpdate storage.UpdateFunc) error {
	if err := c.storage.GuaranteedUpdate(ctx, key, destination, ignoreNotFound, preconditions, tryUpdate); err != nil {
		return err
	}
	c.awaitWrite(ctx, destination)
	return nil
}

// Delete implements storage.Interface by passing it on; it returns once
// the cache has the deletion.
func (c *Cacher) Delete(ctx context.Context, key string, out runtime.Object, preconditions *storage.Preconditions,
	validateDeletion storage.ValidateObjectFunc) error {
	if err := c.storage.Delete(ctx, key, out, preconditions, validateDeletion); err != nil {
		return err
	}
	c.awaitWrite(ctx, out)
	return nil
}

// CurrentResourceVersion implements storage.Interface by passing it on.
func (c *Cacher) CurrentResourceVersion(ctx context.Context) (uint64, error) {
	return c.storage.CurrentResourceVersion(ctx)
}

// Get implements storage.Interface. A read with a resourceVersion ("0":
// any state; N: a state at least as new as N) is served from the cache,
// once it has reached N; a read without one is a quorum read and goes to
// the underlying storage, as in kube-apiserver.
func (c *Cacher) Get(ctx context.Context, key string, opts storage.GetOptions, out runtime.Object) error {
	if opts.ResourceVersion == "" {
		return c.storage.Get(ctx, key, opts, out)
	}
	rv, err := storage.ParseResourceVersion(opts.ResourceVersion)
	if err != nil {
		return err
	}
	if err := c.waitFresh(ctx, key, rv); err != nil {
		if storage.IsTooLargeResourceVersion(err) {
			return err
		}
		return c.storage.Get(ctx, key, opts, out)
	}
	c.mu.RLock()
	e, ok := c.state.get(key)
	current := c.rv
	c.mu.RUnlock()
	if !ok {
		if opts.IgnoreNotFound {
			return runtime.SetZeroValue(out)
		}
		return storage.NewError(storage.ErrCodeKeyNotFound, key, int64(current), "")
	}
	return copyInto(e.obj, out)
}

// copyInto sets out to a deep copy of obj, which must be of out's type.
func copyInto(obj, out runtime.Object) error {
	src := reflect.ValueOf(obj.DeepCopyObject())
	dst := reflect.ValueOf(out)
	if dst.Kind() != reflect.Pointer || src.Type() != dst.Type() {
		return fmt.Errorf("cannot copy a %T into a %T", obj, out)
	}
	dst.Elem().Set(src.Elem())
	return nil
}

var (
	errTimeout  = errors.New("cache did not reach the revision in time")
	errNotReady = errors.New("cache stopped")
)

// Watch implements storage.Interface.
//
// With a resourceVersion N, the watch replays the cached events after N
// and goes on with live ones. If N is older than the window, the
// underlying storage serves the watch from etcd's history, or sends a
// single ERROR event, 410 Expired "too old resource version: N (oldest)",
// if etcd has compacted N. (kube-apiserver answers 410 as soon as N is
// older than its window; serving etcd's history instead lets clients
// resume without a relist after a restart, when the window is empty.) If
// the cache has not reached N within the freshness timeout, Watch returns
// a TooLargeResourceVersion error. With "" or "0" (and SendInitialEvents
// unset), or with SendInitialEvents true, the watch first sends the current
// state as ADDED events ("" waits for the cache to catch up with the
// storage first, as a consistent list does); with SendInitialEvents true
// and ProgressNotify they end with a BOOKMARK annotated
// k8s.io/initial-events-end. SendInitialEvents false with "" or "0" starts
// at the cache's current revision.
//
// If the cache cannot serve the watch (it is not filled in time, or a
// consistent start cannot be established), the watch is passed on to the
// underlying storage.
func (c *Cacher) Watch(ctx context.Context, key string, opts storage.ListOptions) (watch.Interface, error) {
	rv, err := storage.ParseWatchResourceVersion(opts.ResourceVersion)
	if err != nil {
		return nil, err
	}
	sendInitial := opts.SendInitialEvents != nil && *opts.SendInitialEvents
	if rv == 0 && opts.SendInitialEvents == nil {
		sendInitial = true
	}
	switch {
	case opts.ResourceVersion == "":
		var ok bool
		if rv, ok = c.waitConsistent(ctx); !ok {
			return c.storage.Watch(ctx, key, opts)
		}
	default:
		if err := c.waitFresh(ctx, key, rv); err != nil {
			if storage.IsTooLargeResourceVersion(err) {
				return nil, err
			}
			return c.storage.Watch(ctx, key, opts)
		}
	}

	w, err := c.register(ctx, key, opts, rv, sendInitial)
	if errors.Is(err, errDelegate) {
		return c.storage.Watch(ctx, key, opts)
	}
	return w, err
}

// errDelegate says that the underlying storage must serve a watch.
var errDelegate = errors.New("watch served by the storage")

// register starts a watcher from revision rv, or from the current state
// if sendInitial.
func (c *Cacher) register(ctx context.Context, key string, opts storage.ListOptions, rv uint64, sendInitial bool) (watch.Interface, error) {
	w := newCacheWatcher(c, key, opts)
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.ready {
		// Stopped since the wait.
		return nil, errDelegate
	}
	switch {
	case sendInitial:
		w.replay = c.stateLocked(w.scope, w.pred)
		w.initialEnd = opts.SendInitialEvents != nil && opts.ProgressNotify
		w.start = c.rv
	case rv == 0:
		w.start = c.rv
	default:
		events, _, ok := c.window.since(rv)
		if !ok {
			// Older than the window (after a restart, every revision
			// before the cache's first list is): etcd may still have
			// the history, and says 410 if it was compacted.
			c.watchesDelegated.Add(1)
			return nil, errDelegate
		}
		w.replay = events
		w.start = rv
	}
	c.nextID++
	w.id = c.nextID
	w.indexField, w.indexValue, _ = indexFor(w, c.cfg.IndexedFields)
	w.counted = c.watchCounts.scopeOf(w)
	c.watchers.add(w)
	c.watchCounts.add(w, 1)
	go w.run(ctx)
	return w, nil
}

// stateLocked returns the current objects in scope that can match pred
// as ADDED events, sorted by key.
func (c *Cacher) stateLocked(scope keyScope, pred storage.SelectionPredicate) []*event {
	var events []*event
	c.ascendLocked(scope, "", pred, nil, func(e *entry) bool {
		events = append(events, &event{typ: watch.Added, key: e.key, rv: e.rv, cur: e})
		return true
	})
	return events
}

// tooOld is the error of a watch from a resourceVersion older than the
// window, in kube-apiserver's words.
func tooOld(rv, oldest uint64) error {
	return apierrors.NewResourceExpired(fmt.Sprintf("too old resource version: %d (%d)", rv, oldest))
}

// bookmarkObject returns an empty object carrying only resourceVersion rv
// (and the initial-events-end annotation if initialEnd).
func (c *Cacher) bookmarkObject(rv uint64, initialEnd bool) runtime.Object {
	obj := c.cfg.NewFunc()
	if m, err := meta.Accessor(obj); err == nil {
		m.SetResourceVersion(strconv.FormatUint(rv, 10))
		if initialEnd {
			m.SetAnnotations(map[string]string{metav1.InitialEventsAnnotationKey: "true"})
		}
	}
	return obj
}
