package extendedresourcetoleration

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestIsExtendedResourceName(t *testing.T) {
	for name, want := range map[corev1.ResourceName]bool{
		"example.com/gpu":         true,
		"dedicated/fpga":          true,
		"cpu":                     false,
		"kubernetes.io/something": false,
		"requests.example.com/x":  false,
		"example.com/bad name":    false,
	} {
		if got := IsExtendedResourceName(name); got != want {
			t.Errorf("IsExtendedResourceName(%q) = %v, want %v", name, got, want)
		}
	}
}
