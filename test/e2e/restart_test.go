package e2e

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"

	"github.com/kapi-dev/kapi/pkg/testserver"
)

// restartObjects is how many configmaps TestInformerAndWatchThroughRestart
// keeps in sync: the 10,000 unless KAPI_E2E_RESTART_OBJECTS says.
func restartObjects(t *testing.T) int {
	if v := os.Getenv("KAPI_E2E_RESTART_OBJECTS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			t.Fatalf("KAPI_E2E_RESTART_OBJECTS: %v", err)
		}
		return n
	}
	return 10000
}

// change is one write the test made, as a watcher should see it.
type change struct {
	typ  watch.EventType
	name string
	rv   string // empty for deletions, whose revision the client is not told
}

// TestInformerAndWatchThroughRestart: an informer over 10,000 configmaps
// syncs, and it and a client-go RetryWatcher stay in sync through a kapi
// restart: the watcher resumes from its last resourceVersion and sees
// every change exactly once, in order, and the informer's store ends
// equal to the server's list.
func TestInformerAndWatchThroughRestart(t *testing.T) {
	dir := t.TempDir()
	s1 := testserver.Start(t, testserver.Options{DataDir: dir})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	const ns = "restart"
	// The client keeps one config through the restart: the server comes
	// back at the same address with the same certificates.
	cfg := rest.CopyConfig(s1.ClientConfig)
	cfg.QPS, cfg.Burst = -1, 0
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	n := restartObjects(t)
	createConfigMaps(ctx, t, client, ns, n)
	cms := client.CoreV1().ConfigMaps(ns)
	factory := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithNamespace(ns))
	informer := factory.Core().V1().ConfigMaps().Informer()
	stop := make(chan struct{})
	defer close(stop)
	factory.Start(stop)
	if !cache.WaitForCacheSync(ctx.Done(), informer.HasSynced) {
		t.Fatal("the informer did not sync")
	}
	if got := len(informer.GetStore().ListKeys()); got != n {
		t.Fatalf("informer synced %d configmaps, want %d", got, n)
	}

	start, err := cms.List(ctx, metav1.ListOptions{Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	rw, err := watchtools.NewRetryWatcherWithContext(ctx, start.ResourceVersion, &cache.ListWatch{
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			return cms.Watch(ctx, o)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer rw.Stop()
	var (
		mu   sync.Mutex
		seen []change
	)
	go func() {
		for ev := range rw.ResultChan() {
			cm, ok := ev.Object.(*corev1.ConfigMap)
			if !ok {
				t.Errorf("the watch ended with %s %v", ev.Type, ev.Object)
				return
			}
			mu.Lock()
			seen = append(seen, change{ev.Type, cm.Name, cm.ResourceVersion})
			mu.Unlock()
		}
	}()

	var want []change
	write := func(round string) {
		for i := range 50 {
			name := fmt.Sprintf("cm-%d", i)
			cm, err := cms.Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			cm.Data = map[string]string{"round": round}
			cm, err = cms.Update(ctx, cm, metav1.UpdateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, change{watch.Modified, name, cm.ResourceVersion})
		}
		for i := range 10 {
			name := fmt.Sprintf("%s-new-%d", round, i)
			cm, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, change{watch.Added, cm.Name, cm.ResourceVersion})
			if err := cms.Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
			want = append(want, change{watch.Deleted, name, ""})
		}
	}

	write("before")
	// A write elsewhere moves etcd past the watcher's last configmap
	// event, so the restarted cache's window starts after it: the
	// watcher's resumption is served from etcd's history.
	if _, err := client.CoreV1().Secrets(ns).Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "elsewhere"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := s1.Stop(); err != nil {
		t.Fatal(err)
	}
	// While kapi is down, the cache is gone; the restarted one starts
	// from a fresh list, after every revision the clients have seen.
	s2 := testserver.Start(t, testserver.Options{DataDir: dir, Address: s1.Address})
	if s2.URL != s1.URL {
		t.Fatalf("restarted at %s, want %s", s2.URL, s1.URL)
	}
	write("after")

	// The watcher ends with exactly the writes, in order.
	deadline := time.Now().Add(time.Minute)
	for {
		mu.Lock()
		got := append([]change(nil), seen...)
		mu.Unlock()
		if len(got) >= len(want) || time.Now().After(deadline) {
			compareChanges(t, got, want)
			break
		}
		time.Sleep(50 * time.Millisecond)
	}

	// The informer's store ends equal to the server's state.
	for {
		list, err := cms.List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		diff := storeDiff(informer.GetStore(), list.Items)
		if diff == "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the informer is out of sync after the restart: %s", diff)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func compareChanges(t *testing.T, got, want []change) {
	t.Helper()
	for i := range max(len(got), len(want)) {
		switch {
		case i >= len(got):
			t.Fatalf("the watcher got %d events, want %d; the first missing is %+v", len(got), len(want), want[i])
		case i >= len(want):
			t.Fatalf("the watcher got %d events, want %d; the first extra is %+v", len(got), len(want), got[i])
		case got[i].typ != want[i].typ || got[i].name != want[i].name || (want[i].rv != "" && got[i].rv != want[i].rv):
			t.Fatalf("event %d is %+v, want %+v", i, got[i], want[i])
		}
	}
}

// storeDiff describes how an informer's store differs from a list, or
// returns "".
func storeDiff(store cache.Store, items []corev1.ConfigMap) string {
	if len(store.ListKeys()) != len(items) {
		return fmt.Sprintf("%d objects in the store, %d on the server", len(store.ListKeys()), len(items))
	}
	for i := range items {
		obj, ok, _ := store.GetByKey(items[i].Namespace + "/" + items[i].Name)
		if !ok {
			return items[i].Name + " is missing from the store"
		}
		if rv := obj.(runtime.Object).(*corev1.ConfigMap).ResourceVersion; rv != items[i].ResourceVersion {
			return fmt.Sprintf("%s is at %s in the store, %s on the server", items[i].Name, rv, items[i].ResourceVersion)
		}
	}
	return ""
}

// createConfigMaps creates cm-0 ... cm-(n-1) in ns with several workers.
func createConfigMaps(ctx context.Context, t *testing.T, c kubernetes.Interface, ns string, n int) {
	t.Helper()
	const workers = 16
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += workers {
				cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%d", i)}, Data: map[string]string{"i": strconv.Itoa(i)}}
				if _, err := c.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// TestARestartDoesNotRecreateTheSystemNamespaces: on a restart the system
// namespaces are there already, and kapi sees that before it writes: no
// create of a namespace is refused as a conflict, as none is on
// kube-apiserver, which checks its informer first.
func TestARestartDoesNotRecreateTheSystemNamespaces(t *testing.T) {
	dir := t.TempDir()
	s1 := testserver.Start(t, testserver.Options{DataDir: dir})
	if err := s1.Stop(); err != nil {
		t.Fatal(err)
	}
	s2 := testserver.Start(t, testserver.Options{DataDir: dir, Address: s1.Address})
	client, err := kubernetes.NewForConfig(s2.ClientConfig)
	if err != nil {
		t.Fatal(err)
	}
	body, err := client.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(body), "\n") {
		if strings.HasPrefix(line, "apiserver_request_total{") && strings.Contains(line, `resource="namespaces"`) && strings.Contains(line, `verb="POST"`) {
			t.Errorf("the restarted server created namespaces: %s", line)
		}
	}
}
