package policy

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Versions are "latest" or v1.<minor> without leading zeros; anything
// else is refused and read as latest.
func TestParseVersion(t *testing.T) {
	for in, want := range map[string]string{
		"latest": "latest", "v1.0": "v1.0", "v1.37": "v1.37", "v1.99": "v1.99",
		"v1.01": "", "v2.0": "", "1.25": "", "v1": "", "": "", "Latest": "", "v1.-1": "",
	} {
		v, err := ParseVersion(in)
		switch {
		case want == "" && (err == nil || !v.Latest()):
			t.Errorf("%q: got %v, %v; want an error and latest", in, v, err)
		case want != "" && (err != nil || v.String() != want):
			t.Errorf("%q: got %v, %v; want %s", in, v, err, want)
		}
	}
}

// A version newer than the newest the checks know, and latest, are
// evaluated as the newest; older ones as themselves.
func TestEvaluateClampsVersions(t *testing.T) {
	e := NewEvaluator()
	// net.ipv4.tcp_rmem became safe at v1.32.
	spec := &corev1.PodSpec{SecurityContext: &corev1.PodSecurityContext{Sysctls: []corev1.Sysctl{{Name: "net.ipv4.tcp_rmem", Value: "1"}}}}
	for _, tc := range []struct {
		v       Version
		allowed bool
	}{{V1(31), false}, {V1(32), true}, {V1(MaxVersion + 5), true}, {Latest, true}} {
		got := e.Evaluate(LevelVersion{Baseline, tc.v}, &metav1.ObjectMeta{}, spec)
		if got.Allowed() != tc.allowed {
			t.Errorf("baseline:%v: allowed %v (%s), want %v", tc.v, got.Allowed(), got.Detail(), tc.allowed)
		}
	}
	if got := e.Evaluate(LevelVersion{Privileged, Latest}, nil, &corev1.PodSpec{HostPID: true}); !got.Allowed() {
		t.Errorf("privileged refused a pod: %s", got.Detail())
	}
}
