package pod

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kapi-dev/kapi/pkg/api/scheme"
	"github.com/kapi-dev/kapi/pkg/endpoints/request"
	"github.com/kapi-dev/kapi/pkg/features"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
	"github.com/kapi-dev/kapi/pkg/storage/embedded"
	"github.com/kapi-dev/kapi/pkg/storage/storagebackend"
)

// fakeBudgets is a namespace's PodDisruptionBudgets, as their storage
// would keep them.
type fakeBudgets struct {
	items   map[string]*policyv1.PodDisruptionBudget
	updates int
}

func (f *fakeBudgets) List(_ context.Context, namespace string) ([]policyv1.PodDisruptionBudget, error) {
	var out []policyv1.PodDisruptionBudget
	for _, p := range f.items {
		if p.Namespace == namespace {
			out = append(out, *p.DeepCopy())
		}
	}
	return out, nil
}

func (f *fakeBudgets) Get(_ context.Context, _, name string) (*policyv1.PodDisruptionBudget, error) {
	if p, ok := f.items[name]; ok {
		return p.DeepCopy(), nil
	}
	return nil, apierrors.NewNotFound(policyv1.Resource("poddisruptionbudgets"), name)
}

func (f *fakeBudgets) UpdateStatus(_ context.Context, pdb *policyv1.PodDisruptionBudget) error {
	f.updates++
	f.items[pdb.Name] = pdb.DeepCopy()
	return nil
}

func budget(name string, allowed, current, desired int32, policy *policyv1.UnhealthyPodEvictionPolicyType) *policyv1.PodDisruptionBudget {
	return &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Generation: 1},
		Spec: policyv1.PodDisruptionBudgetSpec{
			MinAvailable:               &intstr.IntOrString{IntVal: desired},
			Selector:                   &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			UnhealthyPodEvictionPolicy: policy,
		},
		Status: policyv1.PodDisruptionBudgetStatus{ObservedGeneration: 1, DisruptionsAllowed: allowed, CurrentHealthy: current, DesiredHealthy: desired, ExpectedPods: current},
	}
}

// evictionFixture is a pod store with pods/eviction over fake budgets.
type evictionFixture struct {
	st      *Storage
	budgets *fakeBudgets
}

func newEvictionFixture(t *testing.T, budgets ...*policyv1.PodDisruptionBudget) *evictionFixture {
	t.Helper()
	etcd, err := embedded.Start(context.Background(), embedded.Config{DataDir: t.TempDir(), UnsafeNoFsync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = etcd.Close() })
	f := &fakeBudgets{items: map[string]*policyv1.PodDisruptionBudget{}}
	for _, b := range budgets {
		f.items[b.Name] = b
	}
	st, err := NewStorage(generic.RESTOptions{StorageFactory: &storagebackend.Factory{Client: etcd.Client(), Prefix: "/registry"}}, Connections{}, f, features.Gates{})
	if err != nil {
		t.Fatal(err)
	}
	return &evictionFixture{st: st, budgets: f}
}

var evictionCtx = request.WithNamespace(context.Background(), "default")

// pod creates a pod labelled app=web in phase, Ready or not.
func (f *evictionFixture) pod(t *testing.T, name string, phase corev1.PodPhase, ready bool) {
	t.Helper()
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{"app": "web"}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "example.com/app"}}},
	}
	scheme.Scheme.Default(p)
	obj, err := f.st.Pod.Create(evictionCtx, p, nil, &metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p = obj.(*corev1.Pod)
	p.Status.Phase = phase
	status := corev1.ConditionFalse
	if ready {
		status = corev1.ConditionTrue
	}
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: status}}
	if _, _, err := f.st.Status.Update(evictionCtx, name, rest.DefaultUpdatedObjectInfo(p), nil, nil, false, &metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func (f *evictionFixture) evict(name string, dryRun ...string) (any, error) {
	ctx := request.WithRequestInfo(evictionCtx, &request.RequestInfo{Name: name, Resource: "pods", Subresource: "eviction", Namespace: "default"})
	return f.st.Eviction.Create(ctx, &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: name}}, nil, &metav1.CreateOptions{DryRun: dryRun})
}

func (f *evictionFixture) exists(t *testing.T, name string) bool {
	t.Helper()
	_, err := f.st.Pod.Get(evictionCtx, name, &metav1.GetOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	return err == nil
}

func TestEvictionTakesADisruptionFromTheBudget(t *testing.T) {
	f := newEvictionFixture(t, budget("web", 1, 3, 2, nil))
	f.pod(t, "web-1", corev1.PodRunning, true)
	out, err := f.evict("web-1")
	if err != nil {
		t.Fatal(err)
	}
	if st, ok := out.(*metav1.Status); !ok || st.Status != metav1.StatusSuccess {
		t.Errorf("answer %#v, want Success", out)
	}
	if f.exists(t, "web-1") {
		t.Error("the evicted pod is still there")
	}
	pdb := f.budgets.items["web"]
	if pdb.Status.DisruptionsAllowed != 0 {
		t.Errorf("disruptionsAllowed = %d, want 0", pdb.Status.DisruptionsAllowed)
	}
	if _, ok := pdb.Status.DisruptedPods["web-1"]; !ok {
		t.Errorf("disruptedPods = %v, want web-1 recorded", pdb.Status.DisruptedPods)
	}
	c := apimeta.FindStatusCondition(pdb.Status.Conditions, policyv1.DisruptionAllowedCondition)
	if c == nil || c.Status != metav1.ConditionFalse || c.Reason != policyv1.InsufficientPodsReason {
		t.Errorf("DisruptionAllowed condition %+v, want False/InsufficientPods", c)
	}
}

func TestEvictionRefusedWhenTheBudgetAllowsNone(t *testing.T) {
	f := newEvictionFixture(t, budget("web", 0, 2, 2, nil))
	f.pod(t, "web-1", corev1.PodRunning, true)
	_, err := f.evict("web-1")
	st, ok := err.(apierrors.APIStatus)
	if !ok || st.Status().Code != 429 || st.Status().Reason != metav1.StatusReasonTooManyRequests ||
		st.Status().Message != "Cannot evict pod as it would violate the pod's disruption budget." {
		t.Fatalf("error %v, want kube-apiserver's 429", err)
	}
	causes := st.Status().Details.Causes
	want := metav1.StatusCause{Type: policyv1.DisruptionBudgetCause, Message: "The disruption budget web needs 2 healthy pods and has 2 currently"}
	if len(causes) != 1 || causes[0] != want {
		t.Errorf("causes %+v, want %+v", causes, want)
	}
	if st.Status().Details.RetryAfterSeconds != 0 {
		t.Errorf("retryAfterSeconds %d, want 0", st.Status().Details.RetryAfterSeconds)
	}
	if !f.exists(t, "web-1") || f.budgets.updates != 0 {
		t.Error("a refused eviction deleted the pod or touched the budget")
	}
}

func TestEvictionDryRunChangesNothing(t *testing.T) {
	f := newEvictionFixture(t, budget("web", 1, 3, 2, nil))
	f.pod(t, "web-1", corev1.PodRunning, true)
	if _, err := f.evict("web-1", metav1.DryRunAll); err != nil {
		t.Fatal(err)
	}
	if !f.exists(t, "web-1") || f.budgets.updates != 0 {
		t.Error("a dry-run eviction deleted the pod or wrote the budget")
	}
	obj, _ := f.st.Pod.Get(evictionCtx, "web-1", &metav1.GetOptions{})
	for _, c := range obj.(*corev1.Pod).Status.Conditions {
		if c.Type == corev1.DisruptionTarget {
			t.Error("a dry-run eviction marked the pod")
		}
	}
}

func TestEvictionOfPodsTheBudgetDoesNotProtect(t *testing.T) {
	always := policyv1.AlwaysAllow
	for _, tc := range []struct {
		name   string
		budget *policyv1.PodDisruptionBudget
		phase  corev1.PodPhase
		ready  bool
	}{
		{"a pending pod", budget("web", 0, 2, 2, nil), corev1.PodPending, false},
		{"a finished pod", budget("web", 0, 2, 2, nil), corev1.PodSucceeded, false},
		{"an unhealthy pod with AlwaysAllow", budget("web", 0, 1, 2, &always), corev1.PodRunning, false},
		{"an unhealthy pod of a healthy budget", budget("web", 0, 2, 2, nil), corev1.PodRunning, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newEvictionFixture(t, tc.budget)
			f.pod(t, "web-1", tc.phase, tc.ready)
			if _, err := f.evict("web-1"); err != nil {
				t.Fatal(err)
			}
			if f.exists(t, "web-1") || f.budgets.updates != 0 {
				t.Error("the pod was not evicted freely")
			}
		})
	}
}

func TestEvictionRefusals(t *testing.T) {
	stale := budget("web", 1, 3, 2, nil)
	stale.Generation = 2
	f := newEvictionFixture(t, stale)
	f.pod(t, "web-1", corev1.PodRunning, true)
	_, err := f.evict("web-1")
	if st, ok := err.(apierrors.APIStatus); !ok || st.Status().Code != 429 || st.Status().Details.RetryAfterSeconds != 10 ||
		st.Status().Details.Causes[0].Message != "The disruption budget web is still being processed by the server." {
		t.Errorf("budget not observed yet: %v", err)
	}

	two := newEvictionFixture(t, budget("a", 1, 3, 2, nil), budget("b", 1, 3, 2, nil))
	two.pod(t, "web-1", corev1.PodRunning, true)
	out, err := two.evict("web-1")
	if st, ok := out.(*metav1.Status); err != nil || !ok || st.Code != 500 ||
		st.Message != "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support." {
		t.Errorf("two budgets: %#v %v", out, err)
	}

	ctx := request.WithRequestInfo(evictionCtx, &request.RequestInfo{Name: "web-1", Namespace: "default"})
	_, err = f.st.Eviction.Create(ctx, &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: "other"}}, nil, &metav1.CreateOptions{})
	if !apierrors.IsBadRequest(err) || err.Error() != "name in URL does not match name in Eviction object" {
		t.Errorf("name mismatch: %v", err)
	}
	_, err = f.st.Eviction.Create(ctx, &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: "web-1"}, DeleteOptions: &metav1.DeleteOptions{DryRun: []string{"All"}}}, nil, &metav1.CreateOptions{DryRun: []string{"Other"}})
	if err == nil || err.Error() != "Non-matching dry-run options in request and content: [Other] and [All]" {
		t.Errorf("dry-run mismatch: %v", err)
	}
}
