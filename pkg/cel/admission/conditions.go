package admission

import (
	"context"
	"fmt"

	"github.com/google/cel-go/common/types"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
)

// MatchConditions evaluates the compiled match conditions of a webhook
// or policy, as kube-apiserver does: a condition that is false means it
// does not apply, whatever errors others had; errors otherwise are the
// error returned (for its failure policy to decide), all of them. The
// conditions have a budget of their own. evalErrors counts the
// conditions that failed before the outcome was known, as
// kube-apiserver's metrics count them; a spent budget is not one.
func MatchConditions(ctx context.Context, conditions []*Expression, activation *Activation) (matched bool, err error, evalErrors int) {
	if len(conditions) == 0 {
		return true, nil, 0
	}
	budget := int64(MatchConditionsBudget)
	var errs []error
	for _, c := range conditions {
		r, fatal := activation.Eval(ctx, c, &budget)
		if fatal != nil {
			return false, fatal, len(errs)
		}
		if r.Err != nil {
			errs = append(errs, r.Err)
			continue
		}
		if r.Value == types.False {
			return false, nil, len(errs)
		}
		if r.Value != types.True {
			errs = append(errs, fmt.Errorf("expression '%v' resulted in error: no such overload", c.Text))
		}
	}
	if len(errs) > 0 {
		return false, utilerrors.NewAggregate(errs), len(errs)
	}
	return true, nil, 0
}
