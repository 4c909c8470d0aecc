package imagepolicy

import (
	"testing"
	"time"
)

// The configuration reads as kube-apiserver's: TTLs in seconds and the
// backoff in milliseconds, 0 for the default, -1 to disable, bounds
// exclusive below and inclusive above; the versioned and the legacy
// forms, JSON or YAML; nothing at all refused.
func TestParseConfigAsKubeAPIServer(t *testing.T) {
	cases := []struct {
		name, data string
		want       Config
		err        string
	}{
		{name: "defaults", data: `{"imagePolicy": {"kubeConfigFile": "k"}}`,
			want: Config{KubeConfigFile: "k", AllowTTL: 5 * time.Minute, DenyTTL: 30 * time.Second, RetryBackoff: 500 * time.Millisecond}},
		{name: "scaled", data: "imagePolicy:\n  kubeConfigFile: k\n  allowTTL: 60\n  denyTTL: 2\n  retryBackoff: 1\n  defaultAllow: true\n",
			want: Config{KubeConfigFile: "k", AllowTTL: time.Minute, DenyTTL: 2 * time.Second, RetryBackoff: time.Millisecond, DefaultAllow: true}},
		{name: "disabled", data: "imagePolicy: {allowTTL: -1, denyTTL: -1, retryBackoff: -1}",
			want: Config{}},
		{name: "versioned", data: "apiVersion: imagepolicy.admission.k8s.io/v1alpha1\nkind: ImagePolicyWebhookConfiguration\nimagePolicy: {kubeConfigFile: k, allowTTL: 1800}\n",
			want: Config{KubeConfigFile: "k", AllowTTL: 30 * time.Minute, DenyTTL: 30 * time.Second, RetryBackoff: 500 * time.Millisecond}},
		{name: "unknown fields ignored", data: `{"imagePolicy": {"kubeConfigFile": "k", "other": 1}, "extra": true}`,
			want: Config{KubeConfigFile: "k", AllowTTL: 5 * time.Minute, DenyTTL: 30 * time.Second, RetryBackoff: 500 * time.Millisecond}},
		{name: "allow TTL of one second", data: `{"imagePolicy": {"allowTTL": 1}}`, err: "valid value is between 1s and 30m0s, got 1s"},
		{name: "deny TTL too long", data: `{"imagePolicy": {"denyTTL": 1801}}`, err: "valid value is between 1s and 30m0s, got 30m1s"},
		{name: "backoff too long", data: `{"imagePolicy": {"retryBackoff": 300001}}`, err: "valid value is between 1ns and 5m0s, got 5m0.001s"},
		{name: "negative", data: `{"imagePolicy": {"allowTTL": -2}}`, err: "valid value is between 1s and 30m0s, got -2s"},
		{name: "none", data: "", err: "no config specified"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseConfig([]byte(c.data))
			if c.err != "" {
				if err == nil || err.Error() != c.err {
					t.Fatalf("error %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Fatalf("got %+v, want %+v", got, c.want)
			}
		})
	}
}
