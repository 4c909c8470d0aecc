package generic

import (
	"fmt"
	"log/slog"
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/pkg/storage"
	"github.com/kapi-dev/kapi/pkg/storage/cacher"
)

// WatchCacheConfig says which resources are served from a watch cache:
// kube-apiserver's --watch-cache, --default-watch-cache-size and
// --watch-cache-sizes.
type WatchCacheConfig struct {
	// Enabled turns watch caching on.
	Enabled bool
	// DefaultSize applies to resources Sizes does not name.
	DefaultSize int
	// Sizes overrides DefaultSize per resource. As in kube-apiserver, the
	// only size that changes behaviour is 0, which serves the resource
	// from etcd alone; every other size is the initial capacity of a
	// window that sizes itself.
	Sizes map[schema.GroupResource]int
	// Logger receives what the caches' reflectors log; nil discards it.
	Logger *slog.Logger
}

// DefaultWatchCacheSizes are kube-apiserver's own per-resource sizes:
// events, written often and rarely watched, are not cached.
func DefaultWatchCacheSizes() map[schema.GroupResource]int {
	return map[schema.GroupResource]int{
		{Resource: "events"}:                         0,
		{Group: "events.k8s.io", Resource: "events"}: 0,
	}
}

// WatchCaches puts the storage of resources behind watch caches and stops
// them when the server stops.
type WatchCaches struct {
	cfg WatchCacheConfig

	mu      sync.Mutex
	cachers []*cacher.Cacher
	// byResource are the caches of each resource: a custom resource
	// served in several versions has one per version.
	byResource map[schema.GroupResource][]*cacher.Cacher
}

// NewWatchCaches returns the watch caches that cfg asks for.
func NewWatchCaches(cfg WatchCacheConfig) *WatchCaches {
	return &WatchCaches{cfg: cfg, byResource: map[schema.GroupResource][]*cacher.Cacher{}}
}

// size returns the cache size of a resource; 0 means no cache.
func (w *WatchCaches) size(res schema.GroupResource) int {
	if !w.cfg.Enabled {
		return 0
	}
	if size, ok := w.cfg.Sizes[res]; ok {
		return size
	}
	return w.cfg.DefaultSize
}

// Decorate is a StorageDecorator: it puts s behind a watch cache unless
// the resource's size is 0.
func (w *WatchCaches) Decorate(s storage.Interface, res ResourceStorageConfig) (storage.Interface, func(), error) {
	size := w.size(res.Resource)
	if size <= 0 {
		return s, func() {}, nil
	}
	c, err := cacher.New(cacher.Config{
		Storage:        s,
		ResourcePrefix: res.KeyPrefix,
		NewFunc:        res.NewFunc,
		NewListFunc:    res.NewListFunc,
		GetAttrs:       res.GetAttrs,
		IndexedFields:  res.IndexedFields,
		Capacity:       size,
		Logger:         w.cfg.Logger,
	})
	if err != nil {
		return nil, nil, fmt.Errorf("watch cache of %s: %w", res.Resource, err)
	}
	w.mu.Lock()
	w.cachers = append(w.cachers, c)
	w.byResource[res.Resource] = append(w.byResource[res.Resource], c)
	w.mu.Unlock()
	// A cache destroyed before the server stops (that of a deleted CRD)
	// is forgotten, so that CRD churn does not accumulate stopped caches.
	destroy := func() {
		w.mu.Lock()
		isC := func(o *cacher.Cacher) bool { return o == c }
		w.cachers = slices.DeleteFunc(w.cachers, isC)
		if rest := slices.DeleteFunc(w.byResource[res.Resource], isC); len(rest) > 0 {
			w.byResource[res.Resource] = rest
		} else {
			delete(w.byResource, res.Resource)
		}
		w.mu.Unlock()
		c.Stop()
	}
	return c, destroy, nil
}

// Stop stops every cache made so far. The server calls it before it
// closes the etcd client the caches watch.
func (w *WatchCaches) Stop() {
	w.mu.Lock()
	cachers := w.cachers
	w.cachers = nil
	w.byResource = map[schema.GroupResource][]*cacher.Cacher{}
	w.mu.Unlock()
	for _, c := range cachers {
		c.Stop()
	}
}

// InterestedWatchers returns how many watchers of resource a write of
// the object name in namespace reaches (see cacher.InterestedWatchers):
// what API priority and fairness charges a mutating request for its watch
// notifications. Watchers of a resource without a cache (events, or one
// not listed nor watched since the server started) are not counted; a
// resource without a cache has few.
func (w *WatchCaches) InterestedWatchers(resource schema.GroupResource, namespace, name string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for _, c := range w.byResource[resource] {
		n += c.InterestedWatchers(namespace, name)
	}
	return n
}
