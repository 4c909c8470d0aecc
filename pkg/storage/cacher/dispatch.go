package cacher

// watcherSet holds the live watchers so that an event reaches only those
// that may want it. A watcher whose predicate pins an indexed field to one
// value (the pods of one node, for a kubelet) is kept under that value and
// only sees events of objects that have or had it; every other watcher
// sees every event in its key scope.
type watcherSet struct {
	unindexed map[int64]*cacheWatcher
	// byValue is field -> value -> watcher id -> watcher.
	byValue map[string]map[string]map[int64]*cacheWatcher
}

func newWatcherSet() watcherSet {
	return watcherSet{unindexed: map[int64]*cacheWatcher{}, byValue: map[string]map[string]map[int64]*cacheWatcher{}}
}

// indexFor returns the indexed field the predicate of w pins to a value,
// if any.
func indexFor(w *cacheWatcher, indexedFields []string) (field, value string, ok bool) {
	for _, f := range indexedFields {
		if v, ok := w.pred.Field.RequiresExactMatch(f); ok {
			return f, v, true
		}
	}
	return "", "", false
}

func (s *watcherSet) add(w *cacheWatcher) {
	if w.indexField == "" {
		s.unindexed[w.id] = w
		return
	}
	byValue := s.byValue[w.indexField]
	if byValue == nil {
		byValue = map[string]map[int64]*cacheWatcher{}
		s.byValue[w.indexField] = byValue
	}
	ws := byValue[w.indexValue]
	if ws == nil {
		ws = map[int64]*cacheWatcher{}
		byValue[w.indexValue] = ws
	}
	ws[w.id] = w
}

// remove removes w and says whether it was there.
func (s *watcherSet) remove(w *cacheWatcher) bool {
	if w.indexField == "" {
		_, ok := s.unindexed[w.id]
		delete(s.unindexed, w.id)
		return ok
	}
	byValue := s.byValue[w.indexField]
	ws := byValue[w.indexValue]
	if _, ok := ws[w.id]; !ok {
		return false
	}
	delete(ws, w.id)
	if len(ws) == 0 {
		delete(byValue, w.indexValue)
	}
	return true
}

// each calls fn with every watcher.
func (s *watcherSet) each(fn func(*cacheWatcher)) {
	for _, w := range s.unindexed {
		fn(w)
	}
	for _, byValue := range s.byValue {
		for _, ws := range byValue {
			for _, w := range ws {
				fn(w)
			}
		}
	}
}

// interested calls fn with every watcher that may want ev: each once.
func (s *watcherSet) interested(ev *event, fn func(*cacheWatcher)) {
	for _, w := range s.unindexed {
		fn(w)
	}
	for field, byValue := range s.byValue {
		cur, curOK := ev.cur.fields.lookup(field)
		if curOK {
			for _, w := range byValue[cur] {
				fn(w)
			}
		}
		if ev.prev == nil {
			continue
		}
		if prev, ok := ev.prev.fields.lookup(field); ok && (!curOK || prev != cur) {
			for _, w := range byValue[prev] {
				fn(w)
			}
		}
	}
}
