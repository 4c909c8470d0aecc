package etcd3_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kapi-dev/kapi/pkg/storage"
)

// compact compacts the etcd behind e at its current revision and returns
// that revision.
func (e *env) compact(t *testing.T) int64 {
	t.Helper()
	rev := int64(e.currentRV(t))
	if _, err := e.client.Compact(context.Background(), rev); err != nil {
		t.Fatal(err)
	}
	return rev
}

func TestListAtACompactedRevision(t *testing.T) {
	e := newIsolatedEnv(t)
	old := e.create(t, configMap("ns", "a", nil, nil))
	e.update(t, "ns", "a", func(cm *corev1.ConfigMap) { cm.Data = map[string]string{"k": "v"} })
	e.compact(t)

	err := e.store.GetList(context.Background(), "/configmaps/ns", storage.ListOptions{
		Recursive: true, ResourceVersion: old.ResourceVersion, ResourceVersionMatch: "Exact", Predicate: storage.Everything,
	}, &corev1.ConfigMapList{})
	var se *storage.Error
	if !errors.As(err, &se) || se.Code != storage.ErrCodeExpired {
		t.Fatalf("GetList = %v, want Expired", err)
	}
	// kube-apiserver's message (errors/list-widgets-too-old-resourceversion-2-exact.txt).
	if se.Detail != "The resourceVersion for the provided list is too old." || se.Continue != "" {
		t.Errorf("detail %q, continue %q", se.Detail, se.Continue)
	}
}

func TestContinueAfterCompaction(t *testing.T) {
	e := newIsolatedEnv(t)
	for _, n := range []string{"a", "b", "c"} {
		e.create(t, configMap("ns", n, nil, nil))
	}
	first := e.list(t, "/configmaps/ns", storage.ListOptions{Recursive: true, Predicate: storage.SelectionPredicate{Limit: 1}})
	e.delete(t, "ns", "b")
	d := e.create(t, configMap("ns", "d", nil, nil))
	e.compact(t)

	err := e.store.GetList(context.Background(), "/configmaps/ns", storage.ListOptions{
		Recursive: true, Predicate: storage.SelectionPredicate{Limit: 1, Continue: first.Continue},
	}, &corev1.ConfigMapList{})
	var se *storage.Error
	if !errors.As(err, &se) || se.Code != storage.ErrCodeExpired {
		t.Fatalf("continuing a compacted list = %v, want Expired", err)
	}
	if se.Continue == "" {
		t.Fatal("the Expired error offers no token to continue inconsistently")
	}
	const wantDetail = "The provided continue parameter is too old to display a consistent list result. " +
		"You can start a new list without the continue parameter, or use the continue token in this response " +
		"to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent " +
		"list - objects that were created, modified, or deleted between the time the first chunk was returned " +
		"and now may show up in the list."
	if se.Detail != wantDetail {
		t.Errorf("detail = %q", se.Detail)
	}

	// The offered token continues after "a" at the latest revision.
	var got []string
	token := se.Continue
	for token != "" {
		page := e.list(t, "/configmaps/ns", storage.ListOptions{Recursive: true, Predicate: storage.SelectionPredicate{Limit: 1, Continue: token}})
		got = append(got, names(page)...)
		token = page.Continue
		if rvOf(t, page) < rvOf(t, d) {
			t.Errorf("inconsistent continuation read at %s, before the latest write %s", page.ResourceVersion, d.ResourceVersion)
		}
	}
	if !slices.Equal(got, []string{"c", "d"}) {
		t.Errorf("continued inconsistently: %v, want [c d]", got)
	}
}

func TestWatchFromACompactedRevision(t *testing.T) {
	e := newIsolatedEnv(t)
	old := e.create(t, configMap("ns", "a", nil, nil))
	e.update(t, "ns", "a", func(cm *corev1.ConfigMap) { cm.Data = map[string]string{"k": "v"} })
	e.update(t, "ns", "a", func(cm *corev1.ConfigMap) { cm.Data = map[string]string{"k": "w"} })
	compacted := e.compact(t)
	// etcd keeps the state at the compacted revision but not the one
	// before, which an event at the compacted revision may need: the
	// oldest resourceVersion a watch can start after is the compacted one.
	oldest := compacted

	w := e.watch(t, "/configmaps", storage.ListOptions{Recursive: true, ResourceVersion: old.ResourceVersion, Predicate: storage.Everything})
	ev := next(t, w)
	want := &metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusFailure,
		Code:     http.StatusGone,
		Reason:   metav1.StatusReasonExpired,
		// kube-apiserver's words (errors/watch-widgets-too-old-resourceversion.txt).
		Message: fmt.Sprintf("too old resource version: %s (%d)", old.ResourceVersion, oldest),
	}
	if st, ok := ev.Object.(*metav1.Status); ev.Type != watch.Error || !ok || *st != *want {
		t.Fatalf("event = %s %+v\nwant ERROR %+v", ev.Type, ev.Object, want)
	}
	if _, open := <-w.ResultChan(); open {
		t.Error("the watch goes on after reporting a compacted revision")
	}

	// From the oldest resourceVersion, the watch works.
	w = e.watch(t, "/configmaps", storage.ListOptions{Recursive: true, ResourceVersion: fmt.Sprint(oldest), Predicate: storage.Everything})
	b := e.create(t, configMap("ns", "b", nil, nil))
	expect(t, w, "ADDED "+at("b", b))
}
