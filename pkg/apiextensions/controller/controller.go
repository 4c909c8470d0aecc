// Package controller holds the controllers that keep the status of
// CustomResourceDefinitions: which names each CRD has been given
// (NamesAccepted), whether its resources are served (Established), its
// standing with the Kubernetes API review policy
// (KubernetesAPIApprovalPolicyConformant), and the cleanup of its custom
// resources when it is deleted (Terminating and the cleanup finalizer).
//
// They run inside the server and work on the CRD storage directly: a
// Lister reads the informer's current state and a StatusWriter writes
// /status, which is all a status controller needs.
package controller

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/util/workqueue"
)

// Lister reads the current CRDs.
type Lister interface {
	Get(name string) (*apiextensionsv1.CustomResourceDefinition, bool)
	// ListGroup returns the CRDs of an API group. Names are decided
	// within a group, and a server may have a thousand CRDs: no
	// controller looks at all of them for a change of one.
	ListGroup(group string) []*apiextensionsv1.CustomResourceDefinition
}

// StatusWriter writes the status (and finalizers) of a CRD, failing with a
// conflict when crd is not its current version.
type StatusWriter func(ctx context.Context, crd *apiextensionsv1.CustomResourceDefinition) (*apiextensionsv1.CustomResourceDefinition, error)

// queue runs sync for the names queued, one at a time, retrying failures
// with backoff.
type queue struct {
	name string
	q    workqueue.TypedRateLimitingInterface[string]
	sync func(ctx context.Context, name string) error
	log  *slog.Logger
}

func newQueue(name string, log *slog.Logger, sync func(ctx context.Context, name string) error) *queue {
	return &queue{
		name: name,
		q: workqueue.NewTypedRateLimitingQueueWithConfig(
			workqueue.NewTypedItemExponentialFailureRateLimiter[string](5*time.Millisecond, 30*time.Second),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: name}),
		sync: sync,
		log:  log,
	}
}

// Add queues a CRD by name.
func (q *queue) Add(name string) { q.q.Add(name) }

// AddAfter queues a CRD after a delay.
func (q *queue) AddAfter(name string, d time.Duration) { q.q.AddAfter(name, d) }

// Run works the queue until ctx is done.
func (q *queue) Run(ctx context.Context) {
	go func() {
		<-ctx.Done()
		q.q.ShutDown()
	}()
	wait.UntilWithContext(ctx, func(ctx context.Context) {
		for q.next(ctx) {
		}
	}, time.Second)
}

func (q *queue) next(ctx context.Context) bool {
	name, quit := q.q.Get()
	if quit {
		return false
	}
	defer q.q.Done(name)
	err := q.syncSafely(ctx, name)
	switch {
	case err == nil:
		q.q.Forget(name)
	case apierrors.IsConflict(err) || apierrors.IsNotFound(err):
		// A newer version of the CRD is on its way through the informer,
		// which queues it again.
		q.q.Forget(name)
	default:
		q.log.Debug("CRD controller failed, retrying", "controller", q.name, "crd", name, "err", err)
		q.q.AddRateLimited(name)
	}
	return true
}

// syncSafely runs sync, turning a panic into an error: a bug in one
// controller must not take the server down.
func (q *queue) syncSafely(ctx context.Context, name string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			q.log.Error("CRD controller panicked", "controller", q.name, "crd", name, "panic", r, "stack", string(debug.Stack()))
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	return q.sync(ctx, name)
}
