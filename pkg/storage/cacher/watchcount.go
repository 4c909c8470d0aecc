package cacher

import (
	"strings"
	"sync"
)

// watchScope is what a watcher watches, as API priority and fairness
// counts watchers: every object of the resource (both fields empty), the
// objects of one namespace, or one object.
type watchScope struct {
	namespace, name string
	// ignored marks a watcher that does not count: one pinned to a
	// value of an indexed field, which only the events of objects with
	// that value reach.
	ignored bool
}

// watchCounts counts the live watchers of a Cacher by scope. It is
// updated when a watcher is added or removed, under the Cacher's lock,
// and read under its own.
type watchCounts struct {
	prefix string

	mu     sync.Mutex
	counts map[watchScope]int
}

func (wc *watchCounts) init(prefix string) {
	wc.prefix = prefix
	wc.counts = map[watchScope]int{}
}

// scopeOf returns the scope w counts in. A non-recursive watch names one
// object: "<ns>/<name>" below the prefix for a namespaced resource,
// "<name>" for a cluster-scoped one; a recursive watch covers the whole
// resource or one namespace.
func (wc *watchCounts) scopeOf(w *cacheWatcher) watchScope {
	// kube-apiserver's watch tracker counts a watcher of the pods of
	// one node (spec.nodeName=<node>) only for the events of that node,
	// and approximates that by not counting it at all; those that pin
	// the value "" (the unscheduled pods) count.
	if w.indexField != "" && w.indexValue != "" {
		return watchScope{ignored: true}
	}
	rest := strings.Trim(strings.TrimPrefix(w.scope.key, wc.prefix), "/")
	if w.scope.recursive {
		return watchScope{namespace: rest}
	}
	if ns, name, ok := strings.Cut(rest, "/"); ok {
		return watchScope{namespace: ns, name: name}
	}
	return watchScope{name: rest}
}

func (wc *watchCounts) add(w *cacheWatcher, delta int) {
	if w.counted.ignored {
		return
	}
	wc.mu.Lock()
	defer wc.mu.Unlock()
	n := wc.counts[w.counted] + delta
	if n <= 0 {
		delete(wc.counts, w.counted)
		return
	}
	wc.counts[w.counted] = n
}

// InterestedWatchers returns how many of the cache's watchers are
// interested in a change of the object name in namespace (either may be
// empty: a create has no name yet, a cluster-scoped object no
// namespace): those watching the whole resource, the namespace, or the
// object. It is what a write costs in watch notifications, for API
// priority and fairness, counted as kube-apiserver's watch tracker counts
// (label and field selectors are not looked at: every watcher evaluates
// them for every event).
func (c *Cacher) InterestedWatchers(namespace, name string) int {
	wc := &c.watchCounts
	wc.mu.Lock()
	defer wc.mu.Unlock()
	n := wc.counts[watchScope{}]
	if namespace != "" {
		n += wc.counts[watchScope{namespace: namespace}]
	}
	if name != "" {
		n += wc.counts[watchScope{namespace: namespace, name: name}]
	}
	return n
}
