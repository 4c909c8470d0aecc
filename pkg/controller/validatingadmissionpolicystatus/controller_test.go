package validatingadmissionpolicystatus

import (
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
)

type panicking struct{}

func (panicking) Check(*admissionregistrationv1.ValidatingAdmissionPolicy) []admissionregistrationv1.ExpressionWarning {
	panic("unexpected schema")
}

// A checker that panics fails the policy's sync (which is retried), and
// leaves the server running.
func TestCheckerPanicIsAnError(t *testing.T) {
	c := &Controller{checker: panicking{}}
	if _, err := c.check(&admissionregistrationv1.ValidatingAdmissionPolicy{}); err == nil {
		t.Fatal("no error from a checker that panicked")
	}
}
