package resourcequota

import (
	"sync"

	"github.com/kapi-dev/kapi/pkg/admission"
)

// waiter is one write waiting for the verdict of quota.
type waiter struct {
	a    *admission.Attributes
	done chan struct{}
	// result is the verdict, errUndecided until one is reached; it is
	// read once done is closed.
	result error
}

// undecided is the verdict of a write whose charge has not been written
// yet: a refusal unless the write of the quotas succeeds.
type undecided struct{}

func (undecided) Error() string { return "DEFAULT DENY" }

var errUndecided error = undecided{}

// batcher groups the writes of each namespace into batches checked one
// at a time: while a batch is checked, the writes that arrive in its
// namespace wait together for the next one. So one status write charges
// many objects, and two charges of one namespace never race each other
// in this server. At most workers namespaces are checked at once; a
// namespace's goroutine lives while it has writes waiting.
type batcher struct {
	check func(namespace string, batch []*waiter)
	slots chan struct{}

	mu      sync.Mutex
	pending map[string][]*waiter
	running map[string]bool
}

func newBatcher(workers int, check func(string, []*waiter)) *batcher {
	return &batcher{
		check:   check,
		slots:   make(chan struct{}, workers),
		pending: map[string][]*waiter{},
		running: map[string]bool{},
	}
}

// add queues w in its namespace's next batch.
func (b *batcher) add(w *waiter) {
	ns := w.a.Namespace
	b.mu.Lock()
	defer b.mu.Unlock()
	b.pending[ns] = append(b.pending[ns], w)
	if !b.running[ns] {
		b.running[ns] = true
		go b.run(ns)
	}
}

// run checks namespace's batches until none is waiting.
func (b *batcher) run(namespace string) {
	b.slots <- struct{}{}
	defer func() { <-b.slots }()
	for {
		b.mu.Lock()
		batch := b.pending[namespace]
		delete(b.pending, namespace)
		if len(batch) == 0 {
			delete(b.running, namespace)
			b.mu.Unlock()
			return
		}
		b.mu.Unlock()
		b.check(namespace, batch)
	}
}
