package taintnodesbycondition

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/kapi-dev/kapi/pkg/admission"
)

// A new node gets the not-ready NoSchedule taint once, whatever the value
// of one it has; a not-ready taint of another effect does not count.
func TestNotReadyTaint(t *testing.T) {
	for _, tc := range []struct {
		name  string
		given []corev1.Taint
		want  int
	}{
		{"no taints", nil, 1},
		{"the taint with a value", []corev1.Taint{{Key: corev1.TaintNodeNotReady, Value: "x", Effect: corev1.TaintEffectNoSchedule}}, 1},
		{"the key with NoExecute", []corev1.Taint{{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoExecute}}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			node := &corev1.Node{Spec: corev1.NodeSpec{Taints: tc.given}}
			a := &admission.Attributes{Resource: corev1.SchemeGroupVersion.WithResource("nodes"), Operation: admission.Create, Object: node}
			if err := New().Admit(context.Background(), a); err != nil {
				t.Fatal(err)
			}
			if len(node.Spec.Taints) != tc.want {
				t.Errorf("taints = %+v", node.Spec.Taints)
			}
			last := node.Spec.Taints[len(node.Spec.Taints)-1]
			if tc.want > len(tc.given) && (last.Key != corev1.TaintNodeNotReady || last.Effect != corev1.TaintEffectNoSchedule || last.Value != "") {
				t.Errorf("taint added = %+v", last)
			}
		})
	}
}
