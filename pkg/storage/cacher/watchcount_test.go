package cacher_test

import (
	"context"
	"testing"

	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kapi-dev/kapi/pkg/storage"
	"github.com/kapi-dev/kapi/pkg/storage/cacher"
)

// InterestedWatchers counts the watchers a write reaches as
// kube-apiserver's watch tracker does (KEP-1040): those of the whole
// resource, of the write's namespace and of the object itself; a watcher
// pinned to one value of an indexed field does not count.
func TestInterestedWatchersCountsByScope(t *testing.T) {
	e := newEnv(t, cacher.Config{IndexedFields: []string{"metadata.name"}})
	ctx := context.Background()
	watchAt := func(key string, recursive bool, field fields.Selector) watch.Interface {
		t.Helper()
		w, err := e.cacher.Watch(ctx, key, storage.ListOptions{
			ResourceVersion: "0",
			Recursive:       recursive,
			Predicate:       storage.SelectionPredicate{Label: labels.Everything(), Field: field},
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(w.Stop)
		return w
	}
	watchAt("/configmaps", true, fields.Everything())
	watchAt("/configmaps", true, fields.Everything())
	inA := watchAt("/configmaps/a", true, fields.Everything())
	watchAt("/configmaps/a/x", false, fields.Everything())
	// Pinned to an indexed value: only events of that object reach it.
	watchAt("/configmaps", true, fields.OneTermEqualSelector("metadata.name", "x"))

	for _, tc := range []struct {
		namespace, name string
		want            int
	}{
		{"a", "", 3},  // a create in a: the resource's two and a's
		{"a", "x", 4}, // a write of a/x: and x's own
		{"b", "y", 2}, // elsewhere: the resource's only
		{"", "x", 2},  // a cluster-scoped name is not a/x
	} {
		if got := e.cacher.InterestedWatchers(tc.namespace, tc.name); got != tc.want {
			t.Errorf("InterestedWatchers(%q, %q) = %d, want %d", tc.namespace, tc.name, got, tc.want)
		}
	}

	// A watcher that ends stops counting: its result channel closes once
	// it is removed.
	inA.Stop()
	for range inA.ResultChan() {
	}
	if got := e.cacher.InterestedWatchers("a", "x"); got != 3 {
		t.Errorf("after the namespace's watcher stopped, InterestedWatchers(a, x) = %d, want 3", got)
	}
}
