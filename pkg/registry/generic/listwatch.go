package generic

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
)

// ListWatch lists and watches the store itself, not through the loopback
// client: for the informers of the server that owns the resource (CRDs,
// APIServices), which must run before that server serves.
func (e *Store) ListWatch() *cache.ListWatch {
	return &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			return e.List(ctx, &opts)
		},
		WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			w, err := e.Watch(ctx, &opts)
			if err != nil {
				return nil, err
			}
			// The watch cache shares one encoding-caching wrapper between
			// watchers; an informer wants the object itself.
			return watch.Filter(w, func(ev watch.Event) (watch.Event, bool) {
				if co, ok := ev.Object.(runtime.CacheableObject); ok {
					ev.Object = co.GetObject()
				}
				return ev, true
			}), nil
		},
	}
}
