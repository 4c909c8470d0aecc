package cacher

import (
	"context"
	"errors"
	"time"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/pkg/storage"
)

// writeVisibleTimeout bounds how long a write waits for the cache to
// have its event.
const writeVisibleTimeout = time.Second

// awaitWrite waits until the cache has seen the revision of out, the
// object a write returned, so that the write's event has been applied
// and dispatched before the write returns. It gives up, silently, after
// writeVisibleTimeout, when ctx ends or when the cache is not (or no
// longer) filled: the write has happened either way.
func (c *Cacher) awaitWrite(ctx context.Context, out runtime.Object) {
	rv, err := storage.ObjectResourceVersion(out)
	if err != nil || rv == 0 {
		return
	}
	c.mu.RLock()
	ok, advanced := !c.ready || c.rv >= rv, c.advanced
	c.mu.RUnlock()
	if ok {
		return
	}
	timer := time.NewTimer(writeVisibleTimeout)
	defer timer.Stop()
	for {
		select {
		case <-advanced:
		case <-timer.C:
			return
		case <-ctx.Done():
			return
		case <-c.ctx.Done():
			return
		}
		c.mu.RLock()
		ok, advanced = !c.ready || c.rv >= rv, c.advanced
		c.mu.RUnlock()
		if ok {
			return
		}
	}
}

// How reads wait for the cache to reach the revision they need, or give
// up on it (FreshnessTimeout) and go to the storage.

// waitConsistent waits until the cache has caught up with the storage's
// current revision. It reports false if it did not within the freshness
// timeout (or could not tell), in which case the read goes to the storage.
func (c *Cacher) waitConsistent(ctx context.Context) (uint64, bool) {
	current, err := c.storage.CurrentResourceVersion(ctx)
	if err != nil {
		return 0, false
	}
	if c.reached(current) {
		return current, true
	}
	return current, c.waitFor(ctx, current) == nil
}

// requestProgress asks the storage to tell the cache's watch how far it
// is. Writes to other resources advance etcd's revision without an event
// for this cache: a progress notification is how the cache learns that it
// has seen everything up to a revision all the same.
func (c *Cacher) requestProgress() {
	if pr, ok := c.storage.(progressRequester); ok {
		_ = pr.RequestWatchProgress(c.ctx)
	}
}

// reached reports whether the cache is ready and at revision rv or later.
func (c *Cacher) reached(rv uint64) bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.ready && c.rv >= rv
}

// waitFresh waits until the cache is ready and at revision minRV or later.
// If the cache is ready but does not get there within the freshness
// timeout, the error is kube-apiserver's "Too large resource version".
func (c *Cacher) waitFresh(ctx context.Context, key string, minRV uint64) error {
	err := c.waitFor(ctx, minRV)
	if errors.Is(err, errTimeout) {
		c.mu.RLock()
		ready, rv := c.ready, c.rv
		c.mu.RUnlock()
		switch {
		case ready && rv >= minRV:
			return nil // just in time
		case ready:
			return storage.NewTooLargeResourceVersionError(key, minRV, rv)
		}
	}
	return err
}

// waitFor waits until the cache is ready and at revision rv or later, for
// at most the freshness timeout. While it waits it asks for progress
// notifications every so often: the revision may be another resource's.
func (c *Cacher) waitFor(ctx context.Context, rv uint64) error {
	if c.reached(rv) {
		return nil
	}
	timer := time.NewTimer(c.cfg.FreshnessTimeout)
	defer timer.Stop()
	ticker := time.NewTicker(c.cfg.FreshnessTimeout / 10)
	defer ticker.Stop()
	c.requestProgress()
	for {
		c.mu.RLock()
		ok, advanced := c.ready && c.rv >= rv, c.advanced
		c.mu.RUnlock()
		if ok {
			return nil
		}
		select {
		case <-advanced:
		case <-ticker.C:
			c.requestProgress()
		case <-timer.C:
			return errTimeout
		case <-ctx.Done():
			return ctx.Err()
		case <-c.ctx.Done():
			return errNotReady
		}
	}
}
