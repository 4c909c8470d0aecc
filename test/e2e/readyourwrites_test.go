package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
)

// TestAWriteIsInTheWatchCacheWhenItsResponseArrives: a client that holds
// the response of a write finds the write in every read the watch cache
// serves (resourceVersion=0), and every watch of the resource has the
// event queued. kube-apiserver does not promise this; kapi does, so that
// its own informers, fed from the cache over the loopback connection,
// are one hop behind a write rather than racing it from etcd. The writes
// are namespace patches (what PodSecurity reads) and configmap updates.
func TestAWriteIsInTheWatchCacheWhenItsResponseArrives(t *testing.T) {
	s := startKapi(t)
	cfg := rest.CopyConfig(s.ClientConfig)
	cfg.QPS = -1 // no client-side rate limit: a write, then at once a read
	c := clientset(t, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const ns = "read-your-writes"
	if _, err := c.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	cm, err := c.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	fromCache := metav1.GetOptions{ResourceVersion: "0"}
	for i := range 200 {
		patch := fmt.Appendf(nil, `{"metadata":{"labels":{"i":"%d"}}}`, i)
		written, err := c.CoreV1().Namespaces().Patch(ctx, ns, types.MergePatchType, patch, metav1.PatchOptions{})
		if err != nil {
			t.Fatal(err)
		}
		read, err := c.CoreV1().Namespaces().Get(ctx, ns, fromCache)
		if err != nil {
			t.Fatal(err)
		}
		if read.ResourceVersion != written.ResourceVersion {
			t.Fatalf("patch %d of the namespace answered resourceVersion %s; a read from the cache right after has %s", i, written.ResourceVersion, read.ResourceVersion)
		}

		cm.Data = map[string]string{"i": fmt.Sprint(i)}
		if cm, err = c.CoreV1().ConfigMaps(ns).Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		list, err := c.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{ResourceVersion: "0"})
		if err != nil {
			t.Fatal(err)
		}
		if len(list.Items) != 1 || list.Items[0].ResourceVersion != cm.ResourceVersion {
			t.Fatalf("update %d of the configmap answered resourceVersion %s; a list from the cache right after has %v", i, cm.ResourceVersion, list.Items)
		}
	}
}
