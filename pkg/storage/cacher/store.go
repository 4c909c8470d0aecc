package cacher

import (
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/btree"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kapi-dev/kapi/pkg/storage"
)

// entry is one version of an object, as the cache holds it. Entries are
// never modified once made: an update replaces the entry.
type entry struct {
	key    string
	rv     uint64
	obj    runtime.Object
	labels labels.Set
	fields fieldValues
	// attrErr is set when the object's attributes could not be computed;
	// such an object matches only the predicate that selects everything.
	attrErr error
}

// matches reports whether the entry is selected by pred, using the
// attributes computed when the entry was made.
func (e *entry) matches(pred storage.SelectionPredicate) bool {
	if pred.Empty() {
		return true
	}
	if e.attrErr != nil {
		return false
	}
	if pred.Label != nil && !pred.Label.Matches(e.labels) {
		return false
	}
	return pred.Field == nil || pred.Field.Matches(e.fields)
}

// fieldValues holds an object's selectable fields as name, value pairs
// sorted by name: the few fields of an object take a fraction of the
// memory of a map, and the cache keeps them for every object.
type fieldValues []string

var _ fields.Fields = fieldValues(nil)

func newFieldValues(set fields.Set) fieldValues {
	names := make([]string, 0, len(set))
	for name := range set {
		names = append(names, name)
	}
	slices.Sort(names)
	fv := make(fieldValues, 0, 2*len(names))
	for _, name := range names {
		fv = append(fv, name, set[name])
	}
	return fv
}

// lookup returns the value of field name.
func (fv fieldValues) lookup(name string) (string, bool) {
	lo, hi := 0, len(fv)/2
	for lo < hi {
		mid := (lo + hi) / 2
		switch n := fv[2*mid]; {
		case n == name:
			return fv[2*mid+1], true
		case n < name:
			lo = mid + 1
		default:
			hi = mid
		}
	}
	return "", false
}

// Has implements fields.Fields.
func (fv fieldValues) Has(name string) bool {
	_, ok := fv.lookup(name)
	return ok
}

// Get implements fields.Fields.
func (fv fieldValues) Get(name string) string {
	v, _ := fv.lookup(name)
	return v
}

func sortEntries(es []*entry) {
	slices.SortFunc(es, func(a, b *entry) int { return strings.Compare(a.key, b.key) })
}

func entryLess(a, b *entry) bool { return a.key < b.key }

// state is the current object of every key, ordered by key, with an
// index for each field of Config.IndexedFields: field -> value -> key.
type state struct {
	tree    *btree.BTreeG[*entry]
	indexes map[string]map[string]map[string]*entry
}

func newState(indexedFields []string) *state {
	s := &state{tree: btree.NewG(32, entryLess), indexes: map[string]map[string]map[string]*entry{}}
	for _, f := range indexedFields {
		s.indexes[f] = map[string]map[string]*entry{}
	}
	return s
}

func (s *state) get(key string) (*entry, bool) {
	return s.tree.Get(&entry{key: key})
}

func (s *state) len() int { return s.tree.Len() }

// put makes e the current object of its key.
func (s *state) put(e *entry) {
	if old, ok := s.tree.ReplaceOrInsert(e); ok {
		s.unindex(old)
	}
	for f, byValue := range s.indexes {
		v, ok := e.fields.lookup(f)
		if !ok || e.attrErr != nil {
			continue
		}
		keys := byValue[v]
		if keys == nil {
			keys = map[string]*entry{}
			byValue[v] = keys
		}
		keys[e.key] = e
	}
}

// remove forgets the object of key.
func (s *state) remove(key string) {
	if old, ok := s.tree.Delete(&entry{key: key}); ok {
		s.unindex(old)
	}
}

func (s *state) unindex(e *entry) {
	for f, byValue := range s.indexes {
		v, ok := e.fields.lookup(f)
		if !ok {
			continue
		}
		if keys := byValue[v]; keys != nil {
			delete(keys, e.key)
			if len(keys) == 0 {
				delete(byValue, v)
			}
		}
	}
}

// ascend calls fn with the entries in scope whose key is from or after,
// in key order, until fn returns false.
func (s *state) ascend(scope keyScope, from string, fn func(*entry) bool) {
	if name := scope.exact(); name != "" {
		if e, ok := s.get(name); ok && e.key >= from {
			fn(e)
		}
		return
	}
	start := scope.prefix
	if from > start {
		start = from
	}
	s.tree.AscendRange(&entry{key: start}, &entry{key: prefixEnd(scope.prefix)}, fn)
}

// indexed returns the entries whose field f has value v, in key order, if
// f is indexed.
func (s *state) indexed(f, v string) ([]*entry, bool) {
	byValue, ok := s.indexes[f]
	if !ok {
		return nil, false
	}
	keys := byValue[v]
	out := make([]*entry, 0, len(keys))
	for _, e := range keys {
		out = append(out, e)
	}
	sortEntries(out)
	return out, true
}

// prefixEnd is the smallest key after every key that starts with prefix.
func prefixEnd(prefix string) string {
	b := []byte(prefix)
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] < 0xff {
			b[i]++
			return string(b[:i+1])
		}
	}
	return "\xff\xff\xff\xff"
}

// event is one change of the resource, shared by every watcher that
// receives it, or a bookmark.
type event struct {
	typ watch.EventType
	key string
	rv  uint64
	// at is when the cache received the event.
	at time.Time
	// cur is the object after the change; for a deletion, the last state
	// with the revision of the deletion as its resourceVersion.
	cur *entry
	// prev is the object before the change, nil for a creation.
	prev *entry
	// bookmark is the object of a BOOKMARK event.
	bookmark runtime.Object

	// object is cur.obj as watchers send it: one wrapper, shared by every
	// watcher, that encodes the object once per serialization. Made on
	// first use.
	objectOnce sync.Once
	object     runtime.Object
	// deleted is the object of a DELETED event sent to a watcher whose
	// predicate the object stopped matching. Made on first use.
	deletedOnce sync.Once
	deleted     runtime.Object
}

// watchObject returns the object of the event as watchers send it.
func (ev *event) watchObject() runtime.Object {
	ev.objectOnce.Do(func() { ev.object = newCachingObject(ev.cur.obj) })
	return ev.object
}

// deletedObject returns the object a DELETED event sends when the object
// left a watcher's selection with this change: its previous state at this
// event's revision, as the etcd3 store sends it.
func (ev *event) deletedObject() runtime.Object {
	ev.deletedOnce.Do(func() {
		obj := ev.prev.obj.DeepCopyObject()
		if err := storage.UpdateObject(obj, ev.rv); err != nil {
			obj = ev.prev.obj
		}
		ev.deleted = newCachingObject(obj)
	})
	return ev.deleted
}

// stateBefore returns the state the object of ev's key had just before
// ev: nil if it did not exist.
func (ev *event) stateBefore() *entry {
	if ev.typ == watch.Added {
		return nil
	}
	return ev.prev
}

// freshWindow is how much history the window tries to keep: it grows
// (up to its maximum capacity) rather than evict an event younger than
// this, as kube-apiserver's watch cache does.
const freshWindow = 75 * time.Second

// ring is the window of the most recent events, oldest first.
type ring struct {
	buf   []*event
	start int // index of the oldest event
	n     int // number of events held
	// max is the capacity the window may grow to.
	max int
	// floor is the oldest resourceVersion a watch can start from: every
	// event after it is in the buffer. It is the revision of the list the
	// cache was filled from until an event is evicted, then the revision
	// of the last evicted event.
	floor uint64
}

func newRing(capacity, maxCapacity int) ring {
	capacity = max(capacity, 1)
	return ring{buf: make([]*event, capacity), max: max(capacity, maxCapacity)}
}

// reset empties the window, which then starts after revision floor.
func (r *ring) reset(floor uint64) {
	clear(r.buf)
	r.start, r.n, r.floor = 0, 0, floor
}

// add appends ev. A full window grows if its oldest event is recent and
// it may, and evicts its oldest event otherwise.
func (r *ring) add(ev *event) {
	if r.n == len(r.buf) {
		if len(r.buf) < r.max && ev.at.Sub(r.at(0).at) < freshWindow {
			r.grow(min(2*len(r.buf), r.max))
		} else {
			r.floor = r.buf[r.start].rv
			r.buf[r.start] = nil
			r.start = (r.start + 1) % len(r.buf)
			r.n--
		}
	}
	r.buf[(r.start+r.n)%len(r.buf)] = ev
	r.n++
}

func (r *ring) grow(capacity int) {
	buf := make([]*event, capacity)
	for i := range r.n {
		buf[i] = r.at(i)
	}
	r.buf, r.start = buf, 0
}

// since returns the events after revision rv. It reports false, with the
// oldest revision a watch can start from, if events after rv have been
// evicted.
func (r *ring) since(rv uint64) ([]*event, uint64, bool) {
	if rv < r.floor {
		return nil, r.floor, false
	}
	// Events are in revision order: find the first one after rv.
	lo, hi := 0, r.n
	for lo < hi {
		mid := (lo + hi) / 2
		if r.at(mid).rv <= rv {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	out := make([]*event, 0, r.n-lo)
	for j := lo; j < r.n; j++ {
		out = append(out, r.at(j))
	}
	return out, r.floor, true
}

func (r *ring) at(i int) *event { return r.buf[(r.start+i)%len(r.buf)] }

// keyScope is the set of keys a list or watch covers: one key, or every
// key below a prefix.
type keyScope struct {
	key       string
	prefix    string // key with a trailing "/", for a recursive scope
	recursive bool
}

func newKeyScope(key string, recursive bool) keyScope {
	s := keyScope{key: key, recursive: recursive}
	if recursive {
		s.prefix = key
		if !strings.HasSuffix(s.prefix, "/") {
			s.prefix += "/"
		}
	}
	return s
}

// exact returns the only key in a non-recursive scope, "" otherwise.
func (s keyScope) exact() string {
	if s.recursive {
		return ""
	}
	return s.key
}

func (s keyScope) contains(key string) bool {
	if s.recursive {
		return strings.HasPrefix(key, s.prefix)
	}
	return key == s.key
}
