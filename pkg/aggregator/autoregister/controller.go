package autoregister

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"time"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/util/workqueue"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
)

// Label says whether and how an APIService is kept by this package.
const Label = "kube-aggregator.kubernetes.io/automanaged"

// The values of Label.
const (
	// OnStart: made or put right once, when the server starts.
	OnStart = "onstart"
	// Continuously: kept as long as it is wanted.
	Continuously = "true"
)

// Lister reads the APIServices the server has, from an informer.
type Lister interface {
	Get(name string) (*apiregistrationv1.APIService, error)
	List(selector labels.Selector) ([]*apiregistrationv1.APIService, error)
}

// Client writes APIServices: the loopback client, so that the writes go
// through admission and are recorded under the field manager
// "kube-apiserver", as kube-apiserver's.
type Client interface {
	Create(ctx context.Context, s *apiregistrationv1.APIService, opts metav1.CreateOptions) (*apiregistrationv1.APIService, error)
	Update(ctx context.Context, s *apiregistrationv1.APIService, opts metav1.UpdateOptions) (*apiregistrationv1.APIService, error)
	Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error
}

// Controller keeps the APIServices it is told to keep. Names are queued
// when what is wanted of them changes (SyncOnStart, Sync, Remove) and
// when the APIService itself changes (Enqueue, from the informer Lister
// reads); each is then compared with what is wanted, by a few workers
// (a name is never synced by two at once: the queue hands it to one).
type Controller struct {
	lister Lister
	queue  workqueue.TypedRateLimitingInterface[string]
	log    *slog.Logger

	mu sync.Mutex
	// wanted are the APIServices to keep, labelled with how.
	wanted map[string]*apiregistrationv1.APIService
	// synced are the names synced once without error since the start:
	// an onstart APIService is not synced again.
	synced map[string]bool
	// atStart are the names of the APIServices that existed when the
	// controller started: an onstart APIService created later (by
	// someone else) is not ours to delete.
	atStart map[string]bool
}

// New returns a controller that reads APIServices from lister; nil log
// discards the log.
func New(lister Lister, log *slog.Logger) *Controller {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Controller{
		lister: lister,
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "autoregister"}),
		log:     log,
		wanted:  map[string]*apiregistrationv1.APIService{},
		synced:  map[string]bool{},
		atStart: map[string]bool{},
	}
}

// SyncOnStart keeps s once, when the controller starts.
func (c *Controller) SyncOnStart(s *apiregistrationv1.APIService) { c.want(s, OnStart) }

// Sync keeps s for as long as it is wanted.
func (c *Controller) Sync(s *apiregistrationv1.APIService) { c.want(s, Continuously) }

func (c *Controller) want(s *apiregistrationv1.APIService, how string) {
	s = s.DeepCopy()
	if s.Labels == nil {
		s.Labels = map[string]string{}
	}
	s.Labels[Label] = how
	c.mu.Lock()
	c.wanted[s.Name] = s
	c.mu.Unlock()
	c.queue.Add(s.Name)
}

// Remove stops keeping the APIService named name: if it is ours, it is
// deleted.
func (c *Controller) Remove(name string) {
	c.mu.Lock()
	delete(c.wanted, name)
	c.mu.Unlock()
	c.queue.Add(name)
}

// Enqueue has the APIService named name compared again: call it for
// every event of the informer Lister reads.
func (c *Controller) Enqueue(name string) { c.queue.Add(name) }

// Wanted returns the names of the APIServices kept with how (OnStart or
// Continuously), sorted.
func (c *Controller) Wanted(how string) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for name, s := range c.wanted {
		if s.Labels[Label] == how {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// Run syncs until ctx is done. The informer Lister reads must have
// synced: the APIServices it has are those that existed at the start.
func (c *Controller) Run(ctx context.Context, client Client) {
	defer c.queue.ShutDown()
	existing, err := c.lister.List(labels.Everything())
	if err != nil {
		c.log.Error("Listing the APIServices at start", "err", err)
	}
	c.mu.Lock()
	for _, s := range existing {
		c.atStart[s.Name] = true
	}
	c.mu.Unlock()
	// Stored APIServices nobody wants any more are compared too.
	for _, s := range existing {
		c.queue.Add(s.Name)
	}
	go func() {
		<-ctx.Done()
		c.queue.ShutDown()
	}()
	// Several workers, as kube-apiserver's: the first start creates every
	// built-in APIService, and the server is not ready before.
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			wait.UntilWithContext(ctx, func(ctx context.Context) {
				for c.next(ctx, client) {
				}
			}, time.Second)
		})
	}
	wg.Wait()
}

// workers is how many APIServices are synced at once.
const workers = 5

func (c *Controller) next(ctx context.Context, client Client) bool {
	name, quit := c.queue.Get()
	if quit {
		return false
	}
	defer c.queue.Done(name)
	if err := c.sync(ctx, client, name); err != nil {
		c.log.Error("Syncing an APIService", "name", name, "err", err)
		c.queue.AddRateLimited(name)
		return true
	}
	c.queue.Forget(name)
	return true
}

// sync compares the APIService named name with what is wanted of it, as
// kube-aggregator's autoregister controller does:
//
//	stored \ wanted               | not wanted  | onstart     | continuously
//	------------------------------+-------------+-------------+-------------
//	missing                       | -           | create once | create
//	not labelled                  | -           | -           | -
//	onstart, created since start  | -           | -           | -
//	onstart, there at start       | delete once | update once | update once
//	continuously                  | delete      | update once | update
//
// "once": not again after the first sync without error since the start.
// An update sets the wanted spec and keeps the rest.
func (c *Controller) sync(ctx context.Context, client Client, name string) (err error) {
	c.mu.Lock()
	wanted := c.wanted[name]
	synced := c.synced[name]
	atStart := c.atStart[name]
	c.mu.Unlock()
	if !synced {
		defer func() {
			if err == nil {
				c.mu.Lock()
				c.synced[name] = true
				c.mu.Unlock()
			}
		}()
	}

	stored, err := c.lister.Get(name)
	switch {
	case err != nil && !apierrors.IsNotFound(err):
		return err
	case stored == nil && wanted == nil:
		return nil
	case how(wanted) == OnStart && synced:
		return nil
	case stored == nil:
		_, err := client.Create(ctx, wanted, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			return nil // the informer will tell
		}
		return err
	case how(stored) != OnStart && how(stored) != Continuously:
		return nil
	case how(stored) == OnStart && (!atStart || synced):
		return nil
	case wanted == nil:
		err := client.Delete(ctx, name, metav1.DeleteOptions{Preconditions: metav1.NewUIDPreconditions(string(stored.UID))})
		if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
			return nil
		}
		return err
	case apiequality.Semantic.DeepEqual(stored.Spec, wanted.Spec):
		return nil
	}
	update := stored.DeepCopy()
	update.Spec = wanted.Spec
	_, err = client.Update(ctx, update, metav1.UpdateOptions{})
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return nil
	}
	return err
}

// how is the value of the Label of s, "" for nil.
func how(s *apiregistrationv1.APIService) string {
	if s == nil {
		return ""
	}
	return s.Labels[Label]
}
