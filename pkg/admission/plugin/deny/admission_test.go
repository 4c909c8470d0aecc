package deny

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/pkg/admission"
)

// Every write, in both phases, is refused with kube-apiserver's 403.
func TestDenyAll(t *testing.T) {
	a := &admission.Attributes{Resource: corev1.SchemeGroupVersion.WithResource("configmaps"), Operation: admission.Create,
		Object: &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: "gen-"}}}
	const want = `configmaps "gen-" is forbidden: admission control is denying all modifications`
	p := New()
	for _, op := range []admission.Operation{admission.Create, admission.Update, admission.Delete, admission.Connect} {
		if !p.Handles(op) {
			t.Errorf("does not handle %s", op)
		}
	}
	for _, err := range []error{p.Admit(context.Background(), a), p.Validate(context.Background(), a)} {
		if !apierrors.IsForbidden(err) || err.Error() != want {
			t.Errorf("got %v, want %q", err, want)
		}
	}
}
