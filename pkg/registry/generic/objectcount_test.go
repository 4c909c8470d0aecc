package generic_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/pkg/registry/core/configmap"
	"github.com/kapi-dev/kapi/pkg/registry/core/event"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/storage"
	"github.com/kapi-dev/kapi/pkg/storage/objectcount"
)

// A Store completed with an object count tracker has its resource
// counted, in etcd below the watch cache, until it is destroyed.
func TestCompleteTracksTheObjectCountUntilDestroyed(t *testing.T) {
	opts := restOptions(t)
	caches := generic.NewWatchCaches(generic.WatchCacheConfig{Enabled: true, DefaultSize: 100})
	t.Cleanup(caches.Stop)
	opts.Decorator = generic.DecorateOnFirstUse(caches.Decorate)
	tracker := objectcount.New(objectcount.Options{Period: 10 * time.Millisecond})
	opts.ObjectCounts = tracker
	runCtx, stop := context.WithCancel(context.Background())
	defer stop()
	go tracker.Run(runCtx)

	storage, err := configmap.NewStorage(opts)
	if err != nil {
		t.Fatal(err)
	}
	s := storage.ConfigMap
	for i := range 3 {
		create(t, s, newConfigMap(fmt.Sprintf("cm-%d", i)))
	}
	gr := schema.GroupResource{Resource: "configmaps"}
	deadline := time.Now().Add(30 * time.Second)
	for {
		stats, err := tracker.Get(gr)
		if err == nil && stats.ObjectCount == 3 && stats.EstimatedAverageObjectSizeBytes > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the tracker did not count the 3 configmaps: %+v, %v", stats, err)
		}
		time.Sleep(5 * time.Millisecond)
	}

	s.Destroy()
	if _, err := tracker.Get(gr); !errors.Is(err, objectcount.ErrUnknown) {
		t.Errorf("after the store is destroyed: err = %v, want ErrUnknown", err)
	}
}

// WatchCaches answers for the watchers of a resource's caches (one per
// store: a custom resource in two versions has two), and forgets a
// destroyed cache's.
func TestWatchCachesCountInterestedWatchersByResource(t *testing.T) {
	opts := restOptions(t)
	caches := generic.NewWatchCaches(generic.WatchCacheConfig{Enabled: true, DefaultSize: 100})
	t.Cleanup(caches.Stop)
	gr := schema.GroupResource{Resource: "configmaps"}
	newFunc := func() runtime.Object { return &corev1.ConfigMap{} }
	newList := func() runtime.Object { return &corev1.ConfigMapList{} }
	var destroys []func()
	for range 2 {
		backend, err := opts.StorageFactory.NewStorage(gr, corev1.SchemeGroupVersion, "", newFunc, newList)
		if err != nil {
			t.Fatal(err)
		}
		cached, destroy, err := caches.Decorate(backend, generic.ResourceStorageConfig{Resource: gr, KeyPrefix: "/configmaps", NewFunc: newFunc, NewListFunc: newList})
		if err != nil {
			t.Fatal(err)
		}
		destroys = append(destroys, destroy)
		w, err := cached.Watch(context.Background(), "/configmaps", storage.ListOptions{ResourceVersion: "0", Recursive: true, Predicate: storage.Everything})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(w.Stop)
	}
	if got := caches.InterestedWatchers(gr, "default", "a"); got != 2 {
		t.Errorf("watchers of configmaps in two caches: %d, want 2", got)
	}
	if got := caches.InterestedWatchers(schema.GroupResource{Resource: "secrets"}, "default", "a"); got != 0 {
		t.Errorf("watchers of secrets: %d, want 0", got)
	}
	destroys[0]()
	if got := caches.InterestedWatchers(gr, "default", "a"); got != 1 {
		t.Errorf("after one cache is destroyed: %d, want 1", got)
	}
}

// events.k8s.io's events are core's objects, counted once as core
// events, as kube-apiserver counts them.
func TestEventsServedByEventsK8sIOAreCountedAsCoreEvents(t *testing.T) {
	opts := restOptions(t)
	tracker := objectcount.New(objectcount.Options{})
	opts.ObjectCounts = tracker
	runCtx, stop := context.WithCancel(context.Background())
	defer stop()
	go tracker.Run(runCtx)
	if _, err := event.NewStorage(opts, eventsv1.SchemeGroupVersion); err != nil {
		t.Fatal(err)
	}
	core := schema.GroupResource{Resource: "events"}
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := tracker.Get(core); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("core events were not counted")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if _, err := tracker.Get(schema.GroupResource{Group: "events.k8s.io", Resource: "events"}); !errors.Is(err, objectcount.ErrUnknown) {
		t.Errorf("events.k8s.io events: err = %v, want ErrUnknown", err)
	}
}
