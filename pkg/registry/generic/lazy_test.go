package generic_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/storage"
)

// recordingStorage records which of its methods were called, by name.
type recordingStorage struct {
	storage.Interface // nil: only the methods below may be called
	name              string
	calls             *[]string
	mu                *sync.Mutex
}

func (r recordingStorage) record(method string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	*r.calls = append(*r.calls, r.name+"."+method)
}

func (r recordingStorage) Create(context.Context, string, runtime.Object, runtime.Object) error {
	r.record("Create")
	return nil
}

func (r recordingStorage) Get(context.Context, string, storage.GetOptions, runtime.Object) error {
	r.record("Get")
	return nil
}

func (r recordingStorage) GetList(context.Context, string, storage.ListOptions, runtime.Object) error {
	r.record("GetList")
	return nil
}

func (r recordingStorage) Watch(context.Context, string, storage.ListOptions) (watch.Interface, error) {
	r.record("Watch")
	return watch.NewEmptyWatch(), nil
}

// lazyFixture is a storage decorated on first use, and what happened to it.
type lazyFixture struct {
	s         storage.Interface
	destroy   func()
	calls     []string
	mu        sync.Mutex
	decorated atomic.Int32
	released  atomic.Int32
	fail      atomic.Bool
}

func newLazyFixture(t *testing.T) *lazyFixture {
	f := &lazyFixture{}
	plain := recordingStorage{name: "etcd", calls: &f.calls, mu: &f.mu}
	decorate := func(s storage.Interface, _ generic.ResourceStorageConfig) (storage.Interface, func(), error) {
		if s != plain {
			t.Errorf("decorated %v, want the undecorated storage", s)
		}
		if f.fail.Load() {
			return nil, nil, errors.New("no cache today")
		}
		f.decorated.Add(1)
		return recordingStorage{name: "cache", calls: &f.calls, mu: &f.mu}, func() { f.released.Add(1) }, nil
	}
	s, destroy, err := generic.DecorateOnFirstUse(decorate)(plain, generic.ResourceStorageConfig{})
	if err != nil {
		t.Fatal(err)
	}
	f.s, f.destroy = s, destroy
	return f
}

func (f *lazyFixture) calledLast() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[len(f.calls)-1]
}

func TestDecorateOnFirstUse(t *testing.T) {
	ctx := context.Background()

	t.Run("nothing is decorated before it is used", func(t *testing.T) {
		f := newLazyFixture(t)
		if f.decorated.Load() != 0 {
			t.Errorf("decorated %d times before any use", f.decorated.Load())
		}
	})

	t.Run("the first use decorates, once, for every call", func(t *testing.T) {
		f := newLazyFixture(t)
		var wg sync.WaitGroup
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := f.s.GetList(ctx, "/k", storage.ListOptions{}, nil); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		if err := f.s.Create(ctx, "/k", nil, nil); err != nil {
			t.Fatal(err)
		}
		if f.calledLast() != "cache.Create" {
			t.Errorf("a create went to %s", f.calledLast())
		}
		if _, err := f.s.Watch(ctx, "/k", storage.ListOptions{}); err != nil {
			t.Fatal(err)
		}
		if f.calledLast() != "cache.Watch" {
			t.Errorf("a watch went to %s", f.calledLast())
		}
		if err := f.s.Get(ctx, "/k", storage.GetOptions{}, nil); err != nil {
			t.Fatal(err)
		}
		if f.calledLast() != "cache.Get" {
			t.Errorf("a get went to %s", f.calledLast())
		}
		if got := f.decorated.Load(); got != 1 {
			t.Errorf("decorated %d times, want once", got)
		}
		f.destroy()
		if got := f.released.Load(); got != 1 {
			t.Errorf("released %d times, want once", got)
		}
	})

	t.Run("writes and reads of the latest state are not a use", func(t *testing.T) {
		// A watch cache passes them on to etcd: making one for them
		// would cost memory and an etcd watch for nothing.
		f := newLazyFixture(t)
		if err := f.s.Create(ctx, "/k", nil, nil); err != nil {
			t.Fatal(err)
		}
		if f.decorated.Load() != 0 || f.calledLast() != "etcd.Create" {
			t.Errorf("a write decorated %d times and went to %s", f.decorated.Load(), f.calledLast())
		}
		if err := f.s.Get(ctx, "/k", storage.GetOptions{}, nil); err != nil {
			t.Fatal(err)
		}
		if f.decorated.Load() != 0 || f.calledLast() != "etcd.Get" {
			t.Errorf("a quorum read decorated %d times and went to %s", f.decorated.Load(), f.calledLast())
		}
		if err := f.s.Get(ctx, "/k", storage.GetOptions{ResourceVersion: "0"}, nil); err != nil {
			t.Fatal(err)
		}
		if f.decorated.Load() != 1 || f.calledLast() != "cache.Get" {
			t.Errorf("a read of any state decorated %d times and went to %s", f.decorated.Load(), f.calledLast())
		}
		if err := f.s.Create(ctx, "/k", nil, nil); err != nil {
			t.Fatal(err)
		}
		if f.calledLast() != "cache.Create" {
			t.Errorf("once decorated, a write went to %s", f.calledLast())
		}
	})

	t.Run("destroyed before any use, it is never decorated", func(t *testing.T) {
		f := newLazyFixture(t)
		f.destroy()
		if err := f.s.Get(ctx, "/k", storage.GetOptions{}, nil); err != nil {
			t.Fatal(err)
		}
		if f.decorated.Load() != 0 || f.released.Load() != 0 || f.calledLast() != "etcd.Get" {
			t.Errorf("decorated %d, released %d, read from %s", f.decorated.Load(), f.released.Load(), f.calledLast())
		}
	})

	t.Run("calls after destruction go to the undecorated storage", func(t *testing.T) {
		f := newLazyFixture(t)
		if err := f.s.GetList(ctx, "/k", storage.ListOptions{}, nil); err != nil {
			t.Fatal(err)
		}
		f.destroy()
		if err := f.s.GetList(ctx, "/k", storage.ListOptions{}, nil); err != nil {
			t.Fatal(err)
		}
		if f.decorated.Load() != 1 || f.calledLast() != "etcd.GetList" {
			t.Errorf("decorated %d times, read from %s", f.decorated.Load(), f.calledLast())
		}
	})

	t.Run("a failed decoration fails the call and is retried", func(t *testing.T) {
		f := newLazyFixture(t)
		f.fail.Store(true)
		if err := f.s.Get(ctx, "/k", storage.GetOptions{ResourceVersion: "0"}, nil); err == nil {
			t.Fatal("a read succeeded without its decoration")
		}
		f.fail.Store(false)
		if err := f.s.Get(ctx, "/k", storage.GetOptions{ResourceVersion: "0"}, nil); err != nil {
			t.Fatal(err)
		}
		if f.decorated.Load() != 1 || f.calledLast() != "cache.Get" {
			t.Errorf("decorated %d times, read from %s", f.decorated.Load(), f.calledLast())
		}
	})
}
