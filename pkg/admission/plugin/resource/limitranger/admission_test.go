package limitranger

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/pkg/admission"
)

func list(pairs ...string) corev1.ResourceList {
	l := corev1.ResourceList{}
	for i := 0; i < len(pairs); i += 2 {
		l[corev1.ResourceName(pairs[i])] = resource.MustParse(pairs[i+1])
	}
	return l
}

// The constraints, with kube-apiserver's messages (the admission corpus
// records the same from the oracle).
func TestConstraints(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"min, no request", minConstraint("Container", "cpu", resource.MustParse("100m"), nil, nil), "minimum cpu usage per Container is 100m.  No request is specified"},
		{"min, request under", minConstraint("Container", "cpu", resource.MustParse("100m"), list("cpu", "50m"), nil), "minimum cpu usage per Container is 100m, but request is 50m"},
		{"min, limit under", minConstraint("Container", "cpu", resource.MustParse("100m"), list("cpu", "100m"), list("cpu", "50m")), "minimum cpu usage per Container is 100m, but limit is 50m"},
		{"min met", minConstraint("Container", "cpu", resource.MustParse("100m"), list("cpu", "0.1"), nil), ""},
		{"max, no limit", maxConstraint("Pod", "memory", resource.MustParse("1Gi"), nil, nil), "maximum memory usage per Pod is 1Gi.  No limit is specified"},
		{"max, limit over", maxConstraint("Container", "cpu", resource.MustParse("1"), nil, list("cpu", "1500m")), "maximum cpu usage per Container is 1, but limit is 1500m"},
		{"max, request over", maxConstraint("Container", "cpu", resource.MustParse("1"), list("cpu", "2"), list("cpu", "1")), "maximum cpu usage per Container is 1, but request is 2"},
		{"max of a claim's request", maxRequestConstraint("PersistentVolumeClaim", "storage", resource.MustParse("10Gi"), list("storage", "20Gi")), "maximum storage usage per PersistentVolumeClaim is 10Gi, but request is 20Gi"},
		{"ratio over", ratioConstraint("Container", "cpu", resource.MustParse("2"), list("cpu", "300m"), list("cpu", "1")), "cpu max limit to request ratio per Container is 2, but provided ratio is 3.333333"},
		{"ratio, no request", ratioConstraint("Container", "cpu", resource.MustParse("2"), nil, list("cpu", "1")), "cpu max limit to request ratio per Container is 2, but no request is specified or request is 0"},
		{"ratio, limit 0", ratioConstraint("Container", "cpu", resource.MustParse("2"), list("cpu", "1"), list("cpu", "0")), "cpu max limit to request ratio per Container is 2, but no limit is specified or limit is 0"},
		{"ratio met", ratioConstraint("Container", "cpu", resource.MustParse("2"), list("cpu", "500m"), list("cpu", "1")), ""},
		{"huge values compare in units", maxConstraint("Container", "memory", resource.MustParse("8Ei"), nil, list("memory", "7Ei")), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ""
			if tc.err != nil {
				got = tc.err.Error()
			}
			if got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// A pod's total counts its containers, and the largest of its init
// containers in turn, sidecars adding up with everything after them.
func TestPodTotal(t *testing.T) {
	container := func(mem string, restart *corev1.ContainerRestartPolicy) corev1.Container {
		return corev1.Container{RestartPolicy: restart, Resources: corev1.ResourceRequirements{Limits: list("memory", mem)}}
	}
	always := ptr.To(corev1.ContainerRestartPolicyAlways)
	for _, tc := range []struct {
		name  string
		spec  corev1.PodSpec
		gated bool
		want  string
	}{
		{"containers add up", corev1.PodSpec{Containers: []corev1.Container{container("1Gi", nil), container("1Gi", nil)}}, false, "2Gi"},
		{"an init container bigger than the rest wins", corev1.PodSpec{InitContainers: []corev1.Container{container("3Gi", nil)}, Containers: []corev1.Container{container("1Gi", nil)}}, false, "3Gi"},
		{"a sidecar adds up", corev1.PodSpec{InitContainers: []corev1.Container{container("1Gi", always)}, Containers: []corev1.Container{container("1Gi", nil)}}, false, "2Gi"},
		{"an init container after a sidecar runs with it", corev1.PodSpec{InitContainers: []corev1.Container{container("1Gi", always), container("2Gi", nil)}, Containers: []corev1.Container{container("1Gi", nil)}}, false, "3Gi"},
		{"pod-level resources win when the gate is on", corev1.PodSpec{Resources: &corev1.ResourceRequirements{Limits: list("memory", "4Gi")}, Containers: []corev1.Container{container("1Gi", nil)}}, true, "4Gi"},
		{"pod-level resources are ignored when the gate is off", corev1.PodSpec{Resources: &corev1.ResourceRequirements{Limits: list("memory", "4Gi")}, Containers: []corev1.Container{container("1Gi", nil)}}, false, "1Gi"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &Plugin{podLevelResources: tc.gated}
			got := p.podResources(&corev1.Pod{Spec: tc.spec}, func(r corev1.ResourceRequirements) corev1.ResourceList { return r.Limits })
			if q := got[corev1.ResourceMemory]; q.Cmp(resource.MustParse(tc.want)) != 0 {
				t.Errorf("total memory %s, want %s", q.String(), tc.want)
			}
		})
	}
}

type liveLister struct {
	items []corev1.LimitRange
	calls int
}

func (l *liveLister) List(context.Context, string) ([]corev1.LimitRange, error) {
	l.calls++
	return l.items, nil
}

// With nothing in the cache, the namespace's LimitRanges are listed from
// the server, once for a while: a LimitRange created a moment ago applies.
func TestLiveLookupDefaultsAPod(t *testing.T) {
	live := &liveLister{items: []corev1.LimitRange{{
		ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "defaults"},
		Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{{
			Type: corev1.LimitTypeContainer, Default: list("cpu", "500m"), DefaultRequest: list("cpu", "100m"),
		}}},
	}}}
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	p := New(Config{Lister: corelisters.NewLimitRangeLister(indexer), Live: live})
	for range 2 {
		pod := &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app"}, {Name: "set", Resources: corev1.ResourceRequirements{Limits: list("cpu", "200m")}}}}}
		a := &admission.Attributes{Namespace: "team", Resource: corev1.SchemeGroupVersion.WithResource("pods"), Kind: corev1.SchemeGroupVersion.WithKind("Pod"), Operation: admission.Create, Object: pod}
		if err := p.Admit(context.Background(), a); err != nil {
			t.Fatal(err)
		}
		if want := "LimitRanger plugin set: cpu request for container app; cpu limit for container app; cpu request for container set"; pod.Annotations[Annotation] != want {
			t.Errorf("annotation %q, want %q", pod.Annotations[Annotation], want)
		}
		if q := pod.Spec.Containers[1].Resources.Limits[corev1.ResourceCPU]; q.String() != "200m" {
			t.Errorf("a stated limit became %s", q.String())
		}
	}
	if live.calls != 1 {
		t.Errorf("%d lists from the server, want 1", live.calls)
	}
}
