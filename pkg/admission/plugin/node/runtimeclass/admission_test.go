package runtimeclass

import (
	"context"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	nodelisters "k8s.io/client-go/listers/node/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/pkg/admission"
)

func pluginWith(t *testing.T, cached []*nodev1.RuntimeClass, live map[string]*nodev1.RuntimeClass) *Plugin {
	t.Helper()
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	for _, rc := range cached {
		if err := indexer.Add(rc); err != nil {
			t.Fatal(err)
		}
	}
	return New(Config{
		Lister: nodelisters.NewRuntimeClassLister(indexer),
		Live: GetterFunc(func(_ context.Context, name string) (*nodev1.RuntimeClass, error) {
			if rc, ok := live[name]; ok {
				return rc, nil
			}
			return nil, apierrors.NewNotFound(nodev1.Resource("runtimeclasses"), name)
		}),
	})
}

func createPod(pod *corev1.Pod) *admission.Attributes {
	return &admission.Attributes{Name: pod.Name, Resource: corev1.SchemeGroupVersion.WithResource("pods"), Operation: admission.Create, Object: pod}
}

var kata = &nodev1.RuntimeClass{
	ObjectMeta: metav1.ObjectMeta{Name: "kata"},
	Handler:    "kata",
	Overhead:   &nodev1.Overhead{PodFixed: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("250m")}},
	Scheduling: &nodev1.Scheduling{
		NodeSelector: map[string]string{"sandbox": "kata"},
		Tolerations:  []corev1.Toleration{{Key: "sandbox", Operator: corev1.TolerationOpExists}},
	},
}

// The class's overhead, node selector and tolerations are the pod's,
// merged with what it states, and the pod then validates.
func TestClassIsMergedIntoPod(t *testing.T) {
	p := pluginWith(t, []*nodev1.RuntimeClass{kata}, nil)
	pod := &corev1.Pod{Spec: corev1.PodSpec{RuntimeClassName: ptr.To("kata"), NodeSelector: map[string]string{"zone": "a"}}}
	if err := p.Admit(context.Background(), createPod(pod)); err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"zone": "a", "sandbox": "kata"}; !reflect.DeepEqual(pod.Spec.NodeSelector, want) {
		t.Errorf("nodeSelector = %v", pod.Spec.NodeSelector)
	}
	if !reflect.DeepEqual(pod.Spec.Tolerations, kata.Scheduling.Tolerations) || !reflect.DeepEqual(pod.Spec.Overhead, kata.Overhead.PodFixed) {
		t.Errorf("tolerations %+v overhead %v", pod.Spec.Tolerations, pod.Spec.Overhead)
	}
	if err := p.Validate(context.Background(), createPod(pod)); err != nil {
		t.Errorf("validate: %v", err)
	}
	if kata.Scheduling.NodeSelector["zone"] != "" {
		t.Error("the cached class was changed")
	}
}

// A class created a moment ago, not in the cache yet, is read from the
// server; one that exists nowhere is refused.
func TestClassMissingFromTheCache(t *testing.T) {
	p := pluginWith(t, nil, map[string]*nodev1.RuntimeClass{"kata": kata})
	pod := &corev1.Pod{Spec: corev1.PodSpec{RuntimeClassName: ptr.To("kata")}}
	if err := p.Admit(context.Background(), createPod(pod)); err != nil || pod.Spec.Overhead == nil {
		t.Errorf("class only the server has: %v, overhead %v", err, pod.Spec.Overhead)
	}
	missing := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Spec: corev1.PodSpec{RuntimeClassName: ptr.To("nope")}}
	err := p.Admit(context.Background(), createPod(missing))
	if want := `pods "p" is forbidden: pod rejected: RuntimeClass "nope" not found`; err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}
