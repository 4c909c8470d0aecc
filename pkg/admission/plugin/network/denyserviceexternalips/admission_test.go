package denyserviceexternalips

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/pkg/admission"
)

// A Service may keep or drop the external IPs it has, never gain one.
func TestExternalIPs(t *testing.T) {
	svc := func(ips ...string) *corev1.Service {
		return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "s"}, Spec: corev1.ServiceSpec{ExternalIPs: ips}}
	}
	const denied = `services "s" is forbidden: Use of external IPs is denied by admission control`
	tests := []struct {
		name     string
		old, new *corev1.Service
		want     string
	}{
		{name: "create without", new: svc()},
		{name: "create with", new: svc("1.2.3.4"), want: denied},
		{name: "keep", old: svc("1.2.3.4", "5.6.7.8"), new: svc("5.6.7.8")},
		{name: "gain", old: svc("1.2.3.4"), new: svc("1.2.3.4", "5.6.7.8"), want: denied},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := &admission.Attributes{Name: "s", Resource: corev1.SchemeGroupVersion.WithResource("services"), Operation: admission.Create, Object: tc.new}
			if tc.old != nil {
				a.OldObject, a.Operation = tc.old, admission.Update
			}
			err := New().Validate(context.Background(), a)
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || err.Error() != tc.want) {
				t.Errorf("got %v, want %q", err, tc.want)
			}
		})
	}
}
