package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"k8s.io/apimachinery/pkg/runtime"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"

	kapicel "github.com/kapi-dev/kapi/pkg/cel"
)

// kube-apiserver's limits of match conditions.
const (
	// conditionsBudget bounds the runtime cost of all the conditions of a
	// webhook for one write.
	conditionsBudget = 7_000_000
)

// conditions are a webhook's compiled matchConditions. In their
// expressions, object and oldObject are the write's objects in the
// webhook's version (null when absent), request the AdmissionRequest
// without them. kube-apiserver's authorizer variable is not there yet.
type conditions struct {
	items []condition
}

type condition struct {
	name, expression string
	program          cel.Program
	compileErr       error
}

// conditionsEnv is kube-apiserver's base environment (of stored
// expressions: the configuration was validated when it was written) with
// the variables of match conditions.
var conditionsEnv = sync.OnceValues(func() (*cel.Env, error) {
	base, err := kapicel.BaseEnv(kapicel.StoredExpressions)
	if err != nil {
		return nil, err
	}
	return base.Extend(
		cel.Variable("object", cel.DynType),
		cel.Variable("oldObject", cel.DynType),
		cel.Variable("request", cel.MapType(cel.StringType, cel.DynType)),
	)
})

func (h *Hook) compiledConditions() *conditions {
	h.conditionsOnce.Do(func() {
		c := &conditions{}
		env, envErr := conditionsEnv()
		for _, mc := range h.MatchConditions {
			item := condition{name: mc.Name, expression: mc.Expression}
			if envErr != nil {
				item.compileErr = envErr
			} else if ast, iss := env.Compile(mc.Expression); iss.Err() != nil {
				item.compileErr = fmt.Errorf("compilation error: %v", iss.Err())
			} else if ast.OutputType() != cel.BoolType && ast.OutputType() != cel.DynType {
				item.compileErr = fmt.Errorf("compilation error: must evaluate to bool but got %v", ast.OutputType())
			} else if prg, err := env.Program(ast); err != nil {
				item.compileErr = fmt.Errorf("compilation error: %v", err)
			} else {
				item.program = prg
			}
			c.items = append(c.items, item)
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
func ConditionsMatch(ctx context.Context, inv *Invocation, v *Versioned) (bool, error) {
	h := inv.Hook
	if len(h.MatchConditions) == 0 {
		return true, nil
	}
	vars, err := conditionVars(inv, v)
	if err != nil {
		return conditionsFailed(h, err)
	}
	var errs []error
	budget := int64(conditionsBudget)
	for _, c := range h.compiledConditions().items {
		if c.compileErr != nil {
			errs = append(errs, c.compileErr)
			continue
		}
		if budget <= 0 {
			errs = append(errs, errors.New("validation failed due to running out of cost budget, no further validation rules will be run"))
			break
		}
		out, details, err := c.program.ContextEval(ctx, vars)
		if details != nil && details.ActualCost() != nil {
			budget -= int64(*details.ActualCost())
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("expression '%v' resulted in error: %v", c.expression, err))
			continue
		}
		if out == types.False {
			return false, nil
		}
		if out != types.True {
			errs = append(errs, fmt.Errorf("expression '%v' resulted in error: no such overload", c.expression))
		}
	}
	if len(errs) > 0 {
		return conditionsFailed(h, utilerrors.NewAggregate(errs))
	}
	return true, nil
}

func conditionsFailed(h *Hook, err error) (bool, error) {
	if h.FailsOpen() {
		return false, nil
	}
	return false, err
}

func conditionVars(inv *Invocation, v *Versioned) (map[string]any, error) {
	obj, err := toMap(v.Object)
	if err != nil {
		return nil, err
	}
	old, err := toMap(v.OldObject)
	if err != nil {
		return nil, err
	}
	r := newRequest("", inv, &Versioned{Attributes: v.Attributes})
	r.Object, r.OldObject = runtime.RawExtension{}, runtime.RawExtension{}
	b, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	var request map[string]any
	if err := json.Unmarshal(b, &request); err != nil {
		return nil, err
	}
	delete(request, "uid")
	delete(request, "object")
	delete(request, "oldObject")
	return map[string]any{"object": obj, "oldObject": old, "request": request}, nil
}

func toMap(obj runtime.Object) (any, error) {
	if obj == nil {
		return nil, nil
	}
	if u, ok := obj.(runtime.Unstructured); ok {
		return u.UnstructuredContent(), nil
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, err
	}
	return m, nil
}
