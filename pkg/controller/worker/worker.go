// Package worker is the loop of kapi's in-process controllers, as
// kube-controller-manager's controllers run theirs: named keys queue up
// (a key queued twice before it is taken is synced once), workers take
// them one at a time per key, and a key whose sync fails is queued again
// after the rate limiter's backoff.
package worker

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
)

// Queue is a controller's work: its keys and what syncing one means.
type Queue struct {
	queue workqueue.TypedRateLimitingInterface[string]
	sync  func(ctx context.Context, key string) error
	// failed is told of each failed sync, before its retry.
	failed func(key string, err error)
}

// New returns a queue named name (as kube names its controllers' queues)
// whose keys are synced by sync; failed, if not nil, is told of each
// failure before the key is retried.
func New(name string, sync func(ctx context.Context, key string) error, failed func(key string, err error)) *Queue {
	return NewWithRateLimiter(name, workqueue.DefaultTypedControllerRateLimiter[string](), sync, failed)
}

// NewWithRateLimiter is New with the backoff of failed keys given, for
// the controllers whose kube-apiserver counterparts retry on a schedule
// of their own.
func NewWithRateLimiter(name string, limiter workqueue.TypedRateLimiter[string], sync func(ctx context.Context, key string) error, failed func(key string, err error)) *Queue {
	return &Queue{
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(limiter,
			workqueue.TypedRateLimitingQueueConfig[string]{Name: name},
		),
		sync:   sync,
		failed: failed,
	}
}

// Add queues key.
func (q *Queue) Add(key string) { q.queue.Add(key) }

// Run waits for the informers to sync, then syncs keys with workers
// goroutines until ctx is done, and returns once they have stopped.
func (q *Queue) Run(ctx context.Context, workers int, synced ...cache.InformerSynced) {
	defer q.queue.ShutDown()
	if !cache.WaitForCacheSync(ctx.Done(), synced...) {
		return
	}
	done := make(chan struct{})
	for range workers {
		go func() {
			defer func() { done <- struct{}{} }()
			wait.UntilWithContext(ctx, func(ctx context.Context) {
				for q.next(ctx) {
				}
			}, time.Second)
		}()
	}
	<-ctx.Done()
	q.queue.ShutDown()
	for range workers {
		<-done
	}
}

// next syncs the next key, and says false once the queue is shut down.
func (q *Queue) next(ctx context.Context) bool {
	key, quit := q.queue.Get()
	if quit {
		return false
	}
	defer q.queue.Done(key)
	if err := q.sync(ctx, key); err != nil {
		if q.failed != nil {
			q.failed(key, err)
		}
		q.queue.AddRateLimited(key)
		return true
	}
	q.queue.Forget(key)
	return true
}
