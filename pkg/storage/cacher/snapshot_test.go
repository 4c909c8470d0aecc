package cacher_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/kapi-dev/kapi/pkg/storage"
	"github.com/kapi-dev/kapi/pkg/storage/cacher"
)

// pastState makes a, b and c, returns the revision after them, then
// changes a, deletes b and adds d.
func pastState(t *testing.T, e *env) uint64 {
	t.Helper()
	for _, name := range []string{"a", "b", "c"} {
		e.create(t, configMap("ns", name, nil, map[string]string{"v": "1"}))
	}
	rv := e.currentRV(t)
	e.update(t, "ns", "a", func(cm *corev1.ConfigMap) { cm.Data["v"] = "2" })
	e.delete(t, "ns", "b")
	e.create(t, configMap("ns", "d", nil, map[string]string{"v": "1"}))
	e.list(t, storage.ListOptions{}) // the cache has seen it all
	return rv
}

func values(l *corev1.ConfigMapList) []string {
	var out []string
	for _, cm := range l.Items {
		out = append(out, cm.Name+"="+cm.Data["v"])
	}
	return out
}

func TestExactListIsReadFromTheWindowEvenAfterCompaction(t *testing.T) {
	counting := &countingStorage{}
	e := newEnv(t, cacher.Config{}, func(s storage.Interface) storage.Interface { counting.Interface = s; return counting })
	then := pastState(t, e)
	if _, err := e.client.Compact(context.Background(), int64(e.currentRV(t))); err != nil {
		t.Fatal(err)
	}

	before := counting.count()
	list := e.list(t, storage.ListOptions{ResourceVersion: rvString(then), ResourceVersionMatch: string(metav1.ResourceVersionMatchExact)})
	if got, want := values(list), []string{"a=1", "b=1", "c=1"}; !slices.Equal(got, want) {
		t.Fatalf("Exact list at %d = %v, want %v", then, got, want)
	}
	if listRV(t, list) != then {
		t.Fatalf("Exact list at %d says it was read at %s", then, list.ResourceVersion)
	}
	if counting.count() != before {
		t.Fatal("the Exact list went to etcd; want it served from the window")
	}
}

func TestPagesOfAListAreReadAtTheRevisionOfTheFirst(t *testing.T) {
	counting := &countingStorage{}
	e := newEnv(t, cacher.Config{}, func(s storage.Interface) storage.Interface { counting.Interface = s; return counting })
	for _, name := range []string{"a", "b", "c"} {
		e.create(t, configMap("ns", name, nil, map[string]string{"v": "1"}))
	}
	first := e.list(t, storage.ListOptions{Predicate: storage.SelectionPredicate{Limit: 1}})
	if got := values(first); !slices.Equal(got, []string{"a=1"}) || first.Continue == "" {
		t.Fatalf("first page = %v, continue %q", got, first.Continue)
	}
	if first.RemainingItemCount == nil || *first.RemainingItemCount != 2 {
		t.Fatalf("first page remainingItemCount = %v, want 2", first.RemainingItemCount)
	}
	// Changes after the first page do not show in the later ones.
	e.update(t, "ns", "b", func(cm *corev1.ConfigMap) { cm.Data["v"] = "2" })
	e.delete(t, "ns", "c")
	e.create(t, configMap("ns", "bb", nil, map[string]string{"v": "1"}))
	e.list(t, storage.ListOptions{})

	before := counting.count()
	second := e.list(t, storage.ListOptions{Predicate: storage.SelectionPredicate{Limit: 1, Continue: first.Continue}})
	if got := values(second); !slices.Equal(got, []string{"b=1"}) || second.Continue == "" || second.ResourceVersion != first.ResourceVersion {
		t.Fatalf("second page = %v at %s, continue %q; want [b=1] at %s and more", got, second.ResourceVersion, second.Continue, first.ResourceVersion)
	}
	third := e.list(t, storage.ListOptions{Predicate: storage.SelectionPredicate{Limit: 1, Continue: second.Continue}})
	if got := values(third); !slices.Equal(got, []string{"c=1"}) || third.Continue != "" {
		t.Fatalf("third page = %v, continue %q; want [c=1] and the end", got, third.Continue)
	}
	if counting.count() != before {
		t.Fatal("a continued page was read from etcd; want it served from the window")
	}
}

func TestAListOlderThanTheWindowGoesToEtcd(t *testing.T) {
	counting := &countingStorage{}
	e := newEnv(t, cacher.Config{Capacity: 2, MaxCapacity: 2}, func(s storage.Interface) storage.Interface { counting.Interface = s; return counting })
	then := pastState(t, e) // three changes since: one left the window
	before := counting.count()
	list := e.list(t, storage.ListOptions{ResourceVersion: rvString(then), ResourceVersionMatch: string(metav1.ResourceVersionMatchExact)})
	if got, want := values(list), []string{"a=1", "b=1", "c=1"}; !slices.Equal(got, want) {
		t.Fatalf("Exact list at %d = %v, want %v", then, got, want)
	}
	if counting.count() != before+1 {
		t.Fatal("the Exact list was not read from etcd")
	}
}

func TestGetWithAResourceVersionIsServedFromTheCache(t *testing.T) {
	e := newEnv(t, cacher.Config{FreshnessTimeout: 3 * time.Second})
	created := e.create(t, configMap("ns", "a", nil, map[string]string{"v": "1"}))
	// Reading at the create's revision first waits for the cache to have it.
	for _, rv := range []string{rvString(rvOf(t, created)), "0"} {
		got := &corev1.ConfigMap{}
		if err := e.cacher.Get(context.Background(), key("ns", "a"), storage.GetOptions{ResourceVersion: rv}, got); err != nil {
			t.Fatalf("Get at %s: %v", rv, err)
		}
		if got.Name != "a" || rvOf(t, got) != rvOf(t, created) {
			t.Fatalf("Get at %s = %s@%s", rv, got.Name, got.ResourceVersion)
		}
		got.Data["v"] = "changed by the caller"
	}
	again := &corev1.ConfigMap{}
	if err := e.cacher.Get(context.Background(), key("ns", "a"), storage.GetOptions{ResourceVersion: "0"}, again); err != nil || again.Data["v"] != "1" {
		t.Fatalf("the cache's copy was changed through a Get: %v %v", again.Data, err)
	}
	err := e.cacher.Get(context.Background(), key("ns", "a"), storage.GetOptions{ResourceVersion: rvString(e.currentRV(t) + 100)}, &corev1.ConfigMap{})
	if !storage.IsTooLargeResourceVersion(err) {
		t.Fatalf("Get at a future revision: %v, want Too large resource version", err)
	}
	err = e.cacher.Get(context.Background(), key("ns", "missing"), storage.GetOptions{ResourceVersion: "0"}, &corev1.ConfigMap{})
	if !storage.IsNotFound(err) {
		t.Fatalf("Get of a missing key: %v, want NotFound", err)
	}
}

// byNode selects ConfigMaps by the "node" field, which nodeAttrs takes from
// data["node"] (as a pod's spec.nodeName).
func byNode(node string) storage.SelectionPredicate {
	return storage.SelectionPredicate{Label: labels.Everything(), Field: fields.OneTermEqualSelector("node", node), GetAttrs: nodeAttrs}
}

func nodeAttrs(obj runtime.Object) (labels.Set, fields.Set, error) {
	cm, ok := obj.(*corev1.ConfigMap)
	if !ok {
		return nil, nil, fmt.Errorf("not a configmap: %T", obj)
	}
	return labels.Set(cm.Labels), fields.Set{"metadata.name": cm.Name, "metadata.namespace": cm.Namespace, "node": cm.Data["node"]}, nil
}

func TestAnIndexedFieldSelectsListsAndWatches(t *testing.T) {
	e := newEnv(t, cacher.Config{GetAttrs: nodeAttrs, IndexedFields: []string{"node"}})
	for i, node := range []string{"n1", "n2", "n1", "n2"} {
		e.create(t, configMap("ns", fmt.Sprintf("p%d", i), nil, map[string]string{"node": node}))
	}
	list := e.list(t, storage.ListOptions{Predicate: byNode("n1")})
	if got := names(list); !slices.Equal(got, []string{"ns/p0", "ns/p2"}) {
		t.Fatalf("list of node n1 = %v", got)
	}

	n1 := e.watch(t, storage.ListOptions{ResourceVersion: rvString(listRV(t, list)), Predicate: byNode("n1")})
	n2 := e.watch(t, storage.ListOptions{ResourceVersion: rvString(listRV(t, list)), Predicate: byNode("n2")})
	moved := e.update(t, "ns", "p0", func(cm *corev1.ConfigMap) { cm.Data["node"] = "n2" })
	expectEvents(t, n1, summary{watch.Deleted, "p0", rvOf(t, moved), ""})
	expectEvents(t, n2, summary{watch.Added, "p0", rvOf(t, moved), ""})
	back := e.update(t, "ns", "p0", func(cm *corev1.ConfigMap) { cm.Data["node"] = "n1" })
	expectEvents(t, n1, summary{watch.Added, "p0", rvOf(t, back), ""})
	expectEvents(t, n2, summary{watch.Deleted, "p0", rvOf(t, back), ""})

	// A change on n2 alone reaches the n2 watcher only: the n1 watcher's
	// next event is the next change on n1.
	other := e.update(t, "ns", "p1", func(cm *corev1.ConfigMap) { cm.Data["x"] = "y" })
	mine := e.update(t, "ns", "p2", func(cm *corev1.ConfigMap) { cm.Data["x"] = "y" })
	expectEvents(t, n2, summary{watch.Modified, "p1", rvOf(t, other), ""})
	expectEvents(t, n1, summary{watch.Modified, "p2", rvOf(t, mine), ""})

	// A list at a past revision still sees the objects of then.
	past := e.list(t, storage.ListOptions{ResourceVersion: rvString(listRV(t, list)), ResourceVersionMatch: string(metav1.ResourceVersionMatchExact), Predicate: byNode("n2")})
	if got := names(past); !slices.Equal(got, []string{"ns/p1", "ns/p3"}) {
		t.Fatalf("past list of node n2 = %v", got)
	}
}

func TestTheWindowGrowsToKeepRecentEvents(t *testing.T) {
	e := newEnv(t, cacher.Config{Capacity: 2})
	from := e.currentRV(t)
	var want []summary
	for i := range 10 {
		cm := e.create(t, configMap("ns", fmt.Sprintf("cm%d", i), nil, nil))
		want = append(want, summary{watch.Added, cm.Name, rvOf(t, cm), ""})
	}
	e.list(t, storage.ListOptions{})
	// Ten events in a window that started with room for two: the window
	// grew instead of dropping events seconds old, and serves the watch
	// itself rather than pass it on to etcd.
	expectEvents(t, e.watch(t, storage.ListOptions{ResourceVersion: rvString(from)}), want...)
	if got := e.cacher.Stats().WatchesDelegated; got != 0 {
		t.Fatalf("%d watches passed on to etcd, want 0", got)
	}
}

// countingEncoder encodes objects as JSON and counts how often.
type countingEncoder struct {
	mu    sync.Mutex
	calls int
	json  runtime.Encoder
}

func (c *countingEncoder) Encode(obj runtime.Object, w io.Writer) error {
	if co, ok := obj.(runtime.CacheableObject); ok {
		return co.CacheEncode(c.Identifier(), c.encode, w)
	}
	return c.encode(obj, w)
}

func (c *countingEncoder) encode(obj runtime.Object, w io.Writer) error {
	c.mu.Lock()
	c.calls++
	c.mu.Unlock()
	// Set the kind, as apimachinery's versioning encoder does: on a
	// shared object this would race with the other watchers.
	obj.GetObjectKind().SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("ConfigMap"))
	return c.json.Encode(obj, w)
}

func (c *countingEncoder) Identifier() runtime.Identifier { return "counting-json" }

func TestWatchersShareOneEncodingOfEachEvent(t *testing.T) {
	e := newEnv(t, cacher.Config{})
	from := rvString(e.currentRV(t))
	const watchers = 8
	ws := make([]watch.Interface, watchers)
	for i := range ws {
		ws[i] = e.watch(t, storage.ListOptions{ResourceVersion: from})
	}
	e.create(t, configMap("ns", "shared", nil, map[string]string{"v": "1"}))

	enc := &countingEncoder{json: json.NewSerializerWithOptions(json.DefaultMetaFactory, scheme.Scheme, scheme.Scheme, json.SerializerOptions{})}
	out := make([][]byte, watchers)
	var wg sync.WaitGroup
	for i, w := range ws {
		ev := next(t, w)
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf bytes.Buffer
			if err := enc.Encode(ev.Object, &buf); err != nil {
				t.Error(err)
			}
			out[i] = buf.Bytes()
		}()
	}
	wg.Wait()
	if enc.calls != 1 {
		t.Fatalf("the event was encoded %d times for %d watchers, want once", enc.calls, watchers)
	}
	for i := range out {
		if !bytes.Equal(out[i], out[0]) || !bytes.Contains(out[0], []byte(`"kind":"ConfigMap"`)) {
			t.Fatalf("watcher %d got %s, watcher 0 %s", i, out[i], out[0])
		}
	}
}

// TestAResourceVersionOfAnotherResourceIsReachedByProgress: resourceVersions
// are etcd revisions, shared by every resource; a read at least as new as
// a revision written elsewhere is served once a progress notification
// tells the cache it has seen everything up to it.
func TestAResourceVersionOfAnotherResourceIsReachedByProgress(t *testing.T) {
	e := newEnv(t, cacher.Config{})
	e.create(t, configMap("ns", "a", nil, map[string]string{"v": "1"}))
	e.list(t, storage.ListOptions{})
	if _, err := e.client.Put(context.Background(), "/cachertest-unrelated/"+t.Name(), "x"); err != nil {
		t.Fatal(err)
	}
	elsewhere := e.currentRV(t)

	before := e.cacher.Stats().ListsFromCache
	list := e.list(t, storage.ListOptions{ResourceVersion: rvString(elsewhere), ResourceVersionMatch: string(metav1.ResourceVersionMatchNotOlderThan)})
	if listRV(t, list) < elsewhere || len(list.Items) != 1 || e.cacher.Stats().ListsFromCache != before+1 {
		t.Fatalf("NotOlderThan %d: list at %s with %v (from the cache: %v)", elsewhere, list.ResourceVersion, names(list), e.cacher.Stats().ListsFromCache > before)
	}
	got := &corev1.ConfigMap{}
	if err := e.cacher.Get(context.Background(), key("ns", "a"), storage.GetOptions{ResourceVersion: rvString(elsewhere)}, got); err != nil || got.Name != "a" {
		t.Fatalf("Get at %d: %v %v", elsewhere, got.Name, err)
	}
}
