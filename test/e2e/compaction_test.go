package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"

	"github.com/kapi-dev/kapi/pkg/testserver"
)

// TestCompactionWithoutWatchCache: with --etcd-compaction-interval, old
// revisions go; read from etcd, a watch from before them is told 410
// Expired, and a continue token from before them is 410 with a fresh token
// that goes on from the current state, as kube-apiserver gives it.
func TestCompactionWithoutWatchCache(t *testing.T) {
	s := testserver.Start(t, testserver.Options{EtcdCompactionInterval: 500 * time.Millisecond, DisableWatchCache: true})
	c := clientset(t, s.ClientConfig)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cms := c.CoreV1().ConfigMaps("default")
	page := sixAndAFirstPage(ctx, t, cms)

	// Keep writing until the revisions of the first page are compacted.
	for i := 0; ; i++ {
		if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("later-%d", i)}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		w, err := cms.Watch(ctx, metav1.ListOptions{ResourceVersion: page.ResourceVersion})
		if err != nil {
			t.Fatal(err)
		}
		ev := <-w.ResultChan()
		w.Stop()
		if ev.Type == watch.Error {
			if st := apierrors.FromObject(ev.Object); !apierrors.IsResourceExpired(st) && !apierrors.IsGone(st) {
				t.Fatalf("watch from a compacted revision: %v", st)
			}
			break
		}
		select {
		case <-ctx.Done():
			t.Fatal("nothing was compacted")
		case <-time.After(200 * time.Millisecond):
		}
	}

	_, err := cms.List(ctx, metav1.ListOptions{Limit: 2, Continue: page.Continue})
	if !apierrors.IsResourceExpired(err) {
		t.Fatalf("continue from a compacted revision: want 410 Expired, got %v", err)
	}
	fresh := err.(apierrors.APIStatus).Status().ListMeta.Continue
	if fresh == "" {
		t.Fatal("the 410 carries no fresh continue token")
	}
	rest, err := cms.List(ctx, metav1.ListOptions{Limit: 100, Continue: fresh})
	if err != nil || len(rest.Items) == 0 {
		t.Fatalf("continuing with the fresh token: %v %v", rest, err)
	}
}

// TestListSnapshotsSurviveCompaction: with the watch cache, a continue
// token, or an Exact list, at a revision etcd has compacted but the
// cache's window still holds is answered from the cache, at that
// revision, as kube-apiserver 1.37 does.
func TestListSnapshotsSurviveCompaction(t *testing.T) {
	s := testserver.Start(t, testserver.Options{EtcdCompactionInterval: 500 * time.Millisecond})
	c := clientset(t, s.ClientConfig)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cms := c.CoreV1().ConfigMaps("default")
	page := sixAndAFirstPage(ctx, t, cms)

	// Events are not cached (kube-apiserver's default): an Exact list of
	// them reads etcd, and tells when the revision is compacted.
	events := c.CoreV1().Events("default")
	for i := 0; ; i++ {
		if err := cms.Delete(ctx, fmt.Sprintf("cm-%d", i%6), metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			t.Fatal(err)
		}
		if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("later-%d", i)}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		_, err := events.List(ctx, metav1.ListOptions{ResourceVersion: page.ResourceVersion, ResourceVersionMatch: metav1.ResourceVersionMatchExact})
		if apierrors.IsResourceExpired(err) || apierrors.IsGone(err) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		select {
		case <-ctx.Done():
			t.Fatal("nothing was compacted")
		case <-time.After(200 * time.Millisecond):
		}
	}

	rest, err := cms.List(ctx, metav1.ListOptions{Limit: 100, Continue: page.Continue})
	if err != nil {
		t.Fatalf("continue from a compacted revision the cache holds: %v", err)
	}
	if got := names(rest.Items); fmt.Sprint(got) != "[cm-2 cm-3 cm-4 cm-5]" || rest.ResourceVersion != page.ResourceVersion {
		t.Fatalf("continued list = %v at %s, want [cm-2 cm-3 cm-4 cm-5] at %s", got, rest.ResourceVersion, page.ResourceVersion)
	}
	exact, err := cms.List(ctx, metav1.ListOptions{ResourceVersion: page.ResourceVersion, ResourceVersionMatch: metav1.ResourceVersionMatchExact})
	if err != nil {
		t.Fatalf("Exact list at a compacted revision the cache holds: %v", err)
	}
	if got := names(exact.Items); fmt.Sprint(got) != "[cm-0 cm-1 cm-2 cm-3 cm-4 cm-5]" {
		t.Fatalf("Exact list = %v, want the six configmaps of then", got)
	}
}

func names(cms []corev1.ConfigMap) []string {
	out := make([]string, len(cms))
	for i, cm := range cms {
		out[i] = cm.Name
	}
	return out
}

// sixAndAFirstPage creates cm-0 ... cm-5 and returns the first page of two
// of a list of them.
func sixAndAFirstPage(ctx context.Context, t *testing.T, cms typedcorev1.ConfigMapInterface) *corev1.ConfigMapList {
	t.Helper()
	for i := 0; i < 6; i++ {
		if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%d", i)}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	page, err := cms.List(ctx, metav1.ListOptions{Limit: 2})
	if err != nil || page.Continue == "" {
		t.Fatalf("first page: %v %v", page, err)
	}
	return page
}
