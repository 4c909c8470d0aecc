package defaulttolerationseconds

import (
	"context"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/pkg/admission"
)

func admit(t *testing.T, p *Plugin, tolerations ...corev1.Toleration) []corev1.Toleration {
	t.Helper()
	pod := &corev1.Pod{Spec: corev1.PodSpec{Tolerations: tolerations}}
	a := &admission.Attributes{Resource: corev1.SchemeGroupVersion.WithResource("pods"), Operation: admission.Create, Object: pod}
	if err := p.Admit(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	return pod.Spec.Tolerations
}

// The flags' seconds are those of the tolerations added.
func TestTolerationsHaveTheFlagsSeconds(t *testing.T) {
	p := New(Config{NotReadySeconds: 60, UnreachableSeconds: 120})
	want := []corev1.Toleration{
		{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](60)},
		{Key: corev1.TaintNodeUnreachable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](120)},
	}
	if got := admit(t, p); !reflect.DeepEqual(got, want) {
		t.Errorf("tolerations = %+v, want %+v", got, want)
	}
}

// A toleration of the key (or of every key) with NoExecute or any effect
// counts; one of NoSchedule does not.
func TestExistingTolerationsCount(t *testing.T) {
	p := New(Config{NotReadySeconds: DefaultSeconds, UnreachableSeconds: DefaultSeconds})
	for _, tc := range []struct {
		name  string
		given corev1.Toleration
		added int
	}{
		{"not-ready NoExecute", corev1.Toleration{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute}, 1},
		{"unreachable any effect", corev1.Toleration{Key: corev1.TaintNodeUnreachable, Operator: corev1.TolerationOpExists}, 1},
		{"every key", corev1.Toleration{Operator: corev1.TolerationOpExists}, 0},
		{"not-ready NoSchedule", corev1.Toleration{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := len(admit(t, p, tc.given)) - 1; got != tc.added {
				t.Errorf("%d tolerations added, want %d", got, tc.added)
			}
		})
	}
}
