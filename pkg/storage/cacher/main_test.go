package cacher_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kapi-dev/kapi/pkg/storage"
	"github.com/kapi-dev/kapi/pkg/storage/cacher"
	"github.com/kapi-dev/kapi/pkg/storage/embedded"
	"github.com/kapi-dev/kapi/pkg/storage/etcd3"
	"github.com/kapi-dev/kapi/pkg/storage/storagebackend"
	"github.com/kapi-dev/kapi/pkg/storage/storagetest"
)

var codec = storagebackend.ProtobufCodec(corev1.SchemeGroupVersion)

func newConfigMap() runtime.Object     { return &corev1.ConfigMap{} }
func newConfigMapList() runtime.Object { return &corev1.ConfigMapList{} }

// shared is the etcd every test uses, each below a prefix of its own.
var shared *embedded.Server

func TestMain(m *testing.M) { os.Exit(run(m)) }

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "kapi-cacher-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	shared, err = embedded.Start(context.Background(), embedded.Config{DataDir: dir, UnsafeNoFsync: true})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer shared.Close()
	return m.Run()
}

var prefixes atomic.Int64

// env is a Cacher of ConfigMaps in front of an etcd3 store below a prefix
// of its own, and that store and raw etcd client beneath it.
type env struct {
	cacher  *cacher.Cacher
	backend storage.Interface
	client  *clientv3.Client
	// etcdPrefix is where the ConfigMaps are in etcd, ending in "/".
	etcdPrefix string
}

// newEnv starts a Cacher configured by cfg (Storage, ResourcePrefix and
// the factories are filled in) over a fresh prefix of the shared etcd;
// wrap, if given, wraps the etcd3 store the Cacher is put in front of.
func newEnv(t testing.TB, cfg cacher.Config, wrap ...func(storage.Interface) storage.Interface) *env {
	t.Helper()
	prefix := fmt.Sprintf("/cachertest%d/registry", prefixes.Add(1))
	backend := etcd3.New(shared.Client(), codec, newConfigMap, newConfigMapList, prefix, schema.GroupResource{Resource: "configmaps"})
	cfg.Storage = backend
	for _, w := range wrap {
		cfg.Storage = w(cfg.Storage)
	}
	cfg.ResourcePrefix = "/configmaps"
	cfg.NewFunc, cfg.NewListFunc = newConfigMap, newConfigMapList
	c, err := cacher.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Stop)
	e := &env{cacher: c, backend: backend, client: shared.Client(), etcdPrefix: prefix + "/configmaps/"}
	e.waitFilled(t)
	return e
}

// waitFilled waits until the Cacher has made its first list, so that
// every write a test makes after it is an event in the window. Without
// it, a loaded machine lets the first writes land before that list, and a
// watch from their revisions is (rightly) older than the window.
func (e *env) waitFilled(t testing.TB) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		before := e.cacher.Stats().ListsFromCache
		e.list(t, storage.ListOptions{ResourceVersion: "0"})
		if e.cacher.Stats().ListsFromCache > before {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the cacher was not filled within a minute")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

var (
	configMap = storagetest.ConfigMap
	key       = storagetest.Key
)

func (e *env) create(t *testing.T, cm *corev1.ConfigMap) *corev1.ConfigMap {
	t.Helper()
	return storagetest.Create(t, e.cacher, cm)
}

func (e *env) update(t *testing.T, ns, name string, mutate func(*corev1.ConfigMap)) *corev1.ConfigMap {
	t.Helper()
	return storagetest.Update(t, e.cacher, ns, name, mutate)
}

func (e *env) delete(t *testing.T, ns, name string) *corev1.ConfigMap {
	t.Helper()
	return storagetest.Delete(t, e.cacher, ns, name)
}

func (e *env) currentRV(t *testing.T) uint64 {
	t.Helper()
	return storagetest.CurrentRV(t, e.cacher)
}

// list lists every ConfigMap with opts, which is Recursive unless said.
func (e *env) list(t testing.TB, opts storage.ListOptions) *corev1.ConfigMapList {
	t.Helper()
	opts.Recursive = true
	if opts.Predicate.Label == nil {
		opts.Predicate.Label = labels.Everything()
		opts.Predicate.Field = fields.Everything()
	}
	list := &corev1.ConfigMapList{}
	if err := e.cacher.GetList(context.Background(), "/configmaps", opts, list); err != nil {
		t.Fatalf("GetList %+v: %v", opts, err)
	}
	return list
}

func (e *env) watch(t *testing.T, opts storage.ListOptions) watch.Interface {
	t.Helper()
	opts.Recursive = true
	w, err := e.cacher.Watch(context.Background(), "/configmaps", opts)
	if err != nil {
		t.Fatalf("Watch %+v: %v", opts, err)
	}
	t.Cleanup(w.Stop)
	return w
}

func rvOf(t *testing.T, obj runtime.Object) uint64 {
	t.Helper()
	rv, err := storage.ObjectResourceVersion(obj)
	if err != nil {
		t.Fatal(err)
	}
	return rv
}

func listRV(t *testing.T, l *corev1.ConfigMapList) uint64 {
	t.Helper()
	rv, err := strconv.ParseUint(l.ResourceVersion, 10, 64)
	if err != nil {
		t.Fatalf("list resourceVersion %q: %v", l.ResourceVersion, err)
	}
	return rv
}

func rvString(rv uint64) string { return strconv.FormatUint(rv, 10) }

// selector returns a predicate selecting ConfigMaps by label.
func selector(t *testing.T, sel string) storage.SelectionPredicate {
	s, err := labels.Parse(sel)
	if err != nil {
		t.Fatal(err)
	}
	return storage.SelectionPredicate{
		Label: s,
		Field: fields.Everything(),
		GetAttrs: func(obj runtime.Object) (labels.Set, fields.Set, error) {
			cm := obj.(*corev1.ConfigMap)
			return labels.Set(cm.Labels), fields.Set{"metadata.name": cm.Name, "metadata.namespace": cm.Namespace}, nil
		},
	}
}

// eventTimeout only keeps a broken test from hanging; no test depends on
// how long anything takes.
const eventTimeout = 30 * time.Second

// next returns the next event of w.
func next(t *testing.T, w watch.Interface) watch.Event {
	t.Helper()
	select {
	case ev, ok := <-w.ResultChan():
		if !ok {
			t.Fatal("watch closed, want an event")
		}
		return ev
	case <-time.After(eventTimeout):
		t.Fatal("no event")
	}
	return watch.Event{}
}

// nextNonBookmark returns the next event of w that is not a BOOKMARK.
func nextNonBookmark(t *testing.T, w watch.Interface) watch.Event {
	t.Helper()
	for {
		if ev := next(t, w); ev.Type != watch.Bookmark {
			return ev
		}
	}
}

// summary is what tests compare of an event.
type summary struct {
	Type  watch.EventType
	Name  string
	RV    uint64
	Value string
}

func (s summary) String() string {
	return fmt.Sprintf("%s %s@%d v=%q", s.Type, s.Name, s.RV, s.Value)
}

func summarize(t *testing.T, ev watch.Event) summary {
	t.Helper()
	obj := ev.Object
	// Objects that many watchers send come wrapped, to be encoded once.
	if co, ok := obj.(runtime.CacheableObject); ok {
		obj = co.GetObject()
	}
	cm, ok := obj.(*corev1.ConfigMap)
	if !ok {
		t.Fatalf("%s event carries a %T: %+v", ev.Type, ev.Object, ev.Object)
	}
	return summary{Type: ev.Type, Name: cm.Name, RV: rvOf(t, cm), Value: cm.Data["v"]}
}

// expectEvents reads len(want) events from w and compares them.
func expectEvents(t *testing.T, w watch.Interface, want ...summary) {
	t.Helper()
	for i, exp := range want {
		got := summarize(t, next(t, w))
		if got != exp {
			t.Fatalf("event %d: got %v, want %v", i, got, exp)
		}
	}
}

// countingStorage counts the lists that reach the storage below a Cacher.
type countingStorage struct {
	storage.Interface
	mu    sync.Mutex
	lists int
}

func (s *countingStorage) GetList(ctx context.Context, key string, opts storage.ListOptions, listObj runtime.Object) error {
	s.mu.Lock()
	s.lists++
	s.mu.Unlock()
	return s.Interface.GetList(ctx, key, opts, listObj)
}

func (s *countingStorage) RequestWatchProgress(ctx context.Context) error {
	return s.Interface.(etcd3.ProgressRequester).RequestWatchProgress(ctx)
}

func (s *countingStorage) WithOwnWatchStream(ctx context.Context, name string) context.Context {
	return s.Interface.(etcd3.WatchStreamIsolator).WithOwnWatchStream(ctx, name)
}

func (s *countingStorage) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lists
}
