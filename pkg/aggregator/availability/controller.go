package availability

import (
	"context"
	"log/slog"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"

	"github.com/kapi-dev/kapi/pkg/controller/worker"
)

// resyncPeriod is how often every APIService is checked again, as
// kube-apiserver's controllers resync theirs: a backend can go away
// without any object changing.
const resyncPeriod = 30 * time.Second

// controller is what the local and the remote controllers share: a queue
// of APIService names, synced by sync, and the writing of a status.
type controller struct {
	name    string
	lister  Lister
	writer  StatusWriter
	metrics *Metrics
	log     *slog.Logger
	queue   *worker.Queue
	synced  []cache.InformerSynced
}

func newController(name string, lister Lister, writer StatusWriter, metrics *Metrics, log *slog.Logger, sync func(context.Context, string) error) *controller {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c := &controller{name: name, lister: lister, writer: writer, metrics: metrics, log: log}
	// kube-apiserver's backoff: a tight first retry, at most 30 s.
	limiter := workqueue.NewTypedItemExponentialFailureRateLimiter[string](5*time.Millisecond, 30*time.Second)
	c.queue = worker.NewWithRateLimiter(name, limiter, sync, func(key string, err error) {
		c.log.Error("Checking the availability of an APIService failed", "apiservice", key, "err", err)
	})
	return c
}

// run syncs with workers until ctx ends, and queues every APIService
// every resyncPeriod.
func (c *controller) run(ctx context.Context, workers int) {
	go wait.UntilWithContext(ctx, func(context.Context) {
		if !cache.WaitForCacheSync(ctx.Done(), c.synced...) {
			return
		}
		all, _ := c.lister.List(labels.Everything())
		for _, a := range all {
			c.queue.Add(a.Name)
		}
	}, resyncPeriod)
	c.queue.Run(ctx, workers, c.synced...)
}

// watchAPIServices queues every APIService that changes; onChange, if
// not nil, is told first.
func (c *controller) watchAPIServices(informer cache.SharedIndexInformer, onChange func(old, new *apiregistrationv1.APIService)) error {
	reg, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			a := obj.(*apiregistrationv1.APIService)
			if onChange != nil {
				onChange(nil, a)
			}
			c.queue.Add(a.Name)
		},
		UpdateFunc: func(oldObj, newObj any) {
			a := newObj.(*apiregistrationv1.APIService)
			if onChange != nil {
				onChange(oldObj.(*apiregistrationv1.APIService), a)
			}
			c.queue.Add(a.Name)
		},
		DeleteFunc: func(obj any) {
			if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = tomb.Obj
			}
			a, ok := obj.(*apiregistrationv1.APIService)
			if !ok {
				return
			}
			if onChange != nil {
				onChange(a, nil)
			}
			c.queue.Add(a.Name)
		},
	})
	if err != nil {
		return err
	}
	c.synced = append(c.synced, reg.HasSynced)
	return nil
}

// writeStatus writes the status of updated if it differs from that of
// original, and keeps the metrics.
func (c *controller) writeStatus(ctx context.Context, original, updated *apiregistrationv1.APIService) error {
	c.metrics.observe(updated)
	if equality.Semantic.DeepEqual(original.Status, updated.Status) {
		return nil
	}
	before, after := condition(original, apiregistrationv1.Available), condition(updated, apiregistrationv1.Available)
	if before == nil || after == nil || *before != *after {
		attrs := []any{"apiservice", updated.Name}
		if after != nil {
			attrs = append(attrs, "status", after.Status, "reason", after.Reason, "message", after.Message)
		}
		c.log.Info("Changing APIService availability", attrs...)
	}
	written, err := c.writer.UpdateStatus(ctx, updated, metav1.UpdateOptions{})
	if err != nil {
		return err
	}
	c.metrics.changed(original, written)
	return nil
}
