package cacher_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kapi-dev/kapi/pkg/storage"
	"github.com/kapi-dev/kapi/pkg/storage/cacher"
)

func names(l *corev1.ConfigMapList) []string {
	var out []string
	for _, cm := range l.Items {
		out = append(out, cm.Namespace+"/"+cm.Name)
	}
	return out
}

func TestConsistentListSeesEveryWriteBeforeIt(t *testing.T) {
	counting := &countingStorage{}
	e := newEnv(t, cacher.Config{}, func(s storage.Interface) storage.Interface { counting.Interface = s; return counting })

	for _, name := range []string{"b", "a", "c"} {
		e.create(t, configMap("ns1", name, nil, nil))
		created := e.create(t, configMap("ns0", name, nil, nil))
		list := e.list(t, storage.ListOptions{})
		if got := listRV(t, list); got < rvOf(t, created) {
			t.Fatalf("consistent list at %d, before the write at %d", got, rvOf(t, created))
		}
		found := false
		for _, cm := range list.Items {
			found = found || (cm.Namespace == "ns0" && cm.Name == name)
		}
		if !found {
			t.Fatalf("consistent list after creating ns0/%s does not have it: %v", name, names(list))
		}
	}
	list := e.list(t, storage.ListOptions{})
	want := []string{"ns0/a", "ns0/b", "ns0/c", "ns1/a", "ns1/b", "ns1/c"}
	if !slices.Equal(names(list), want) {
		t.Fatalf("list = %v, want %v (sorted by key)", names(list), want)
	}

	// A write elsewhere in etcd moves its revision on without an event for
	// this cache: the cache learns how far it is from a progress
	// notification and still serves the list.
	if _, err := e.client.Put(context.Background(), "/cachertest-unrelated/"+t.Name(), "x"); err != nil {
		t.Fatal(err)
	}
	current := e.currentRV(t)
	before, fromCache := counting.count(), e.cacher.Stats().ListsFromCache
	list = e.list(t, storage.ListOptions{})
	if got := listRV(t, list); got < current {
		t.Fatalf("consistent list at %d, etcd was at %d before it", got, current)
	}
	if counting.count() != before || e.cacher.Stats().ListsFromCache != fromCache+1 {
		t.Fatalf("consistent list went to etcd (%d lists, was %d); want it served from the cache", counting.count(), before)
	}
}

func TestListFromCacheHonoursSelectorLimitAndContinue(t *testing.T) {
	e := newEnv(t, cacher.Config{})
	for i, name := range []string{"e", "d", "c", "b", "a"} {
		lbl := map[string]string{"parity": []string{"even", "odd"}[i%2]}
		e.create(t, configMap("ns", name, lbl, nil))
	}
	e.list(t, storage.ListOptions{}) // the cache has caught up

	list := e.list(t, storage.ListOptions{ResourceVersion: "0"})
	if want := []string{"ns/a", "ns/b", "ns/c", "ns/d", "ns/e"}; !slices.Equal(names(list), want) {
		t.Fatalf("resourceVersion=0 list = %v, want %v", names(list), want)
	}
	list = e.list(t, storage.ListOptions{ResourceVersion: "0", Predicate: selector(t, "parity=even")})
	if want := []string{"ns/a", "ns/c", "ns/e"}; !slices.Equal(names(list), want) {
		t.Fatalf("parity=even list = %v, want %v", names(list), want)
	}

	pred := selector(t, "")
	pred.Limit = 2
	first := e.list(t, storage.ListOptions{Predicate: pred})
	if want := []string{"ns/a", "ns/b"}; !slices.Equal(names(first), want) {
		t.Fatalf("first page = %v, want %v", names(first), want)
	}
	if first.Continue == "" || first.RemainingItemCount == nil || *first.RemainingItemCount != 3 {
		t.Fatalf("first page continue %q, remainingItemCount %v; want a token and 3", first.Continue, first.RemainingItemCount)
	}
	// A write between pages is not seen: the next page is read at the
	// first page's revision.
	e.create(t, configMap("ns", "bb", nil, nil))
	pred.Continue = first.Continue
	second := e.list(t, storage.ListOptions{Predicate: pred})
	if want := []string{"ns/c", "ns/d"}; !slices.Equal(names(second), want) {
		t.Fatalf("second page = %v, want %v", names(second), want)
	}
	if second.ResourceVersion != first.ResourceVersion {
		t.Fatalf("second page at %s, first at %s", second.ResourceVersion, first.ResourceVersion)
	}

	// Results are copies: changing them does not change the cache.
	list = e.list(t, storage.ListOptions{ResourceVersion: "0"})
	list.Items[0].Labels = map[string]string{"mutated": "yes"}
	got := &corev1.ConfigMap{}
	if err := e.cacher.Get(context.Background(), key("ns", "a"), storage.GetOptions{ResourceVersion: "0"}, got); err != nil {
		t.Fatal(err)
	}
	if got.Labels["mutated"] != "" {
		t.Fatal("mutating a listed object changed the cached one")
	}
	got.Labels = map[string]string{"mutated": "yes"}
	again := &corev1.ConfigMap{}
	if err := e.cacher.Get(context.Background(), key("ns", "a"), storage.GetOptions{ResourceVersion: "0"}, again); err != nil {
		t.Fatal(err)
	}
	if again.Labels["mutated"] != "" || again.Labels["parity"] != "even" {
		t.Fatalf("cached object changed: %v", again.Labels)
	}
	err := e.cacher.Get(context.Background(), key("ns", "missing"), storage.GetOptions{ResourceVersion: "0"}, got)
	if !storage.IsNotFound(err) {
		t.Fatalf("Get of a missing key from the cache: %v, want NotFound", err)
	}
}

func TestListNotOlderThanAFutureRevisionIsTooLarge(t *testing.T) {
	e := newEnv(t, cacher.Config{FreshnessTimeout: 100 * time.Millisecond})
	e.create(t, configMap("ns", "a", nil, nil))
	e.list(t, storage.ListOptions{})
	current := e.currentRV(t)

	list := &corev1.ConfigMapList{}
	err := e.cacher.GetList(context.Background(), "/configmaps", storage.ListOptions{
		Recursive: true, Predicate: storage.Everything,
		ResourceVersion: "99999999", ResourceVersionMatch: string(metav1.ResourceVersionMatchNotOlderThan),
	}, list)
	if !storage.IsTooLargeResourceVersion(err) {
		t.Fatalf("got %v, want a TooLargeResourceVersion error", err)
	}
	se := err.(*storage.Error)
	if want := "Too large resource version: 99999999, current: "; len(se.Detail) <= len(want) || se.Detail[:len(want)] != want {
		t.Fatalf("detail %q, want %q<current>", se.Detail, want)
	}

	// A revision the cache has reached is served.
	list = e.list(t, storage.ListOptions{ResourceVersion: rvString(current), ResourceVersionMatch: "NotOlderThan"})
	if listRV(t, list) < current || len(list.Items) != 1 {
		t.Fatalf("NotOlderThan %d: list at %s with %v", current, list.ResourceVersion, names(list))
	}
}

func TestWatchFromAResourceVersionReplaysTheEventsAfterIt(t *testing.T) {
	e := newEnv(t, cacher.Config{})
	a := e.create(t, configMap("ns", "a", nil, map[string]string{"v": "1"}))
	b := e.create(t, configMap("ns", "b", nil, map[string]string{"v": "1"}))
	a2 := e.update(t, "ns", "a", func(cm *corev1.ConfigMap) { cm.Data["v"] = "2" })
	bGone := e.delete(t, "ns", "b")
	e.list(t, storage.ListOptions{})

	w := e.watch(t, storage.ListOptions{ResourceVersion: rvString(rvOf(t, b))})
	expectEvents(t, w,
		summary{watch.Modified, "a", rvOf(t, a2), "2"},
		summary{watch.Deleted, "b", rvOf(t, bGone), "1"},
	)
	c := e.create(t, configMap("ns", "c", nil, map[string]string{"v": "1"}))
	expectEvents(t, w, summary{watch.Added, "c", rvOf(t, c), "1"})

	// From the revision of the first event: everything after it.
	w = e.watch(t, storage.ListOptions{ResourceVersion: rvString(rvOf(t, a))})
	expectEvents(t, w,
		summary{watch.Added, "b", rvOf(t, b), "1"},
		summary{watch.Modified, "a", rvOf(t, a2), "2"},
		summary{watch.Deleted, "b", rvOf(t, bGone), "1"},
		summary{watch.Added, "c", rvOf(t, c), "1"},
	)

	// A watch of one namespace sees only its keys.
	e.create(t, configMap("other", "x", nil, nil))
	d := e.create(t, configMap("ns", "d", nil, map[string]string{"v": "1"}))
	nsw, err := e.cacher.Watch(context.Background(), "/configmaps/ns", storage.ListOptions{ResourceVersion: rvString(rvOf(t, c)), Recursive: true})
	if err != nil {
		t.Fatal(err)
	}
	defer nsw.Stop()
	expectEvents(t, nsw, summary{watch.Added, "d", rvOf(t, d), "1"})
}

func TestWatchFromBeforeTheWindowIsServedFromEtcdUntilCompacted(t *testing.T) {
	e := newEnv(t, cacher.Config{Capacity: 3, MaxCapacity: 3})
	var rvs []uint64
	for _, name := range []string{"a", "b", "c", "d", "e", "f"} {
		rvs = append(rvs, rvOf(t, e.create(t, configMap("ns", name, nil, nil))))
	}
	e.list(t, storage.ListOptions{})

	// The window holds d, e and f: a watch after c is served from it.
	w := e.watch(t, storage.ListOptions{ResourceVersion: rvString(rvs[2])})
	expectEvents(t, w,
		summary{watch.Added, "d", rvs[3], ""},
		summary{watch.Added, "e", rvs[4], ""},
		summary{watch.Added, "f", rvs[5], ""},
	)
	if got := e.cacher.Stats().WatchesDelegated; got != 0 {
		t.Fatalf("%d watches delegated, want 0", got)
	}

	// One from before it gets etcd's history.
	w = e.watch(t, storage.ListOptions{ResourceVersion: rvString(rvs[0])})
	expectEvents(t, w,
		summary{watch.Added, "b", rvs[1], ""},
		summary{watch.Added, "c", rvs[2], ""},
		summary{watch.Added, "d", rvs[3], ""},
	)
	if got := e.cacher.Stats().WatchesDelegated; got != 1 {
		t.Fatalf("%d watches delegated, want 1", got)
	}

	// Once etcd has compacted it, the watch is told 410 Expired.
	if _, err := e.client.Compact(context.Background(), int64(rvs[4])); err != nil {
		t.Fatal(err)
	}
	w = e.watch(t, storage.ListOptions{ResourceVersion: rvString(rvs[0])})
	ev := next(t, w)
	status, ok := ev.Object.(*metav1.Status)
	if ev.Type != watch.Error || !ok {
		t.Fatalf("got %s %T, want an ERROR event with a Status", ev.Type, ev.Object)
	}
	if status.Code != http.StatusGone || status.Reason != metav1.StatusReasonExpired ||
		!strings.HasPrefix(status.Message, "too old resource version: "+rvString(rvs[0])+" (") {
		t.Fatalf("status = %+v, want 410 Expired too old resource version", *status)
	}
	if _, open := <-w.ResultChan(); open {
		t.Fatal("watch goes on after its error")
	}
}

func TestWatchWithInitialEventsEndsThemWithABookmark(t *testing.T) {
	e := newEnv(t, cacher.Config{})
	b := e.create(t, configMap("ns", "b", nil, map[string]string{"v": "1"}))
	a := e.create(t, configMap("ns", "a", nil, map[string]string{"v": "1"}))
	current := e.currentRV(t)

	yes := true
	w := e.watch(t, storage.ListOptions{SendInitialEvents: &yes, ProgressNotify: true,
		ResourceVersion: "", ResourceVersionMatch: "NotOlderThan"})
	expectEvents(t, w,
		summary{watch.Added, "a", rvOf(t, a), "1"},
		summary{watch.Added, "b", rvOf(t, b), "1"},
	)
	ev := next(t, w)
	if ev.Type != watch.Bookmark {
		t.Fatalf("got %s, want the BOOKMARK ending the initial events", ev.Type)
	}
	bm := ev.Object.(*corev1.ConfigMap)
	if bm.Annotations[metav1.InitialEventsAnnotationKey] != "true" || rvOf(t, bm) < current {
		t.Fatalf("bookmark %+v: want annotation %s=true and resourceVersion >= %d", bm.ObjectMeta, metav1.InitialEventsAnnotationKey, current)
	}
	c := e.create(t, configMap("ns", "c", nil, map[string]string{"v": "1"}))
	if got := summarize(t, nextNonBookmark(t, w)); got != (summary{watch.Added, "c", rvOf(t, c), "1"}) {
		t.Fatalf("live event %v", got)
	}

	// resourceVersion "0" without SendInitialEvents: the state, then live
	// events, and no end bookmark.
	w = e.watch(t, storage.ListOptions{ResourceVersion: "0"})
	expectEvents(t, w,
		summary{watch.Added, "a", rvOf(t, a), "1"},
		summary{watch.Added, "b", rvOf(t, b), "1"},
		summary{watch.Added, "c", rvOf(t, c), "1"},
	)
	d := e.create(t, configMap("ns", "d", nil, map[string]string{"v": "1"}))
	expectEvents(t, w, summary{watch.Added, "d", rvOf(t, d), "1"})

	// SendInitialEvents false from "0": only what happens next.
	no := false
	w = e.watch(t, storage.ListOptions{ResourceVersion: "0", SendInitialEvents: &no})
	f := e.create(t, configMap("ns", "f", nil, map[string]string{"v": "1"}))
	expectEvents(t, w, summary{watch.Added, "f", rvOf(t, f), "1"})
}

func TestBookmarksAreSentOnlyToWatchersThatAskForThem(t *testing.T) {
	e := newEnv(t, cacher.Config{BookmarkInterval: 10 * time.Millisecond})
	a := e.create(t, configMap("ns", "a", nil, nil))
	e.list(t, storage.ListOptions{})

	from := rvString(rvOf(t, a))
	asked := e.watch(t, storage.ListOptions{ResourceVersion: from, ProgressNotify: true})
	notAsked := e.watch(t, storage.ListOptions{ResourceVersion: from})

	b := e.create(t, configMap("ns", "b", nil, nil))
	expectEvents(t, notAsked, summary{watch.Added, "b", rvOf(t, b), ""})
	if got := summarize(t, nextNonBookmark(t, asked)); got.Name != "b" {
		t.Fatalf("got %v, want b", got)
	}
	// Two bookmarks after b: both watchers were due them.
	for range 2 {
		ev := next(t, asked)
		if ev.Type != watch.Bookmark {
			t.Fatalf("got %s, want a BOOKMARK", ev.Type)
		}
		if got := rvOf(t, ev.Object); got < rvOf(t, b) {
			t.Fatalf("bookmark at %d, after an event at %d", got, rvOf(t, b))
		}
		m, err := meta.Accessor(ev.Object)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := m.GetAnnotations()[metav1.InitialEventsAnnotationKey]; ok {
			t.Fatal("a periodic bookmark carries the initial-events-end annotation")
		}
	}
	// The other watcher's events are in the same order: if it were sent
	// bookmarks they would come before c.
	c := e.create(t, configMap("ns", "c", nil, nil))
	if ev := next(t, notAsked); ev.Type != watch.Added || rvOf(t, ev.Object) != rvOf(t, c) {
		t.Fatalf("got %s at %d, want ADDED c at %d and no bookmark", ev.Type, rvOf(t, ev.Object), rvOf(t, c))
	}
}

func TestWatchWithAPredicateSeesObjectsEnterAndLeaveIt(t *testing.T) {
	e := newEnv(t, cacher.Config{})
	start := e.currentRV(t)
	w := e.watch(t, storage.ListOptions{ResourceVersion: rvString(start), Predicate: selector(t, "app=web")})

	created := e.create(t, configMap("ns", "a", map[string]string{"app": "web"}, map[string]string{"v": "1"}))
	e.create(t, configMap("ns", "other", map[string]string{"app": "db"}, map[string]string{"v": "1"}))
	modified := e.update(t, "ns", "a", func(cm *corev1.ConfigMap) { cm.Data["v"] = "2" })
	left := e.update(t, "ns", "a", func(cm *corev1.ConfigMap) { cm.Labels["app"] = "db"; cm.Data["v"] = "3" })
	e.update(t, "ns", "a", func(cm *corev1.ConfigMap) { cm.Data["v"] = "4" })
	back := e.update(t, "ns", "a", func(cm *corev1.ConfigMap) { cm.Labels["app"] = "web"; cm.Data["v"] = "5" })
	deleted := e.delete(t, "ns", "a")
	e.delete(t, "ns", "other")

	expectEvents(t, w,
		summary{watch.Added, "a", rvOf(t, created), "1"},
		summary{watch.Modified, "a", rvOf(t, modified), "2"},
		// Leaving the selection: the state it was selected in, at the
		// revision it left.
		summary{watch.Deleted, "a", rvOf(t, left), "2"},
		summary{watch.Added, "a", rvOf(t, back), "5"},
		summary{watch.Deleted, "a", rvOf(t, deleted), "5"},
	)
	marker := e.create(t, configMap("ns", "marker", map[string]string{"app": "web"}, nil))
	expectEvents(t, w, summary{watch.Added, "marker", rvOf(t, marker), ""})
}

func TestSlowWatcherIsTerminatedWithoutHoldingUpOthers(t *testing.T) {
	e := newEnv(t, cacher.Config{WatcherBufferSize: 4})
	from := rvString(e.currentRV(t))
	slow := e.watch(t, storage.ListOptions{ResourceVersion: from})
	fast := e.watch(t, storage.ListOptions{ResourceVersion: from})

	const n = 100
	var want []summary
	for i := range n {
		cm := e.create(t, configMap("ns", "cm"+rvString(uint64(i)), nil, nil))
		want = append(want, summary{watch.Added, cm.Name, rvOf(t, cm), ""})
		// Reading as it goes keeps the fast watcher within its buffer.
		expectEvents(t, fast, want[i])
	}

	// The slow watcher never read: it was cut off and its channel closed,
	// and whatever it still delivers is the start of the history, in order.
	var got []summary
	timeout := time.After(eventTimeout)
	for done := false; !done; {
		select {
		case ev, ok := <-slow.ResultChan():
			if !ok {
				done = true
				break
			}
			got = append(got, summarize(t, ev))
		case <-timeout:
			t.Fatal("slow watcher not terminated")
		}
	}
	if len(got) >= n {
		t.Fatalf("slow watcher got all %d events", len(got))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("slow watcher event %d: %v, want %v", i, got[i], want[i])
		}
	}
	if e.cacher.Stats().WatchersTerminated != 1 {
		t.Fatalf("%d watchers terminated, want 1", e.cacher.Stats().WatchersTerminated)
	}
}

// TestAWriteReturnsOnceTheCacheHasIt: when a create, update or delete
// returns, the cache has applied its event: a read served from memory
// (resourceVersion "0", any state the cache has) already sees the write,
// and the event is queued for every watcher. Without that, a client that
// writes and writes again can be admitted against informers that have
// not seen its first write.
func TestAWriteReturnsOnceTheCacheHasIt(t *testing.T) {
	e := newEnv(t, cacher.Config{})
	w := e.watch(t, storage.ListOptions{ResourceVersion: rvString(e.currentRV(t)), Predicate: storage.Everything})
	fromMemory := storage.GetOptions{ResourceVersion: "0"}
	var written []uint64
	check := func(op string, out *corev1.ConfigMap, gone bool) {
		t.Helper()
		rv := rvOf(t, out)
		written = append(written, rv)
		got := &corev1.ConfigMap{}
		err := e.cacher.Get(context.Background(), key(out.Namespace, out.Name), fromMemory, got)
		switch {
		case gone && !storage.IsNotFound(err):
			t.Fatalf("after %s of %s at %d returned, the cache still has it (rv %s, err %v)", op, out.Name, rv, got.ResourceVersion, err)
		case !gone && err != nil:
			t.Fatalf("after %s of %s at %d returned, the cache does not have it: %v", op, out.Name, rv, err)
		case !gone && rvOf(t, got) != rv:
			t.Fatalf("after %s of %s at %d returned, the cache has it at %s", op, out.Name, rv, got.ResourceVersion)
		}
		if l := e.list(t, storage.ListOptions{ResourceVersion: "0"}); listRV(t, l) < rv {
			t.Fatalf("after %s at %d returned, a list from memory is at %d", op, rv, listRV(t, l))
		}
	}
	for i := range 100 {
		name := "cm" + rvString(uint64(i%7))
		check("create", e.create(t, configMap("ns", name, nil, nil)), false)
		check("update", e.update(t, "ns", name, func(cm *corev1.ConfigMap) { cm.Data = map[string]string{"i": rvString(uint64(i))} }), false)
		check("delete", e.delete(t, "ns", name), true)
	}
	// And the watcher got each of those events, in order.
	for _, rv := range written {
		select {
		case ev := <-w.ResultChan():
			if got := rvOf(t, ev.Object); got != rv {
				t.Fatalf("watch event at %d, want %d", got, rv)
			}
		case <-time.After(eventTimeout):
			t.Fatalf("no watch event for the write at %d", rv)
		}
	}
}
