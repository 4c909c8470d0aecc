package e2e

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
)

// recordingTransport remembers the query of every watch request.
type recordingTransport struct {
	next    http.RoundTripper
	mu      sync.Mutex
	queries []string
}

func (rt *recordingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.Query().Get("watch") == "true" || r.URL.Query().Get("watch") == "1" {
		rt.mu.Lock()
		rt.queries = append(rt.queries, r.URL.RawQuery)
		rt.mu.Unlock()
	}
	return rt.next.RoundTrip(r)
}

func (rt *recordingTransport) sawWatchList() bool {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	for _, q := range rt.queries {
		if strings.Contains(q, "sendInitialEvents=true") {
			return true
		}
	}
	return false
}

// TestWatchListInformer: with client-go's WatchListClient on, an informer
// syncs from a single watch with sendInitialEvents=true that ends its
// initial state with the k8s.io/initial-events-end bookmark.
func TestWatchListInformer(t *testing.T) {
	t.Setenv("KUBE_FEATURE_WatchListClient", "true")
	s := startKapi(t)
	c := clientset(t, s.ClientConfig)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for i := 0; i < 20; i++ {
		if _, err := c.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%d", i)}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	cfg := rest.CopyConfig(s.ClientConfig)
	rec := &recordingTransport{}
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { rec.next = rt; return rec })
	wc := clientset(t, cfg)
	factory := informers.NewSharedInformerFactoryWithOptions(wc, 0, informers.WithNamespace("default"))
	inf := factory.Core().V1().ConfigMaps().Informer()
	factory.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		t.Fatal("the informer did not sync")
	}
	if n := len(inf.GetStore().ListKeys()); n != 20 {
		t.Errorf("informer holds %d configmaps, want 20", n)
	}
	if !rec.sawWatchList() {
		t.Errorf("the informer did not use watch-list; watch queries: %v", rec.queries)
	}
}

// TestWatchTimeoutSeconds: a watch with timeoutSeconds ends by itself.
func TestWatchTimeoutSeconds(t *testing.T) {
	s := startKapi(t)
	c := clientset(t, s.ClientConfig)
	timeout := int64(1)
	w, err := c.CoreV1().ConfigMaps("default").Watch(context.Background(), metav1.ListOptions{TimeoutSeconds: &timeout})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case _, ok := <-w.ResultChan():
			if !ok {
				return
			}
		case <-deadline:
			t.Fatal("the watch outlived its timeoutSeconds")
		}
	}
}
