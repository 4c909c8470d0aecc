package generic

import (
	"context"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kapi-dev/kapi/pkg/storage"
)

// DecorateOnFirstUse defers decorate until the resource is first read. A
// server with a thousand CRDs installed, most of them not used since it
// started, then keeps no watch cache, etcd watch or goroutines for those,
// as kube-apiserver builds the storage of a custom resource on its first
// request; and the seventy built-in resources cost nothing at start-up
// until a client lists or watches them.
//
// decorate must be a decoration of reads, as a watch cache is: one that
// passes writes, and reads of the latest state (a Get without a
// resourceVersion, a quorum read), on to the storage below. Until the
// first read the decoration would serve, those calls go to the storage
// below directly and do not make it: a resource only written, or read
// one object at a time, never costs a cache.
//
// A decoration that fails is retried on the next call, which fails with
// the error meanwhile. A storage destroyed before its first use is never
// decorated, and calls after destruction go to the undecorated storage,
// as a stopped watch cache passes them on.
func DecorateOnFirstUse(decorate StorageDecorator) StorageDecorator {
	return func(s storage.Interface, res ResourceStorageConfig) (storage.Interface, func(), error) {
		l := &lazilyDecorated{plain: s, decorate: func() (storage.Interface, func(), error) { return decorate(s, res) }}
		return l, l.destroy, nil
	}
}

// lazilyDecorated is the storage DecorateOnFirstUse returns.
type lazilyDecorated struct {
	plain    storage.Interface
	decorate func() (storage.Interface, func(), error)

	mu        sync.Mutex
	decorated storage.Interface // nil until the first use
	release   func()
	destroyed bool
}

var _ storage.Interface = &lazilyDecorated{}

// use returns the storage calls go to, decorating it on first use.
func (l *lazilyDecorated) use() (storage.Interface, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.decorated != nil {
		return l.decorated, nil
	}
	if l.destroyed {
		return l.plain, nil
	}
	d, release, err := l.decorate()
	if err != nil {
		return nil, err
	}
	l.decorated, l.release = d, release
	return d, nil
}

// current returns the decorated storage if it was made, or else the one
// below, without making the decoration.
func (l *lazilyDecorated) current() storage.Interface {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.decorated != nil {
		return l.decorated
	}
	return l.plain
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

func (l *lazilyDecorated) Create(ctx context.Context, key string, obj, out runtime.Object) error {
	return l.current().Create(ctx, key, obj, out)
}

func (l *lazilyDecorated) Get(ctx context.Context, key string, opts storage.GetOptions, out runtime.Object) error {
	if opts.ResourceVersion == "" {
		return l.current().Get(ctx, key, opts, out)
	}
	s, err := l.use()
	if err != nil {
		return err
	}
	return s.Get(ctx, key, opts, out)
}

func (l *lazilyDecorated) GetList(ctx context.Context, key string, opts storage.ListOptions, listObj runtime.Object) error {
	s, err := l.use()
	if err != nil {
		return err
	}
	return s.GetList(ctx, key, opts, listObj)
}

func (l *lazilyDecorated) GuaranteedUpdate(ctx context.Context, key string, destination runtime.Object, ignoreNotFound bool,
	preconditions *storage.Preconditions, tryUpdate storage.UpdateFunc) error {
	return l.current().GuaranteedUpdate(ctx, key, destination, ignoreNotFound, preconditions, tryUpdate)
}

func (l *lazilyDecorated) Delete(ctx context.Context, key string, out runtime.Object, preconditions *storage.Preconditions,
	validateDeletion storage.ValidateObjectFunc) error {
	return l.current().Delete(ctx, key, out, preconditions, validateDeletion)
}

func (l *lazilyDecorated) Watch(ctx context.Context, key string, opts storage.ListOptions) (watch.Interface, error) {
	s, err := l.use()
	if err != nil {
		return nil, err
	}
	return s.Watch(ctx, key, opts)
}

// CurrentResourceVersion is etcd's, whether decorated or not.
func (l *lazilyDecorated) CurrentResourceVersion(ctx context.Context) (uint64, error) {
	return l.plain.CurrentResourceVersion(ctx)
}
