package admit

import (
	"context"
	"testing"

	"github.com/kapi-dev/kapi/pkg/admission"
)

// Every write, in both phases, is admitted.
func TestAdmitAll(t *testing.T) {
	p := New()
	a := &admission.Attributes{Operation: admission.Delete}
	if !p.Handles(admission.Connect) || p.Admit(context.Background(), a) != nil || p.Validate(context.Background(), a) != nil {
		t.Error("AlwaysAdmit refused")
	}
}
