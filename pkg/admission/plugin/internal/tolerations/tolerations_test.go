package tolerations

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
)

func TestMergeDropsCoveredTolerations(t *testing.T) {
	exists := func(key string, effect corev1.TaintEffect) corev1.Toleration {
		return corev1.Toleration{Key: key, Operator: corev1.TolerationOpExists, Effect: effect}
	}
	equal := func(key, value string, effect corev1.TaintEffect) corev1.Toleration {
		return corev1.Toleration{Key: key, Operator: corev1.TolerationOpEqual, Value: value, Effect: effect}
	}
	for _, tc := range []struct {
		name          string
		first, second []corev1.Toleration
		want          []corev1.Toleration
	}{
		{"disjoint keys are all kept", []corev1.Toleration{exists("a", "")}, []corev1.Toleration{exists("b", "")}, []corev1.Toleration{exists("a", ""), exists("b", "")}},
		{"an equal one is kept once", []corev1.Toleration{exists("a", "NoSchedule")}, []corev1.Toleration{exists("a", "NoSchedule")}, []corev1.Toleration{exists("a", "NoSchedule")}},
		{"Exists covers Equal of the same key", []corev1.Toleration{equal("gpu", "yes", "NoSchedule")}, []corev1.Toleration{exists("gpu", "NoSchedule")}, []corev1.Toleration{exists("gpu", "NoSchedule")}},
		{"an empty effect covers every effect", []corev1.Toleration{exists("a", "NoSchedule")}, []corev1.Toleration{exists("a", "")}, []corev1.Toleration{exists("a", "")}},
		{"an empty key with Exists covers every key", []corev1.Toleration{equal("a", "1", "NoSchedule"), exists("b", "")}, []corev1.Toleration{{Operator: corev1.TolerationOpExists}}, []corev1.Toleration{{Operator: corev1.TolerationOpExists}}},
		{"Equal of other values are both kept", []corev1.Toleration{equal("a", "1", "")}, []corev1.Toleration{equal("a", "2", "")}, []corev1.Toleration{equal("a", "1", ""), equal("a", "2", "")}},
		{
			"a longer NoExecute toleration covers a shorter one",
			[]corev1.Toleration{{Key: "a", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](600)}},
			[]corev1.Toleration{{Key: "a", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](60)}},
			[]corev1.Toleration{
				{Key: "a", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](600)},
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Merge(tc.first, tc.second); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Merge = %+v, want %+v", got, tc.want)
			}
		})
	}
}
