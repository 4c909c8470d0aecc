package generic

import (
	"context"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kapi-dev/kapi/pkg/storage"
)

// DecorateOnFirstRead defers decorate until the resource is first read or
// watched: writes go to the undecorated storage until then, as a watch
// cache passes them on anyway. A server with a thousand CRDs installed,
// most never read since it started, then keeps no watch cache, etcd watch
// or goroutines for them, as kube-apiserver builds the storage of a
// custom resource on its first request.
//
// A decoration that fails is retried on the next read, which fails with
// the error meanwhile; a storage destroyed before its first read is never
// decorated, and reads after destruction go to the undecorated storage.
func DecorateOnFirstRead(decorate StorageDecorator) StorageDecorator {
	return func(s storage.Interface, res ResourceStorageConfig) (storage.Interface, func(), error) {
		l := &lazilyDecorated{Interface: s, decorate: func() (storage.Interface, func(), error) { return decorate(s, res) }}
		return l, l.destroy, nil
	}
}

// lazilyDecorated is the storage DecorateOnFirstRead returns. Its embedded
// Interface is the undecorated storage, which serves the writes.
type lazilyDecorated struct {
	storage.Interface
	decorate func() (storage.Interface, func(), error)

	mu        sync.Mutex
	decorated storage.Interface // nil until the first read
	release   func()
	destroyed bool
}

// reader returns the storage reads go to, decorating it on first use.
func (l *lazilyDecorated) reader() (storage.Interface, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.decorated != nil {
		return l.decorated, nil
	}
	if l.destroyed {
		return l.Interface, nil
	}
	d, release, err := l.decorate()
	if err != nil {
		return nil, err
	}
	l.decorated, l.release = d, release
	return d, nil
}

func (l *lazilyDecorated) destroy() {
	l.mu.Lock()
	release := l.release
	l.destroyed, l.decorated, l.release = true, nil, nil
	l.mu.Unlock()
	if release != nil {
		release()
	}
}

func (l *lazilyDecorated) Get(ctx context.Context, key string, opts storage.GetOptions, out runtime.Object) error {
	r, err := l.reader()
	if err != nil {
		return err
	}
	return r.Get(ctx, key, opts, out)
}

func (l *lazilyDecorated) GetList(ctx context.Context, key string, opts storage.ListOptions, listObj runtime.Object) error {
	r, err := l.reader()
	if err != nil {
		return err
	}
	return r.GetList(ctx, key, opts, listObj)
}

func (l *lazilyDecorated) Watch(ctx context.Context, key string, opts storage.ListOptions) (watch.Interface, error) {
	r, err := l.reader()
	if err != nil {
		return nil, err
	}
	return r.Watch(ctx, key, opts)
}
