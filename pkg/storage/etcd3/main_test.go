package etcd3_test

import (
	"context"
	"fmt"
	"os"
	"sync/atomic"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/kapi-dev/kapi/pkg/storage"
	"github.com/kapi-dev/kapi/pkg/storage/embedded"
	"github.com/kapi-dev/kapi/pkg/storage/etcd3"
	"github.com/kapi-dev/kapi/pkg/storage/storagetest"
)

// codec is the storage codec kube-apiserver uses for core/v1: protobuf in
// the "k8s\x00" envelope, objects stored as v1.
var codec = func() runtime.Codec {
	pb := protobuf.NewSerializer(scheme.Scheme, scheme.Scheme)
	return serializer.NewCodecFactory(scheme.Scheme).CodecForVersions(pb, pb, corev1.SchemeGroupVersion, corev1.SchemeGroupVersion)
}()

var configMaps = schema.GroupResource{Resource: "configmaps"}

func newConfigMap() runtime.Object     { return &corev1.ConfigMap{} }
func newConfigMapList() runtime.Object { return &corev1.ConfigMapList{} }

// shared is the etcd most tests use, each below its own prefix. Tests that
// compact, which affects every key, start their own.
var shared *embedded.Server

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "kapi-etcd3-test")
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

// env is a store of ConfigMaps below a prefix of its own, and the raw etcd
// client beneath it.
type env struct {
	store  storage.Interface
	client *clientv3.Client
	prefix string
}

// newEnv returns a store on the shared etcd.
func newEnv(t *testing.T) *env {
	prefix := fmt.Sprintf("/test%d/registry", prefixes.Add(1))
	return &env{
		store:  etcd3.New(shared.Client(), codec, newConfigMap, newConfigMapList, prefix, configMaps),
		client: shared.Client(),
		prefix: prefix,
	}
}

// newIsolatedEnv returns a store on an etcd of its own.
func newIsolatedEnv(t *testing.T) *env {
	t.Helper()
	s, err := embedded.Start(context.Background(), embedded.Config{DataDir: t.TempDir(), UnsafeNoFsync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return &env{
		store:  etcd3.New(s.Client(), codec, newConfigMap, newConfigMapList, "/registry", configMaps),
		client: s.Client(),
		prefix: "/registry",
	}
}

var (
	configMap = storagetest.ConfigMap
	key       = storagetest.Key
)

func (e *env) create(t *testing.T, cm *corev1.ConfigMap) *corev1.ConfigMap {
	t.Helper()
	return storagetest.Create(t, e.store, cm)
}

func (e *env) update(t *testing.T, ns, name string, mutate func(*corev1.ConfigMap)) *corev1.ConfigMap {
	t.Helper()
	return storagetest.Update(t, e.store, ns, name, mutate)
}

func (e *env) delete(t *testing.T, ns, name string) *corev1.ConfigMap {
	t.Helper()
	return storagetest.Delete(t, e.store, ns, name)
}

func (e *env) currentRV(t *testing.T) uint64 {
	t.Helper()
	return storagetest.CurrentRV(t, e.store)
}

func rvOf(t *testing.T, obj interface{ GetResourceVersion() string }) uint64 {
	t.Helper()
	var rv uint64
	if _, err := fmt.Sscan(obj.GetResourceVersion(), &rv); err != nil {
		t.Fatalf("resourceVersion %q: %v", obj.GetResourceVersion(), err)
	}
	return rv
}

// selector returns a predicate selecting ConfigMaps by label.
func selector(sel string) storage.SelectionPredicate {
	return storage.SelectionPredicate{
		Label: labels.SelectorFromSet(mustParse(sel)),
		Field: fields.Everything(),
		GetAttrs: func(obj runtime.Object) (labels.Set, fields.Set, error) {
			cm := obj.(*corev1.ConfigMap)
			return labels.Set(cm.Labels), fields.Set{"metadata.name": cm.Name, "metadata.namespace": cm.Namespace}, nil
		},
	}
}

func mustParse(sel string) labels.Set {
	s, err := labels.ConvertSelectorToLabelsMap(sel)
	if err != nil {
		panic(err)
	}
	return s
}

// eventTimeout only keeps a broken test from hanging; no test depends on
// how long anything takes.
const eventTimeout = 30 * time.Second
