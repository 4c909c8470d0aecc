package webhook

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/pkg/admission/plugin/internal/celinput"
	celadmission "github.com/kapi-dev/kapi/pkg/cel/admission"
)

// conditions are a webhook's compiled matchConditions, in the admission
// CEL environment (package cel/admission) of stored expressions, as
// kube-apiserver compiles them: object and oldObject are the write's
// objects in the webhook's version (null when absent), request the
// AdmissionRequest without them, authorizer and
// authorizer.requestResource the authorizer for the write's user; no
// params, no variables.
type conditions struct {
	items []*celadmission.Expression
}

func (h *Hook) compiledConditions() *conditions {
	h.conditionsOnce.Do(func() {
		c := &conditions{}
		compiler := celadmission.NewStoredCompiler(false, false)
		for _, mc := range h.MatchConditions {
			c.items = append(c.items, compiler.Compile(mc.Expression, celadmission.MatchCondition))
		}
		h.conditions = c
	})
	return h.conditions
}

// ConditionsMatch evaluates h's matchConditions for the invocation, as
// kube-apiserver does: a condition that is false skips the webhook,
// whatever errors others had; errors otherwise fail the write under
// failurePolicy Fail and skip the webhook under Ignore. It returns
// whether to call the webhook, or the error to fail the write with.
// authz decides the authorizer's checks; nil leaves the authorizer out.
// evalErrors counts the conditions that failed.
func ConditionsMatch(ctx context.Context, inv *Invocation, v *Versioned, authz celadmission.Authorizer) (matched bool, err error, evalErrors int) {
	h := inv.Hook
	if len(h.MatchConditions) == 0 {
		return true, nil, 0
	}
	a := v.Attributes
	// kube-apiserver's request here has the write's own resource, and the
	// kind of the webhook's version.
	in := celadmission.Input{
		Object: v.Object, OldObject: v.OldObject,
		Request:         celinput.NewRequest(a, a.Resource, schema.GroupVersionKind(v.Kind)),
		Authorizer:      authz,
		User:            celinput.UserOf(a),
		RequestResource: celinput.RequestResource(a),
	}
	act, err := celadmission.NewActivation(ctx, in)
	if err != nil {
		ok, err := conditionsFailed(h, err)
		return ok, err, 0
	}
	ok, err, n := celadmission.MatchConditions(ctx, h.compiledConditions().items, act)
	if err != nil {
		ok, err := conditionsFailed(h, err)
		return ok, err, n
	}
	return ok, nil, n
}

func conditionsFailed(h *Hook, err error) (bool, error) {
	if h.FailsOpen() {
		return false, nil
	}
	return false, err
}
