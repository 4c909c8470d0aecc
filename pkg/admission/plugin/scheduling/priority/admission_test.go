package priority

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	schedulinglisters "k8s.io/client-go/listers/scheduling/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/pkg/admission"
)

func newPlugin(t *testing.T, classes ...*schedulingv1.PriorityClass) *Plugin {
	t.Helper()
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	for _, pc := range classes {
		if err := indexer.Add(pc); err != nil {
			t.Fatal(err)
		}
	}
	return New(Config{Lister: schedulinglisters.NewPriorityClassLister(indexer)})
}

func class(name string, value int32, globalDefault bool) *schedulingv1.PriorityClass {
	return &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Value: value, GlobalDefault: globalDefault, PreemptionPolicy: ptr.To(corev1.PreemptLowerPriority)}
}

func createPod(pod *corev1.Pod) *admission.Attributes {
	return &admission.Attributes{Name: pod.Name, Resource: corev1.SchemeGroupVersion.WithResource("pods"), Operation: admission.Create, Object: pod}
}

func createClass(pc *schedulingv1.PriorityClass) *admission.Attributes {
	return &admission.Attributes{Name: pc.Name, Resource: schedulingv1.SchemeGroupVersion.WithResource("priorityclasses"), Operation: admission.Create, Object: pc}
}

// A pod naming no class gets the global default's name and value, the
// highest one's if several are marked (kube-apiserver's own refusal
// makes that rare), and 0 when none is.
func TestGlobalDefault(t *testing.T) {
	for _, tc := range []struct {
		name      string
		classes   []*schedulingv1.PriorityClass
		wantClass string
		want      int32
	}{
		{"none", []*schedulingv1.PriorityClass{class("low", 10, false)}, "", 0},
		{"one", []*schedulingv1.PriorityClass{class("low", 10, false), class("base", 100, true)}, "base", 100},
		{"the highest of two", []*schedulingv1.PriorityClass{class("a", 100, true), class("b", 200, true)}, "b", 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pod := &corev1.Pod{}
			if err := newPlugin(t, tc.classes...).Admit(context.Background(), createPod(pod)); err != nil {
				t.Fatal(err)
			}
			if pod.Spec.PriorityClassName != tc.wantClass || *pod.Spec.Priority != tc.want || *pod.Spec.PreemptionPolicy != corev1.PreemptLowerPriority {
				t.Errorf("class %q priority %d policy %s", pod.Spec.PriorityClassName, *pod.Spec.Priority, *pod.Spec.PreemptionPolicy)
			}
		})
	}
}

// Only one PriorityClass may be the global default: a second is refused,
// on create or by an update that marks it, in kube-apiserver's words; the
// default itself may be updated.
func TestOnlyOneGlobalDefault(t *testing.T) {
	p := newPlugin(t, class("base", 100, true))
	err := p.Validate(context.Background(), createClass(class("other", 5, true)))
	want := `priorityclasses.scheduling.k8s.io "other" is forbidden: PriorityClass base is already marked as default. Only one default can exist`
	if !apierrors.IsForbidden(err) || err.Error() != want {
		t.Errorf("second default: %v, want %s", err, want)
	}
	update := createClass(class("other", 5, true))
	update.Operation = admission.Update
	if err := p.Validate(context.Background(), update); !apierrors.IsForbidden(err) {
		t.Errorf("marking another class: %v", err)
	}
	self := createClass(class("base", 150, true))
	self.Operation = admission.Update
	if err := p.Validate(context.Background(), self); err != nil {
		t.Errorf("updating the default: %v", err)
	}
	if err := p.Validate(context.Background(), createClass(class("plain", 5, false))); err != nil {
		t.Errorf("a class not marked: %v", err)
	}
}

// An update that leaves the priority out keeps the one set on create.
func TestUpdateKeepsPriority(t *testing.T) {
	old := &corev1.Pod{Spec: corev1.PodSpec{Priority: ptr.To[int32](100), PreemptionPolicy: ptr.To(corev1.PreemptNever)}}
	pod := &corev1.Pod{}
	a := createPod(pod)
	a.Operation, a.OldObject = admission.Update, old
	if err := newPlugin(t).Admit(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	if *pod.Spec.Priority != 100 || *pod.Spec.PreemptionPolicy != corev1.PreemptNever {
		t.Errorf("priority %d policy %s", *pod.Spec.Priority, *pod.Spec.PreemptionPolicy)
	}
}

// A pod naming a class that does not exist is refused.
func TestMissingClass(t *testing.T) {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Spec: corev1.PodSpec{PriorityClassName: "nope"}}
	err := newPlugin(t).Admit(context.Background(), createPod(pod))
	if !apierrors.IsForbidden(err) || !strings.HasSuffix(err.Error(), "no PriorityClass with name nope was found") {
		t.Errorf("got %v", err)
	}
}
