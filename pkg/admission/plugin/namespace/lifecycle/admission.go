// Package lifecycle is the NamespaceLifecycle admission plugin: nothing is
// created in a namespace that does not exist or is being deleted, and the
// system namespaces cannot be deleted.
//
// As kube-apiserver's plugin, it reads namespaces from an informer's cache
// fed by the loopback client, so that a create costs no read of etcd. The
// cache may lag behind the store, in both directions, and the plugin
// corrects for each:
//   - a namespace just created may not be in the cache yet: a namespace
//     the cache does not have is looked up again after a short wait, then
//     read from the server (the live lookup) before the create is refused;
//   - a namespace just deleted may still look active in the cache: for a
//     while after a namespace's deletion was admitted, creates in it read
//     the namespace from the server.
//
// Until the cache has synced once, writes wait for it, and are refused
// with kube-apiserver's "not yet ready to handle request" if it does not
// sync in time.
package lifecycle

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilcache "k8s.io/apimachinery/pkg/util/cache"
	"k8s.io/utils/clock"

	"github.com/kapi-dev/kapi/pkg/admission"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/internal/namespaces"
)

// PluginName is the plugin's name in --enable-admission-plugins.
const PluginName = "NamespaceLifecycle"

// kube-apiserver's timings.
const (
	// forceLiveLookupTTL is how long after a namespace's deletion was
	// admitted creates in it read it from the server.
	forceLiveLookupTTL = 30 * time.Second
	// missingNamespaceWait is how long a create waits for a namespace the
	// cache does not have before looking again: long enough for a watch
	// event of a namespace created just before.
	missingNamespaceWait = 50 * time.Millisecond
	// readyTimeout bounds how long a write waits for the first sync.
	readyTimeout = 10 * time.Second
	// forceLiveLookupEntries bounds the memory of recent deletions.
	forceLiveLookupEntries = 100
)

// Config is what the plugin needs.
type Config struct {
	// Lister reads the informer's cache; HasSynced reports whether it has
	// synced once.
	Lister    namespaces.Cache
	HasSynced func() bool
	// Live reads a namespace the cache cannot be trusted about, as the
	// server (through the loopback client), whatever the requester may
	// read.
	Live namespaces.Live
	// Immortal namespaces may never be deleted.
	Immortal []string
	// Clock is the time of the waits and of the memory of deletions; nil
	// means the real clock.
	Clock clock.WithTicker
}

// Lifecycle is the plugin.
type Lifecycle struct {
	lister    namespaces.Cache
	hasSynced func() bool
	live      namespaces.Live
	immortal  map[string]bool
	clock     clock.WithTicker
	// forceLiveLookup holds the namespaces whose deletion was admitted in
	// the last forceLiveLookupTTL: the cache may not show it yet.
	forceLiveLookup *utilcache.LRUExpireCache
}

// New returns the plugin.
func New(cfg Config) *Lifecycle {
	c := cfg.Clock
	if c == nil {
		c = clock.RealClock{}
	}
	l := &Lifecycle{
		lister:          cfg.Lister,
		hasSynced:       cfg.HasSynced,
		live:            cfg.Live,
		immortal:        map[string]bool{},
		clock:           c,
		forceLiveLookup: utilcache.NewLRUExpireCacheWithClock(forceLiveLookupEntries, c),
	}
	for _, n := range cfg.Immortal {
		l.immortal[n] = true
	}
	return l
}

// Handles says the plugin sees creates, updates and deletes.
func (l *Lifecycle) Handles(op admission.Operation) bool {
	return op == admission.Create || op == admission.Update || op == admission.Delete
}

// accessReviewResources tell what a user may do in a namespace; refusing
// them for a missing namespace would tell who may not see it whether it
// exists.
var accessReviewResources = map[schema.GroupResource]bool{
	{Group: "authorization.k8s.io", Resource: "localsubjectaccessreviews"}: true,
}

// Admit rejects creates in missing or terminating namespaces and the
// deletion of immortal ones. As kube-apiserver's, it runs in the mutating
// phase (changing nothing), so a create in a missing namespace is refused
// before the object is validated.
func (l *Lifecycle) Admit(ctx context.Context, a *admission.Attributes) error {
	if a.Resource.Group == "" && a.Resource.Resource == "namespaces" {
		if a.Operation == admission.Delete && a.Subresource == "" {
			if l.immortal[a.Name] {
				return apierrors.NewForbidden(a.Resource.GroupResource(), a.Name, fmt.Errorf("this namespace may not be deleted"))
			}
			l.forceLiveLookup.Add(a.Name, true, forceLiveLookupTTL)
		}
		return nil
	}
	if a.Namespace == "" || a.Operation != admission.Create || accessReviewResources[a.Resource.GroupResource()] {
		return nil
	}
	if !l.waitForSync(ctx) {
		return admission.NewForbidden(a, fmt.Errorf("not yet ready to handle request"))
	}

	ns, err := l.cached(a.Namespace)
	if err != nil {
		return err
	}
	if ns == nil {
		// A namespace created a moment ago may be on its way to the cache.
		if err := l.sleep(ctx, missingNamespaceWait); err != nil {
			return err
		}
		if ns, err = l.cached(a.Namespace); err != nil {
			return err
		}
	}
	_, deletedLately := l.forceLiveLookup.Get(a.Namespace)
	if ns == nil || deletedLately && ns.Status.Phase == corev1.NamespaceActive {
		ns, err = l.live.Get(ctx, a.Namespace, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			return apierrors.NewNotFound(corev1.Resource("namespaces"), a.Namespace)
		case err != nil:
			return apierrors.NewInternalError(err)
		}
	}

	if ns.Status.Phase != corev1.NamespaceTerminating {
		return nil
	}
	err = admission.NewForbidden(a, fmt.Errorf("unable to create new content in namespace %s because it is being terminated", a.Namespace))
	if status, ok := err.(*apierrors.StatusError); ok {
		status.ErrStatus.Details.Causes = append(status.ErrStatus.Details.Causes, metav1.StatusCause{
			Type:    corev1.NamespaceTerminatingCause,
			Message: fmt.Sprintf("namespace %s is being terminated", a.Namespace),
			Field:   "metadata.namespace",
		})
	}
	return err
}

// cached is the cache's copy of a namespace, nil when it has none.
func (l *Lifecycle) cached(name string) (*corev1.Namespace, error) {
	ns, err := l.lister.Get(name)
	switch {
	case apierrors.IsNotFound(err):
		return nil, nil
	case err != nil:
		return nil, apierrors.NewInternalError(err)
	}
	return ns, nil
}

// waitForSync waits, at most readyTimeout, for the cache's first sync.
func (l *Lifecycle) waitForSync(ctx context.Context) bool {
	if l.hasSynced() {
		return true
	}
	deadline := l.clock.Now().Add(readyTimeout)
	for l.clock.Now().Before(deadline) {
		if l.sleep(ctx, 100*time.Millisecond) != nil {
			return false
		}
		if l.hasSynced() {
			return true
		}
	}
	return false
}

// sleep waits d, or until the request ends.
func (l *Lifecycle) sleep(ctx context.Context, d time.Duration) error {
	t := l.clock.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C():
		return nil
	case <-ctx.Done():
		return apierrors.NewTimeoutError(fmt.Sprintf("request did not complete: %v", ctx.Err()), 0)
	}
}
