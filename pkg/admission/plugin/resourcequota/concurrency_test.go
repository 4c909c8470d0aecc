package resourcequota_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kapi-dev/kapi/pkg/testserver"
)

// Many clients creating at once against tight quotas, through a real
// kapi, never take a quota past its limit, and leave status.used exactly
// what was created: in two namespaces checked side by side, with two
// quotas charged for each object, while another client keeps changing
// one of the quotas (so that the plugin's status writes conflict and are
// retried).
func TestConcurrentCreatesNeverExceedAQuotaAndLeaveItsUsageExact(t *testing.T) {
	s := testserver.Start(t, testserver.Options{})
	cfg := rest.CopyConfig(s.ClientConfig)
	cfg.QPS = -1 // no client-side throttling
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	const (
		limit   = 12
		clients = 8
		each    = 6 // clients*each creates per namespace, four times the limit
	)
	namespaces := []string{"race-a", "race-b"}
	for _, ns := range namespaces {
		if _, err := c.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		setQuota(t, c, ns, "tight", corev1.ResourceList{corev1.ResourceConfigMaps: resource.MustParse(fmt.Sprint(limit))})
		setQuota(t, c, ns, "loose", corev1.ResourceList{"count/configmaps": resource.MustParse(fmt.Sprint(limit + 5))})
	}

	// A client that keeps relabelling a quota: its status stays, its
	// resourceVersion moves under the plugin's feet.
	stop := make(chan struct{})
	var relabelled atomic.Int64
	var meddler sync.WaitGroup
	meddler.Add(1)
	go func() {
		defer meddler.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond): // a pace, not a timing asserted
			}
			q, err := c.CoreV1().ResourceQuotas("race-a").Get(ctx, "tight", metav1.GetOptions{})
			if err != nil {
				t.Error(err)
				return
			}
			q.Labels = map[string]string{"round": fmt.Sprint(i)}
			if _, err := c.CoreV1().ResourceQuotas("race-a").Update(ctx, q, metav1.UpdateOptions{}); err == nil {
				relabelled.Add(1)
			} else if !apierrors.IsConflict(err) {
				t.Error(err)
				return
			}
		}
	}()

	var created, refused [2]atomic.Int64
	var wg sync.WaitGroup
	for n, ns := range namespaces {
		for i := range clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for j := range each {
					cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%d-%d", i, j)}}
					_, err := c.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{})
					switch {
					case err == nil:
						created[n].Add(1)
					case apierrors.IsForbidden(err) && strings.Contains(err.Error(), "exceeded quota: tight"):
						refused[n].Add(1)
					case apierrors.IsConflict(err):
						// Out of retries against the meddler: refused
						// without a charge, as kube-apiserver does.
						refused[n].Add(1)
					default:
						t.Errorf("create %s/%s: %v", ns, cm.Name, err)
					}
				}
			}()
		}
	}
	wg.Wait()
	close(stop)
	meddler.Wait()
	if relabelled.Load() == 0 {
		t.Errorf("the quota was never relabelled while the creates ran")
	}

	for n, ns := range namespaces {
		if got := created[n].Load(); got != limit {
			t.Errorf("%s: %d configmaps created (%d refused), want exactly the limit, %d", ns, got, refused[n].Load(), limit)
		}
		list, err := c.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		stored := int64(len(list.Items))
		for _, name := range []string{"tight", "loose"} {
			q, err := c.CoreV1().ResourceQuotas(ns).Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for resourceName, used := range q.Status.Used {
				if used.Value() != stored {
					t.Errorf("%s/%s: status.used[%s] = %s, but %d configmaps are stored", ns, name, resourceName, used.String(), stored)
				}
			}
		}
	}
}

// setQuota creates a quota of hard and sets its status as kube's quota
// controller would, nothing used yet.
func setQuota(t *testing.T, c kubernetes.Interface, ns, name string, hard corev1.ResourceList) {
	t.Helper()
	ctx := context.Background()
	q, err := c.CoreV1().ResourceQuotas(ns).Create(ctx, &corev1.ResourceQuota{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       corev1.ResourceQuotaSpec{Hard: hard},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	q.Status.Hard = hard
	q.Status.Used = corev1.ResourceList{}
	for r := range hard {
		q.Status.Used[r] = resource.MustParse("0")
	}
	if _, err := c.CoreV1().ResourceQuotas(ns).UpdateStatus(ctx, q, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}
