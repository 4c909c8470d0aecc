package podresize

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// A pod's requests (its containers', the largest init container's) are
// held to the node's allocatable CPU and memory, in kube's words.
func TestFitsAllocatable(t *testing.T) {
	node := &corev1.Node{Status: corev1.NodeStatus{Allocatable: corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("2Gi"),
	}}}
	requests := func(cpu, mem string) corev1.ResourceRequirements {
		return corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem)}}
	}
	for _, tc := range []struct {
		name string
		spec corev1.PodSpec
		want string
	}{
		{"fits", corev1.PodSpec{Containers: []corev1.Container{{Resources: requests("1", "1Gi")}, {Resources: requests("1", "1Gi")}}}, ""},
		{"cpu over", corev1.PodSpec{Containers: []corev1.Container{{Resources: requests("1500m", "1Gi")}, {Resources: requests("1", "1Gi")}}}, "node didn't have enough allocatable resources: cpu, requested: 2500, allocatable: 2000"},
		{"init container over both", corev1.PodSpec{InitContainers: []corev1.Container{{Resources: requests("3", "4Gi")}}, Containers: []corev1.Container{{Resources: requests("1", "1Gi")}}}, "node didn't have enough allocatable resources: cpu, requested: 3000, allocatable: 2000; memory, requested: 4294967296, allocatable: 2147483648"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := fitsAllocatable(&corev1.Pod{Spec: tc.spec}, node)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tc.want || strings.Contains(got, "%") {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
