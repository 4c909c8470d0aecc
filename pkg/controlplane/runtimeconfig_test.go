package controlplane

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestRuntimeConfig(t *testing.T) {
	apps := schema.GroupVersion{Group: "apps", Version: "v1"}
	core := schema.GroupVersion{Version: "v1"}
	for _, tc := range []struct {
		name      string
		flag      map[string]string
		apps, v1  bool
		wantError bool
	}{
		{name: "default serves everything", flag: nil, apps: true, v1: true},
		{name: "one group off", flag: map[string]string{"apps/v1": "false"}, apps: false, v1: true},
		{name: "all off but one", flag: map[string]string{"api/all": "false", "apps/v1": "true"}, apps: true, v1: false},
		{name: "empty value is true", flag: map[string]string{"api/all": "false", "api/v1": ""}, apps: false, v1: true},
		{name: "bad value", flag: map[string]string{"apps/v1": "maybe"}, wantError: true},
		{name: "bad key", flag: map[string]string{"apps": "true"}, wantError: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rc, err := ParseRuntimeConfig(tc.flag)
			if (err != nil) != tc.wantError {
				t.Fatalf("error = %v, want error %v", err, tc.wantError)
			}
			if err != nil {
				return
			}
			if rc.Enabled(apps) != tc.apps || rc.Enabled(core) != tc.v1 {
				t.Errorf("apps/v1 %v, v1 %v; want %v, %v", rc.Enabled(apps), rc.Enabled(core), tc.apps, tc.v1)
			}
		})
	}
}
