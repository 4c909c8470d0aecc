package cacher

import (
	"context"
	"fmt"
	"reflect"
	"slices"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/pkg/storage"
)

// The list path of the Cacher: which lists it serves from memory (the
// package documentation says which), and how it reads them from the
// state, at its revision or at a past one.

// listPlan says how a list is served.
type listPlan struct {
	// fromCache is false for a list the underlying storage answers.
	fromCache bool
	// consistent asks for the storage's current revision: the cache must
	// reach it first.
	consistent bool
	// minRV is the revision the cache must reach first.
	minRV uint64
	// atRV, if set, is the past revision the list is read at (Exact, a
	// continue token, the legacy paged form); otherwise the list is read
	// at the cache's revision.
	atRV uint64
	// from is the key a continued list resumes at.
	from string
}

// planList decides how a list is served; the package documentation says
// which lists are served from memory.
func (c *Cacher) planList(key string, opts storage.ListOptions) (listPlan, error) {
	if opts.Predicate.Continue != "" {
		if !opts.Recursive || (opts.ResourceVersion != "" && opts.ResourceVersion != "0") {
			// The storage answers with its error.
			return listPlan{}, nil
		}
		from, rv, err := storage.DecodeContinue(opts.Predicate.Continue, newKeyScope(key, true).prefix)
		if err != nil {
			return listPlan{}, err
		}
		if rv <= 0 {
			// An inconsistent continuation, at the latest revision.
			return listPlan{}, nil
		}
		return listPlan{fromCache: true, minRV: uint64(rv), atRV: uint64(rv), from: from}, nil
	}
	rv, err := storage.ParseResourceVersion(opts.ResourceVersion)
	if err != nil {
		return listPlan{}, err
	}
	switch metav1.ResourceVersionMatch(opts.ResourceVersionMatch) {
	case metav1.ResourceVersionMatchExact:
		if rv == 0 {
			return listPlan{}, nil
		}
		return listPlan{fromCache: true, minRV: rv, atRV: rv}, nil
	case metav1.ResourceVersionMatchNotOlderThan:
		return listPlan{fromCache: true, minRV: rv}, nil
	case "":
		if opts.Recursive && opts.Predicate.Limit > 0 && rv > 0 {
			// The legacy paged list pins its first page to rv.
			return listPlan{fromCache: true, minRV: rv, atRV: rv}, nil
		}
		return listPlan{fromCache: true, minRV: rv, consistent: opts.ResourceVersion == ""}, nil
	default:
		return listPlan{}, nil
	}
}

// GetList implements storage.Interface; the package documentation says
// which lists are served from memory.
func (c *Cacher) GetList(ctx context.Context, key string, opts storage.ListOptions, listObj runtime.Object) error {
	plan, err := c.planList(key, opts)
	if err != nil {
		return err
	}
	if plan.fromCache {
		if plan.consistent {
			plan.minRV, plan.fromCache = c.waitConsistent(ctx)
		} else if err := c.waitFresh(ctx, key, plan.minRV); err != nil {
			if storage.IsTooLargeResourceVersion(err) {
				return err
			}
			plan.fromCache = false
		}
	}
	if plan.fromCache {
		served, err := c.listFromCache(key, opts, plan, listObj)
		if served || err != nil {
			c.listsFromCache.Add(1)
			return err
		}
	}
	c.listsDelegated.Add(1)
	return c.storage.GetList(ctx, key, opts, listObj)
}

// listFromCache fills listObj from the cache as plan says. A list at a
// past revision is read from the current state with the changes made
// since undone from the window; it reports false, having done nothing, if
// those changes have left the window (or the cache was re-listed since),
// so that the storage reads it.
func (c *Cacher) listFromCache(key string, opts storage.ListOptions, plan listPlan, listObj runtime.Object) (bool, error) {
	itemsPtr, err := meta.GetItemsPtr(listObj)
	if err != nil {
		return true, err
	}
	items := reflect.ValueOf(itemsPtr)
	if items.Kind() != reflect.Pointer || items.Elem().Kind() != reflect.Slice {
		return true, fmt.Errorf("list %T has no slice of items", listObj)
	}
	items = items.Elem()
	pred := opts.Predicate
	scope := newKeyScope(key, opts.Recursive)
	paging := opts.Recursive && pred.Limit > 0
	countRemaining := paging && pred.Empty()

	var (
		matched   []*entry
		hasMore   bool
		remaining int64
	)
	// visit takes the entries of the list in key order; it returns false
	// once it has seen enough.
	visit := func(e *entry) bool {
		if !e.matches(pred) {
			return true
		}
		if paging && int64(len(matched)) == pred.Limit {
			hasMore = true
			if !countRemaining {
				return false
			}
			remaining++
			return true
		}
		matched = append(matched, e)
		return true
	}

	c.mu.RLock()
	rv := c.rv
	var past map[string]*entry
	if plan.atRV != 0 && plan.atRV < rv {
		if past = c.pastStatesLocked(scope, plan.atRV); past == nil {
			c.mu.RUnlock()
			return false, nil
		}
		rv = plan.atRV
	}
	c.ascendLocked(scope, plan.from, pred, past, visit)
	c.mu.RUnlock()

	var next string
	var remainingPtr *int64
	if hasMore {
		token, err := storage.EncodeContinue(matched[len(matched)-1].key+"\x00", scope.prefix, int64(rv))
		if err != nil {
			return true, err
		}
		next = token
		if countRemaining {
			remainingPtr = &remaining
		}
	}
	// The items are shallow copies: they share maps and slices with the
	// cache, which nothing on the way to the client modifies.
	slice := reflect.MakeSlice(items.Type(), 0, len(matched))
	elemType := items.Type().Elem()
	for _, e := range matched {
		v := reflect.ValueOf(e.obj)
		if v.Kind() != reflect.Pointer || v.Type().Elem() != elemType {
			return true, fmt.Errorf("cannot list a %T into a %T", e.obj, listObj)
		}
		slice = reflect.Append(slice, v.Elem())
	}
	items.Set(slice)
	return true, storage.UpdateList(listObj, rv, next, remainingPtr)
}

// pastStatesLocked returns, for every key in scope changed after revision
// rv, its state at rv (nil where it did not exist), or nil if the window
// no longer holds every change after rv.
func (c *Cacher) pastStatesLocked(scope keyScope, rv uint64) map[string]*entry {
	events, _, ok := c.window.since(rv)
	if !ok {
		return nil
	}
	past := make(map[string]*entry, len(events))
	for _, ev := range events {
		if !scope.contains(ev.key) {
			continue
		}
		if _, seen := past[ev.key]; !seen {
			past[ev.key] = ev.stateBefore()
		}
	}
	return past
}

// ascendLocked calls visit with the entries in scope from key from on, in
// key order, until it returns false: the current state, with the entries
// of past in place of the current ones of their keys. The entries may be
// narrowed to those an index says can match pred.
func (c *Cacher) ascendLocked(scope keyScope, from string, pred storage.SelectionPredicate, past map[string]*entry, visit func(*entry) bool) {
	var pastKeys []string
	for k := range past {
		if k >= from {
			pastKeys = append(pastKeys, k)
		}
	}
	slices.Sort(pastKeys)

	stopped := false
	emit := func(e *entry) bool {
		if e != nil && !visit(e) {
			stopped = true
		}
		return !stopped
	}
	// merge interleaves the past states with the current entries, which
	// come in key order.
	i := 0
	merge := func(cur *entry) bool {
		for ; i < len(pastKeys) && pastKeys[i] < cur.key; i++ {
			if !emit(past[pastKeys[i]]) {
				return false
			}
		}
		if i < len(pastKeys) && pastKeys[i] == cur.key {
			i++
			return emit(past[cur.key])
		}
		return emit(cur)
	}

	if candidates, ok := c.indexedLocked(pred); ok {
		for _, e := range candidates {
			if e.key >= from && scope.contains(e.key) && !merge(e) {
				return
			}
		}
	} else {
		c.state.ascend(scope, from, merge)
	}
	for ; !stopped && i < len(pastKeys); i++ {
		emit(past[pastKeys[i]])
	}
}

// indexedLocked returns, in key order, the only current entries that can
// match pred if pred pins an indexed field to a value.
func (c *Cacher) indexedLocked(pred storage.SelectionPredicate) ([]*entry, bool) {
	if pred.Field == nil {
		return nil, false
	}
	for _, f := range c.cfg.IndexedFields {
		if v, ok := pred.Field.RequiresExactMatch(f); ok {
			return c.state.indexed(f, v)
		}
	}
	return nil, false
}
