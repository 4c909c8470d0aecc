package cacher

import (
	"context"
	"sync"

	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kapi-dev/kapi/pkg/storage"
)

// expiry says that a watcher was terminated because the cache was
// re-listed at revision floor: it gets a 410 Expired error.
type expiry struct{ floor uint64 }

// resultBuffer is how many events a watcher hands its consumer ahead.
const resultBuffer = 32

// cacheWatcher is one watch served from the cache.
type cacheWatcher struct {
	c              *Cacher
	id             int64
	scope          keyScope
	pred           storage.SelectionPredicate
	progressNotify bool
	// indexField and indexValue, if set, are the indexed field the
	// predicate pins and its value: the watcher only gets events of
	// objects that have or had that value.
	indexField, indexValue string
	// counted is what the watcher counts as in watchCounts.
	counted watchScope

	// Set at registration, under the Cacher's lock, before run starts.
	//
	// replay are the events to send before the queued ones: the current
	// state, or the window after the watch's resourceVersion.
	replay []*event
	// initialEnd asks for the initial-events-end bookmark after replay.
	initialEnd bool
	// start is the revision the watch starts after.
	start uint64

	// input is the bounded queue the reflector feeds.
	input chan *event
	// result is what the consumer reads.
	result chan watch.Event

	stopOnce sync.Once
	stopped  chan struct{}

	// terminated is closed when the Cacher ends the watch; exp, written
	// before, says whether with an error.
	termOnce   sync.Once
	terminated chan struct{}
	exp        *expiry
}

func newCacheWatcher(c *Cacher, key string, opts storage.ListOptions) *cacheWatcher {
	pred := opts.Predicate
	if pred.Label == nil {
		pred.Label = labels.Everything()
	}
	if pred.Field == nil {
		pred.Field = fields.Everything()
	}
	return &cacheWatcher{
		c:              c,
		scope:          newKeyScope(key, opts.Recursive),
		pred:           pred,
		progressNotify: opts.ProgressNotify,
		input:          make(chan *event, c.cfg.WatcherBufferSize),
		// A few events of slack let the consumer see that more are
		// ready, so a watch handler flushes once for a burst.
		result:     make(chan watch.Event, resultBuffer),
		stopped:    make(chan struct{}),
		terminated: make(chan struct{}),
	}
}

// Stop implements watch.Interface. The result channel is closed soon
// after, whether or not the consumer drains it.
func (w *cacheWatcher) Stop() {
	w.stopOnce.Do(func() { close(w.stopped) })
}

// ResultChan implements watch.Interface.
func (w *cacheWatcher) ResultChan() <-chan watch.Event { return w.result }

// terminate ends the watch on the Cacher's behalf; called with the
// Cacher's lock held.
func (w *cacheWatcher) terminate(exp *expiry) {
	w.termOnce.Do(func() {
		w.exp = exp
		close(w.terminated)
	})
}

// run sends the replayed events, then the queued ones, until the watch is
// stopped, its context ends or the Cacher terminates it.
func (w *cacheWatcher) run(ctx context.Context) {
	defer close(w.result)
	defer w.c.removeWatcher(w)

	// last is the revision of the last event the consumer got: where a
	// new watch would resume.
	last := w.start
	for _, ev := range w.replay {
		if !w.process(ctx, ev, &last) {
			w.finish(ctx, last)
			return
		}
	}
	w.replay = nil
	if w.initialEnd {
		bm := watch.Event{Type: watch.Bookmark, Object: w.c.bookmarkObject(w.start, true)}
		if !w.send(ctx, bm) {
			w.finish(ctx, last)
			return
		}
	}
	for {
		select {
		case ev := <-w.input:
			if !w.process(ctx, ev, &last) {
				w.finish(ctx, last)
				return
			}
		case <-w.terminated:
			w.finish(ctx, last)
			return
		case <-w.stopped:
			return
		case <-ctx.Done():
			return
		}
	}
}

// finish sends the error of a terminated watch, if it has one.
func (w *cacheWatcher) finish(ctx context.Context, last uint64) {
	select {
	case <-w.terminated:
	default:
		return
	}
	if w.exp == nil {
		return
	}
	select {
	case w.result <- watch.Event{Type: watch.Error, Object: storage.WatchErrorStatus(tooOld(last, w.exp.floor))}:
	case <-w.stopped:
	case <-ctx.Done():
	}
}

// process sends what the consumer sees of ev, if anything. It reports
// false if the watch ended.
func (w *cacheWatcher) process(ctx context.Context, ev *event, last *uint64) bool {
	e, ok := w.convert(ev)
	if ok && !w.send(ctx, e) {
		return false
	}
	if ev.rv > *last {
		*last = ev.rv
	}
	return true
}

// convert returns the event the consumer sees of ev, if it sees one. An
// object that starts matching the predicate is ADDED, one that stops
// matching is DELETED with its previous state.
func (w *cacheWatcher) convert(ev *event) (watch.Event, bool) {
	if ev.typ == watch.Bookmark {
		return watch.Event{Type: watch.Bookmark, Object: ev.bookmark}, w.progressNotify
	}
	if !w.scope.contains(ev.key) {
		return watch.Event{}, false
	}
	switch ev.typ {
	case watch.Added:
		return watch.Event{Type: watch.Added, Object: ev.watchObject()}, ev.cur.matches(w.pred)
	case watch.Deleted:
		return watch.Event{Type: watch.Deleted, Object: ev.watchObject()}, ev.cur.matches(w.pred)
	}
	switch cur, prev := ev.cur.matches(w.pred), ev.prev.matches(w.pred); {
	case cur && prev:
		return watch.Event{Type: watch.Modified, Object: ev.watchObject()}, true
	case cur:
		return watch.Event{Type: watch.Added, Object: ev.watchObject()}, true
	case prev:
		return watch.Event{Type: watch.Deleted, Object: ev.deletedObject()}, true
	}
	return watch.Event{}, false
}

// send delivers e unless the watch ends first.
func (w *cacheWatcher) send(ctx context.Context, e watch.Event) bool {
	select {
	case w.result <- e:
		return true
	case <-w.terminated:
		return false
	case <-w.stopped:
		return false
	case <-ctx.Done():
		return false
	}
}
