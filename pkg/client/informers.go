package client

import (
	"context"
	"reflect"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
)

// Informers are shared informers of a Set's resources, one per kind, as
// client-go's shared informer factory makes them: they list and watch
// every namespace, index objects by namespace and never resync.
type Informers struct {
	set *Set

	mu        sync.Mutex
	informers map[reflect.Type]cache.SharedIndexInformer
	started   map[reflect.Type]bool
}

// NewInformers returns the shared informers of set's resources.
func NewInformers(set *Set) *Informers {
	return &Informers{set: set, informers: map[reflect.Type]cache.SharedIndexInformer{}, started: map[reflect.Type]bool{}}
}

// InformerFor returns the shared informer of resource, whose kind is T
// and list kind L, making it on the first call. One made after Start
// runs from the next Start.
func InformerFor[T Object, L runtime.Object](f *Informers, resource string) cache.SharedIndexInformer {
	typ := reflect.TypeFor[T]()
	f.mu.Lock()
	defer f.mu.Unlock()
	if inf, ok := f.informers[typ]; ok {
		return inf
	}
	c := For[T, L](f.set, resource, metav1.NamespaceAll)
	lw := &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			return c.List(ctx, opts)
		},
		WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			return c.Watch(ctx, opts)
		},
	}
	inf := cache.NewSharedIndexInformerWithOptions(cache.ToListWatcherWithWatchListSemantics(lw, c), newObject[T](),
		cache.SharedIndexInformerOptions{Indexers: cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc}})
	f.informers[typ] = inf
	return inf
}

// Start runs the informers not yet running until ctx ends.
func (f *Informers) Start(ctx context.Context) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for typ, inf := range f.informers {
		if f.started[typ] {
			continue
		}
		f.started[typ] = true
		go inf.RunWithContext(ctx)
	}
}

// WaitForCacheSync waits until every started informer has synced, or ctx
// ends, and tells for each kind whether its informer synced. It is woken
// by the informers rather than polling them, so the server is ready the
// moment the last one syncs.
func (f *Informers) WaitForCacheSync(ctx context.Context) map[reflect.Type]bool {
	f.mu.Lock()
	started := map[reflect.Type]cache.SharedIndexInformer{}
	for typ, inf := range f.informers {
		if f.started[typ] {
			started[typ] = inf
		}
	}
	f.mu.Unlock()
	checkers := make([]cache.DoneChecker, 0, len(started))
	for _, inf := range started {
		checkers = append(checkers, inf.HasSyncedChecker())
	}
	cache.WaitFor(ctx, "", checkers...)
	synced := make(map[reflect.Type]bool, len(started))
	for typ, inf := range started {
		synced[typ] = inf.HasSynced()
	}
	return synced
}
