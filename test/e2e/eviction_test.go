package e2e

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kapi-dev/kapi/pkg/testserver"
)

// TestEvictionHonoursDisruptionBudgets: pods/eviction, served by the
// kapi a user runs, reads the namespace's PodDisruptionBudgets (another
// group's objects, through the loopback client, as kube-apiserver does):
// a running pod its budget allows no disruption of is refused with 429
// and the DisruptionBudget cause; once the budget allows one, the pod is
// evicted and the budget's status records it.
func TestEvictionHonoursDisruptionBudgets(t *testing.T) {
	s := testserver.Start(t, testserver.Options{})
	c := clientset(t, s.ClientConfig)
	ctx := context.Background()
	const ns = "eviction"
	if _, err := c.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// The pod runs as the namespace's default service account, which kube's
	// controller manager would create.
	if _, err := c.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	one := intstr.FromInt32(1)
	pdb, err := c.PolicyV1().PodDisruptionBudgets(ns).Create(ctx, &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec:       policyv1.PodDisruptionBudgetSpec{MinAvailable: &one, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pod, err := c.CoreV1().Pods(ns).Create(ctx, &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "web-0", Labels: map[string]string{"app": "web"}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pod.Status.Phase = corev1.PodRunning
	pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
	if _, err := c.CoreV1().Pods(ns).UpdateStatus(ctx, pod, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	evict := func() error {
		return c.CoreV1().Pods(ns).EvictV1(ctx, &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: "web-0", Namespace: ns}})
	}

	// No disruption controller has counted the pods: the budget allows
	// none.
	err = evict()
	if !apierrors.IsTooManyRequests(err) {
		t.Fatalf("eviction under a budget allowing nothing: %v, want 429", err)
	}
	if status, ok := err.(apierrors.APIStatus); !ok || status.Status().Details == nil ||
		len(status.Status().Details.Causes) != 1 || status.Status().Details.Causes[0].Type != policyv1.DisruptionBudgetCause {
		t.Errorf("the 429 lacks the DisruptionBudget cause: %#v", err)
	}

	// As the disruption controller would: one disruption allowed.
	pdb.Status = policyv1.PodDisruptionBudgetStatus{ObservedGeneration: pdb.Generation, DisruptionsAllowed: 1, CurrentHealthy: 1, DesiredHealthy: 1, ExpectedPods: 1}
	if _, err := c.PolicyV1().PodDisruptionBudgets(ns).UpdateStatus(ctx, pdb, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := evict(); err != nil {
		t.Fatalf("eviction the budget allows: %v", err)
	}
	if _, err := c.CoreV1().Pods(ns).Get(ctx, "web-0", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the evicted pod (never scheduled) is still there: %v", err)
	}
	after, err := c.PolicyV1().PodDisruptionBudgets(ns).Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, recorded := after.Status.DisruptedPods["web-0"]; after.Status.DisruptionsAllowed != 0 || !recorded {
		t.Errorf("the budget's status after the eviction: %+v", after.Status)
	}
}
