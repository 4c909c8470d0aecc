package resourcequota

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/utils/clock"
	"k8s.io/utils/lru"
)

// QuotaLister reads quotas from an informer's cache (client-go's
// ResourceQuotaLister is one).
type QuotaLister interface {
	List(selector labels.Selector) ([]*corev1.ResourceQuota, error)
}

// NamespacedQuotaLister is a QuotaLister of each namespace.
type NamespacedQuotaLister func(namespace string) QuotaLister

// QuotaClient reads and writes the quotas of one namespace on the server
// (client-go's typed ResourceQuotaInterface is one).
type QuotaClient interface {
	List(ctx context.Context, opts metav1.ListOptions) (*corev1.ResourceQuotaList, error)
	UpdateStatus(ctx context.Context, quota *corev1.ResourceQuota, opts metav1.UpdateOptions) (*corev1.ResourceQuota, error)
}

const (
	// liveLookupTTL is how long a live list of a namespace's quotas,
	// made while the cache had not synced, stands in for the cache.
	liveLookupTTL = 30 * time.Second
	// cachedEntries bounds each of the two look-aside caches.
	cachedEntries = 100
)

// quotas gives the quotas of a namespace and writes their status. It
// reads the informer's cache, corrected by two look-aside caches as in
// kube-apiserver:
//   - the quotas this plugin wrote last: the informer may not have seen
//     the write yet, and a newer resourceVersion wins;
//   - until the informer has synced once, a live list of a namespace the
//     cache has no quota of, kept for liveLookupTTL.
//
// And, unlike kube-apiserver, it reads what clients wrote: once a
// client's create or update of a quota has been admitted, the quotas of
// its namespace are read from the server until the cache shows the write
// (or liveLookupTTL has passed: the write failed). So a write right after
// a quota's status was set is charged against that status, not refused or
// let through by a cache a few milliseconds behind.
type quotas struct {
	lister    NamespacedQuotaLister
	hasSynced func() bool
	client    func(namespace string) QuotaClient
	clock     clock.PassiveClock

	liveMu sync.Mutex // one live list at a time
	live   *lru.Cache // namespace -> liveLookup
	// written: namespace/name -> *corev1.ResourceQuota as last written.
	written *lru.Cache
	// pending are the quota writes of clients the cache may not show yet,
	// by namespace and name.
	pendingMu sync.Mutex
	pending   map[string]map[string]pendingWrite
}

// pendingWrite is a client's write of a quota, admitted: the cache shows
// it once it has the quota at a resourceVersion after the one written
// over ("" for a create), or, failing that (the write failed), once
// expiry has passed.
type pendingWrite struct {
	after  string
	expiry time.Time
}

type liveLookup struct {
	expiry time.Time
	items  []corev1.ResourceQuota
}

// get returns copies of the quotas of namespace.
func (q *quotas) get(ctx context.Context, namespace string) ([]corev1.ResourceQuota, error) {
	items, err := q.lister(namespace).List(labels.Everything())
	if err != nil {
		return nil, fmt.Errorf("error resolving quota: %v", err)
	}
	if q.awaiting(namespace, items) {
		live, err := q.fresh(ctx, namespace)
		if err != nil {
			return nil, err
		}
		items = make([]*corev1.ResourceQuota, 0, len(live))
		for i := range live {
			items = append(items, &live[i])
		}
	}
	if len(items) == 0 && !q.hasSynced() {
		live, err := q.liveList(ctx, namespace)
		if err != nil {
			return nil, err
		}
		for i := range live {
			items = append(items, &live[i])
		}
	}
	out := make([]corev1.ResourceQuota, 0, len(items))
	for _, item := range items {
		// A copy: the evaluation changes it, never the cache's.
		out = append(out, *q.newest(item).DeepCopy())
	}
	return out, nil
}

// liveList lists namespace's quotas from the server, at most once per
// liveLookupTTL.
func (q *quotas) liveList(ctx context.Context, namespace string) ([]corev1.ResourceQuota, error) {
	q.liveMu.Lock()
	defer q.liveMu.Unlock()
	if e, ok := q.live.Get(namespace); ok && q.clock.Now().Before(e.(liveLookup).expiry) {
		return e.(liveLookup).items, nil
	}
	list, err := q.client(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	q.live.Add(namespace, liveLookup{expiry: q.clock.Now().Add(liveLookupTTL), items: list.Items})
	return list.Items, nil
}

// newest is quota, or the copy this plugin wrote last if that is newer.
func (q *quotas) newest(quota *corev1.ResourceQuota) *corev1.ResourceQuota {
	key := quota.Namespace + "/" + quota.Name
	e, ok := q.written.Get(key)
	if !ok {
		return quota
	}
	written := e.(*corev1.ResourceQuota)
	if compareResourceVersion(quota.ResourceVersion, written.ResourceVersion) >= 0 {
		q.written.Remove(key)
		return quota
	}
	return written
}

// compareResourceVersion compares two etcd revisions; an unparsable one
// is older.
func compareResourceVersion(a, b string) int {
	x, errA := strconv.ParseUint(a, 10, 64)
	y, errB := strconv.ParseUint(b, 10, 64)
	switch {
	case errA != nil && errB != nil:
		return 0
	case errA != nil:
		return -1
	case errB != nil:
		return 1
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// updateStatus writes quota's status, and remembers what was written.
func (q *quotas) updateStatus(ctx context.Context, quota *corev1.ResourceQuota) error {
	updated, err := q.client(quota.Namespace).UpdateStatus(ctx, quota, metav1.UpdateOptions{})
	if err != nil {
		return err
	}
	q.written.Add(quota.Namespace+"/"+quota.Name, updated)
	return nil
}

// fresh reads namespace's quotas from the server, past the cache: after
// a write conflicted, the cache may not have the quota that won yet.
func (q *quotas) fresh(ctx context.Context, namespace string) ([]corev1.ResourceQuota, error) {
	list, err := q.client(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	return list.Items, nil
}

// wroteQuota notes that a client is writing quota name of namespace
// (name "" if it is yet to be generated) over resourceVersion after (""
// for a create).
func (q *quotas) wroteQuota(namespace, name, after string) {
	q.pendingMu.Lock()
	defer q.pendingMu.Unlock()
	if q.pending == nil {
		q.pending = map[string]map[string]pendingWrite{}
	}
	if len(q.pending) > cachedEntries {
		// Namespaces never read since: forget what expired.
		for ns := range q.pending {
			q.settle(ns, nil)
		}
	}
	if q.pending[namespace] == nil {
		q.pending[namespace] = map[string]pendingWrite{}
	}
	q.pending[namespace][name] = pendingWrite{after: after, expiry: q.clock.Now().Add(liveLookupTTL)}
}

// awaiting says whether the cache, which holds cached of namespace, may
// not show a client's write yet.
func (q *quotas) awaiting(namespace string, cached []*corev1.ResourceQuota) bool {
	q.pendingMu.Lock()
	defer q.pendingMu.Unlock()
	if len(q.pending[namespace]) == 0 {
		return false
	}
	return q.settle(namespace, cached)
}

// settle forgets the pending writes of namespace the cache shows, or
// that expired, and says whether some remain. Called with pendingMu.
func (q *quotas) settle(namespace string, cached []*corev1.ResourceQuota) bool {
	now := q.clock.Now()
	for name, w := range q.pending[namespace] {
		shown := false
		for _, c := range cached {
			if c.Name == name && (w.after == "" || compareResourceVersion(c.ResourceVersion, w.after) > 0) {
				shown = true
				break
			}
		}
		if shown || now.After(w.expiry) {
			delete(q.pending[namespace], name)
		}
	}
	if len(q.pending[namespace]) == 0 {
		delete(q.pending, namespace)
		return false
	}
	return true
}
