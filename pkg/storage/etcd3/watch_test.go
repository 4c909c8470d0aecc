package etcd3_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kapi-dev/kapi/pkg/storage"
	"github.com/kapi-dev/kapi/pkg/storage/etcd3"
)

func (e *env) watch(t *testing.T, key string, opts storage.ListOptions) watch.Interface {
	t.Helper()
	w, err := e.store.Watch(context.Background(), key, opts)
	if err != nil {
		t.Fatalf("Watch %s: %v", key, err)
	}
	t.Cleanup(w.Stop)
	return w
}

// next returns the next event of w.
func next(t *testing.T, w watch.Interface) watch.Event {
	t.Helper()
	select {
	case ev, ok := <-w.ResultChan():
		if !ok {
			t.Fatal("watch ended, want another event")
		}
		return ev
	case <-time.After(eventTimeout):
		t.Fatal("no event")
	}
	return watch.Event{}
}

// describe summarises an event as "TYPE name@resourceVersion".
func describe(ev watch.Event) string {
	switch obj := ev.Object.(type) {
	case *corev1.ConfigMap:
		return fmt.Sprintf("%s %s@%s", ev.Type, obj.Name, obj.ResourceVersion)
	case *metav1.Status:
		return fmt.Sprintf("%s %d %s", ev.Type, obj.Code, obj.Message)
	}
	return fmt.Sprintf("%s %T", ev.Type, ev.Object)
}

// expect reads len(want) events from w and compares their descriptions.
func expect(t *testing.T, w watch.Interface, want ...string) []watch.Event {
	t.Helper()
	var got []string
	var evs []watch.Event
	for range want {
		ev := next(t, w)
		evs = append(evs, ev)
		got = append(got, describe(ev))
	}
	if !slices.Equal(got, want) {
		t.Errorf("events:\n  %q\nwant\n  %q", got, want)
	}
	return evs
}

func at(name string, obj *corev1.ConfigMap) string { return name + "@" + obj.ResourceVersion }

func TestWatchFromResourceVersion(t *testing.T) {
	e := newEnv(t)
	a := e.create(t, configMap("ns", "a", nil, map[string]string{"v": "1"}))
	w := e.watch(t, "/configmaps/ns", storage.ListOptions{Recursive: true, ResourceVersion: a.ResourceVersion, Predicate: storage.Everything})

	a2 := e.update(t, "ns", "a", func(cm *corev1.ConfigMap) { cm.Data["v"] = "2" })
	b := e.create(t, configMap("ns", "b", nil, nil))
	deleted := e.delete(t, "ns", "a")

	evs := expect(t, w, "MODIFIED "+at("a", a2), "ADDED "+at("b", b), "DELETED "+at("a", deleted))
	// A deletion carries the last state of the object, at the revision of
	// the deletion.
	if got := evs[2].Object.(*corev1.ConfigMap); got.Data["v"] != "2" || !equality.Semantic.DeepEqual(got, deleted) {
		t.Errorf("DELETED carries %+v, want %+v", got, deleted)
	}
}

func TestWatchReplaysHistoryAfterResourceVersion(t *testing.T) {
	e := newEnv(t)
	from := e.currentRV(t)
	a := e.create(t, configMap("ns", "a", nil, map[string]string{"v": "1"}))
	a2 := e.update(t, "ns", "a", func(cm *corev1.ConfigMap) { cm.Data["v"] = "2" })
	w := e.watch(t, "/configmaps/ns", storage.ListOptions{Recursive: true, ResourceVersion: fmt.Sprint(from), Predicate: storage.Everything})
	expect(t, w, "ADDED "+at("a", a), "MODIFIED "+at("a", a2))
}

func TestWatchInitialEvents(t *testing.T) {
	yes, no := true, false
	tests := []struct {
		name        string
		rv          string
		sendInitial *bool
		pred        storage.SelectionPredicate
		// wantInitial are the objects sent before live events.
		wantInitial []string
		wantEndMark bool
	}{
		{name: "resourceVersion unset", wantInitial: []string{"a", "b"}},
		{name: "resourceVersion 0", rv: "0", wantInitial: []string{"a", "b"}},
		{name: "sendInitialEvents", sendInitial: &yes, wantInitial: []string{"a", "b"}, wantEndMark: true},
		{name: "sendInitialEvents with a resourceVersion", rv: "1", sendInitial: &yes, wantInitial: []string{"a", "b"}, wantEndMark: true},
		{name: "sendInitialEvents with a selector", sendInitial: &yes, pred: selector("app=b"), wantInitial: []string{"b"}, wantEndMark: true},
		{name: "no initial events", sendInitial: &no},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			objs := map[string]*corev1.ConfigMap{
				"a": e.create(t, configMap("ns", "a", map[string]string{"app": "a"}, nil)),
				"b": e.create(t, configMap("ns", "b", map[string]string{"app": "b"}, nil)),
			}
			listedAt := e.currentRV(t)
			w := e.watch(t, "/configmaps/ns", storage.ListOptions{
				Recursive: true, ResourceVersion: tt.rv, SendInitialEvents: tt.sendInitial, Predicate: tt.pred,
			})

			var want []string
			for _, n := range tt.wantInitial {
				want = append(want, "ADDED "+at(n, objs[n]))
			}
			if tt.wantEndMark {
				want = append(want, "BOOKMARK @"+fmt.Sprint(listedAt))
			}
			evs := expect(t, w, want...)
			if tt.wantEndMark {
				mark := evs[len(evs)-1].Object.(*corev1.ConfigMap)
				wantMark := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
					ResourceVersion: fmt.Sprint(listedAt),
					Annotations:     map[string]string{"k8s.io/initial-events-end": "true"},
				}}
				if !equality.Semantic.DeepEqual(mark, wantMark) {
					t.Errorf("end of initial events = %+v, want %+v", mark, wantMark)
				}
			}

			// Then live events.
			c := e.create(t, configMap("ns", "c", map[string]string{"app": "b"}, nil))
			expect(t, w, "ADDED "+at("c", c))
		})
	}
}

func TestWatchInitialEventsFromTheFuture(t *testing.T) {
	e := newEnv(t)
	yes := true
	_, err := e.store.Watch(context.Background(), "/configmaps", storage.ListOptions{
		Recursive: true, ResourceVersion: "99999999", SendInitialEvents: &yes, Predicate: storage.Everything,
	})
	if !storage.IsTooLargeResourceVersion(err) {
		t.Errorf("Watch = %v, want TooLargeResourceVersion", err)
	}
}

func TestWatchPredicateTransitions(t *testing.T) {
	e := newEnv(t)
	w := e.watch(t, "/configmaps/ns", storage.ListOptions{
		Recursive: true, ResourceVersion: fmt.Sprint(e.currentRV(t)), Predicate: selector("team=blue"),
	})
	setTeam := func(team string) func(*corev1.ConfigMap) {
		return func(cm *corev1.ConfigMap) { cm.Labels = map[string]string{"team": team} }
	}

	e.create(t, configMap("ns", "a", map[string]string{"team": "red"}, nil)) // not selected: no event
	joined := e.update(t, "ns", "a", setTeam("blue"))
	changed := e.update(t, "ns", "a", func(cm *corev1.ConfigMap) { cm.Data = map[string]string{"k": "v"} })
	left := e.update(t, "ns", "a", setTeam("red"))
	e.delete(t, "ns", "a") // not selected: no event
	marker := e.create(t, configMap("ns", "z", map[string]string{"team": "blue"}, nil))

	evs := expect(t, w,
		"ADDED "+at("a", joined),
		"MODIFIED "+at("a", changed),
		"DELETED a@"+left.ResourceVersion,
		"ADDED "+at("z", marker),
	)
	// An object that stops matching leaves as it was while it matched.
	if got := evs[2].Object.(*corev1.ConfigMap); got.Labels["team"] != "blue" {
		t.Errorf("DELETED on leaving the selection carries labels %v, want the last selected state", got.Labels)
	}
}

func TestWatchOneKey(t *testing.T) {
	e := newEnv(t)
	w := e.watch(t, key("ns", "a"), storage.ListOptions{ResourceVersion: fmt.Sprint(e.currentRV(t)), Predicate: storage.Everything})
	e.create(t, configMap("ns", "ab", nil, nil))
	a := e.create(t, configMap("ns", "a", nil, nil))
	expect(t, w, "ADDED "+at("a", a))
}

func TestWatchBookmarks(t *testing.T) {
	e := newEnv(t)
	rv := fmt.Sprint(e.currentRV(t))
	// Progress requests reach the watches of a named stream.
	ctx := e.store.(etcd3.WatchStreamIsolator).WithOwnWatchStream(context.Background(), t.Name())
	watchOn := func(opts storage.ListOptions) watch.Interface {
		w, err := e.store.Watch(ctx, "/configmaps", opts)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(w.Stop)
		return w
	}
	withBookmarks := watchOn(storage.ListOptions{Recursive: true, ResourceVersion: rv, ProgressNotify: true, Predicate: storage.Everything})
	without := watchOn(storage.ListOptions{Recursive: true, ResourceVersion: rv, Predicate: storage.Everything})
	// A watch of no named stream has one of its own: no progress request
	// reaches it.
	unnamed := e.watch(t, "/configmaps", storage.ListOptions{Recursive: true, ResourceVersion: rv, ProgressNotify: true, Predicate: storage.Everything})

	a := e.create(t, configMap("ns", "a", nil, nil))
	expect(t, withBookmarks, "ADDED "+at("a", a))
	expect(t, without, "ADDED "+at("a", a))

	current := e.currentRV(t)
	if err := e.store.(etcd3.ProgressRequester).RequestWatchProgress(ctx); err != nil {
		t.Fatal(err)
	}
	if err := e.store.(etcd3.ProgressRequester).RequestWatchProgress(context.Background()); err != nil {
		t.Fatal(err)
	}
	ev := next(t, withBookmarks)
	if ev.Type != watch.Bookmark {
		t.Fatalf("event after a progress request = %s, want BOOKMARK", describe(ev))
	}
	// A bookmark is an empty object that only says how far the watch got.
	if got := ev.Object.(*corev1.ConfigMap); rvOf(t, got) < current || !equality.Semantic.DeepEqual(got, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{ResourceVersion: got.ResourceVersion}}) {
		t.Errorf("bookmark = %+v, want an empty ConfigMap at resourceVersion >= %d", got, current)
	}

	// A watch that did not ask for bookmarks gets none.
	b := e.create(t, configMap("ns", "b", nil, nil))
	expect(t, without, "ADDED "+at("b", b))
	expect(t, unnamed, "ADDED "+at("a", a), "ADDED "+at("b", b))
}

func TestWatchStopReleasesASlowConsumer(t *testing.T) {
	for _, how := range []string{"Stop", "context"} {
		t.Run(how, func(t *testing.T) {
			e := newEnv(t)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			w, err := e.store.Watch(ctx, "/configmaps", storage.ListOptions{Recursive: true, Predicate: storage.Everything})
			if err != nil {
				t.Fatal(err)
			}
			// More events than the watch buffers, none of them read.
			for i := range 150 {
				e.create(t, configMap("ns", fmt.Sprintf("cm%03d", i), nil, nil))
			}
			if how == "Stop" {
				w.Stop()
				w.Stop() // twice is fine
			} else {
				cancel()
			}
			// The channel closes, whether or not the consumer drains it.
			deadline := time.After(eventTimeout)
			for {
				select {
				case _, ok := <-w.ResultChan():
					if !ok {
						return
					}
				case <-deadline:
					t.Fatal("ResultChan not closed after the watch was stopped")
				}
			}
		})
	}
}

func TestWatchCorruptValue(t *testing.T) {
	e := newEnv(t)
	w := e.watch(t, "/configmaps", storage.ListOptions{Recursive: true, ResourceVersion: fmt.Sprint(e.currentRV(t)), Predicate: storage.Everything})
	if _, err := e.client.Put(context.Background(), e.prefix+key("ns", "bad"), "garbage"); err != nil {
		t.Fatal(err)
	}
	ev := next(t, w)
	st, ok := ev.Object.(*metav1.Status)
	if ev.Type != watch.Error || !ok || st.Code != http.StatusInternalServerError || st.Reason != metav1.StatusReasonInternalError {
		t.Fatalf("event = %s, want an ERROR carrying a 500 InternalError", describe(ev))
	}
	if _, open := <-w.ResultChan(); open {
		t.Error("the watch goes on after an error")
	}
}

func TestWatchInvalidResourceVersion(t *testing.T) {
	e := newEnv(t)
	_, err := e.store.Watch(context.Background(), "/configmaps", storage.ListOptions{Recursive: true, ResourceVersion: "abc"})
	// As kube-apiserver 1.37 answers (errors/watch-invalid-resourceversion.txt).
	st, ok := err.(apierrors.APIStatus)
	if !ok || st.Status().Code != http.StatusInternalServerError ||
		st.Status().Message != `resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax` {
		t.Errorf("Watch = %v", err)
	}
}
