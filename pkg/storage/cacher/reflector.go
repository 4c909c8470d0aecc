package cacher

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kapi-dev/kapi/pkg/storage"
)

// reflect keeps the cache in step with the underlying storage until the
// Cacher is stopped: it lists, then watches from the list's revision,
// watches again from the cache's revision when a watch ends, and lists
// again when that revision has been compacted.
func (c *Cacher) reflect() {
	needList := true
	for c.ctx.Err() == nil {
		if needList {
			if err := c.list(); err != nil {
				if c.ctx.Err() == nil {
					c.cfg.Logger.Warn("watch cache: list failed", "resource", c.cfg.ResourcePrefix, "err", err)
				}
				c.pause()
				continue
			}
			needList = false
		}
		expired, err := c.watch()
		switch {
		case expired:
			needList = true
		case err != nil && c.ctx.Err() == nil:
			c.cfg.Logger.Warn("watch cache: watch failed", "resource", c.cfg.ResourcePrefix, "err", err)
			c.pause()
		}
	}
}

// pause waits RetryInterval, or until the Cacher is stopped.
func (c *Cacher) pause() {
	t := time.NewTimer(c.cfg.RetryInterval)
	defer t.Stop()
	select {
	case <-t.C:
	case <-c.ctx.Done():
	}
}

// list reads every object of the resource at one revision, page by page,
// and makes it the cache's state.
func (c *Cacher) list() error {
	var (
		entries []*entry
		rv      uint64
		token   string
	)
	for {
		list := c.cfg.NewListFunc()
		pred := storage.Everything
		pred.Limit = listPageSize
		pred.Continue = token
		err := c.storage.GetList(c.ctx, c.cfg.ResourcePrefix, storage.ListOptions{
			Recursive: true,
			Predicate: pred,
		}, list)
		if err != nil {
			return err
		}
		m, err := meta.ListAccessor(list)
		if err != nil {
			return err
		}
		if rv == 0 {
			if rv, err = strconv.ParseUint(m.GetResourceVersion(), 10, 64); err != nil {
				return fmt.Errorf("list resourceVersion %q: %w", m.GetResourceVersion(), err)
			}
		}
		objs, err := meta.ExtractList(list)
		if err != nil {
			return err
		}
		for _, obj := range objs {
			e, err := c.newEntry(obj)
			if err != nil {
				return err
			}
			entries = append(entries, e)
		}
		if token = m.GetContinue(); token == "" {
			break
		}
	}

	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ready {
		c.relists.Add(1)
	}
	// The events between what watchers have seen and this list are lost
	// to them.
	c.watchers.each(func(w *cacheWatcher) { c.terminateLocked(w, &expiry{floor: rv}) })
	c.state = newState(c.cfg.IndexedFields)
	for _, e := range entries {
		c.state.put(e)
	}
	c.rv = rv
	c.window.reset(rv)
	c.ready = true
	c.wakeLocked()
	return nil
}

// newEntry makes the cache entry of an object read from the storage.
func (c *Cacher) newEntry(obj runtime.Object) (*entry, error) {
	key, err := c.cfg.KeyFunc(obj)
	if err != nil {
		return nil, fmt.Errorf("key of %T: %w", obj, err)
	}
	rv, err := storage.ObjectResourceVersion(obj)
	if err != nil {
		return nil, fmt.Errorf("resourceVersion of %s: %w", key, err)
	}
	e := &entry{key: key, rv: rv, obj: obj}
	ls, fs, err := c.cfg.GetAttrs(obj)
	e.labels, e.fields, e.attrErr = ls, newFieldValues(fs), err
	return e, nil
}

// errWatchClosed means the underlying watch ended without saying why.
var errWatchClosed = errors.New("underlying watch closed")

// watch watches the underlying storage from the cache's revision and
// applies what it sends until it ends. It reports expired if the revision
// is no longer available, so the cache must list again.
func (c *Cacher) watch() (expired bool, err error) {
	c.mu.RLock()
	rv := c.rv
	c.mu.RUnlock()
	w, err := c.storage.Watch(c.ctx, c.cfg.ResourcePrefix, storage.ListOptions{
		ResourceVersion: strconv.FormatUint(rv, 10),
		Recursive:       true,
		ProgressNotify:  true,
		Predicate:       storage.Everything,
	})
	if err != nil {
		return storage.IsExpired(err), err
	}
	defer w.Stop()
	for {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				return false, errWatchClosed
			}
			switch ev.Type {
			case watch.Error:
				err := apierrors.FromObject(ev.Object)
				if s, ok := ev.Object.(*metav1.Status); ok && s.Code == http.StatusGone {
					return true, err
				}
				return false, err
			case watch.Bookmark:
				brv, err := storage.ObjectResourceVersion(ev.Object)
				if err != nil {
					return false, err
				}
				c.progress(brv)
			default:
				if err := c.apply(ev); err != nil {
					return false, err
				}
			}
		case <-c.ctx.Done():
			return false, nil
		}
	}
}

// progress records that the underlying watch has delivered every event up
// to revision rv.
func (c *Cacher) progress(rv uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if rv > c.rv {
		c.rv = rv
		c.wakeLocked()
	}
}

// apply applies an event of the underlying watch to the cache and hands
// it to the watchers.
func (c *Cacher) apply(we watch.Event) error {
	cur, err := c.newEntry(we.Object)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if cur.rv <= c.rv {
		// Already seen; a watch restarted from c.rv never sends it.
		return nil
	}
	ev := &event{key: cur.key, rv: cur.rv, at: time.Now(), cur: cur}
	if prev, ok := c.state.get(cur.key); ok {
		ev.prev = prev
	}
	switch we.Type {
	case watch.Added, watch.Modified:
		ev.typ = watch.Modified
		if ev.prev == nil {
			ev.typ = watch.Added
		}
		c.state.put(cur)
	case watch.Deleted:
		ev.typ = watch.Deleted
		if ev.prev == nil {
			ev.prev = cur
		}
		c.state.remove(cur.key)
	default:
		return fmt.Errorf("unexpected %s event", we.Type)
	}
	c.rv = cur.rv
	c.window.add(ev)
	c.watchers.interested(ev, func(w *cacheWatcher) {
		if !w.scope.contains(ev.key) {
			return
		}
		select {
		case w.input <- ev:
		default:
			// The watcher is WatcherBufferSize events behind.
			c.watchersTerminated.Add(1)
			c.terminateLocked(w, nil)
		}
	})
	c.wakeLocked()
	return nil
}

// bookmarks sends a BOOKMARK at the cache's revision to every watcher that
// asked for them, every BookmarkInterval, until the Cacher is stopped.
func (c *Cacher) bookmarks() {
	t := time.NewTicker(c.cfg.BookmarkInterval)
	defer t.Stop()
	for {
		select {
		case <-t.C:
		case <-c.ctx.Done():
			return
		}
		c.mu.Lock()
		if c.ready && c.rv > 0 {
			ev := &event{typ: watch.Bookmark, rv: c.rv, bookmark: newCachingObject(c.bookmarkObject(c.rv, false))}
			c.watchers.each(func(w *cacheWatcher) {
				if !w.progressNotify {
					return
				}
				select {
				case w.input <- ev:
				default:
					// Best effort: a watcher behind gets a later one.
				}
			})
		}
		c.mu.Unlock()
	}
}

// wakeLocked wakes everyone waiting for the cache to advance.
func (c *Cacher) wakeLocked() {
	close(c.advanced)
	c.advanced = make(chan struct{})
}

// terminateLocked ends watcher w: it is removed at once, and its goroutine
// closes its result channel, after an ERROR event if exp is set.
func (c *Cacher) terminateLocked(w *cacheWatcher, exp *expiry) {
	if c.watchers.remove(w) {
		c.watchCounts.add(w, -1)
	}
	w.terminate(exp)
}

func (c *Cacher) removeWatcher(w *cacheWatcher) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.watchers.remove(w) {
		c.watchCounts.add(w, -1)
	}
}
