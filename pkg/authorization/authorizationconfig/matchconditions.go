package authorizationconfig

import (
	"context"
	"fmt"
	"reflect"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/ext"
	authorizationv1 "k8s.io/api/authorization/v1"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
)

// The CEL environment of match conditions: `request` is the
// SubjectAccessReviewSpec (v1) about to be sent, with its JSON field
// names, typed, so that a misspelt field is an error when the file is
// loaded rather than when a request comes.
//
// Built once: an environment is expensive and immutable.
var celEnv, celEnvErr = cel.NewEnv(
	ext.NativeTypes(ext.ParseStructTag("json"), reflect.TypeOf(authorizationv1.SubjectAccessReviewSpec{})),
	cel.Variable("request", cel.ObjectType("v1.SubjectAccessReviewSpec")),
	ext.Strings(),
	ext.Lists(),
	ext.Sets(),
)

// costLimit bounds the work of one condition, as kube-apiserver bounds
// it per expression; a condition that exceeds it fails to evaluate.
const costLimit = 1_000_000

// Matcher evaluates a webhook's compiled match conditions. It implements
// webhook.Matcher.
type Matcher struct {
	programs    []cel.Program
	expressions []string
}

// compile compiles one expression; the message of the error is the one
// kube-apiserver puts in the field error.
func compile(expression string) (cel.Program, string) {
	if celEnvErr != nil {
		return nil, "compilation failed: " + celEnvErr.Error()
	}
	ast, iss := celEnv.Compile(expression)
	if iss.Err() != nil {
		return nil, "compilation failed: " + iss.Err().Error()
	}
	if ast.OutputType() != cel.BoolType {
		return nil, fmt.Sprintf("must evaluate to bool but got %s", ast.OutputType())
	}
	prg, err := celEnv.Program(ast, cel.CostLimit(costLimit), cel.InterruptCheckFrequency(100))
	if err != nil {
		return nil, "program instantiation failed: " + err.Error()
	}
	return prg, ""
}

// Match evaluates every condition over review's spec. Any false
// condition means no match, whatever the others did; otherwise an error
// in any condition is the result, and only all true is a match, as
// kube-apiserver decides.
func (m *Matcher) Match(ctx context.Context, review *authorizationv1.SubjectAccessReview) (bool, error) {
	if m == nil || len(m.programs) == 0 {
		return true, nil
	}
	spec := review.Spec
	vars := map[string]any{"request": &spec}
	var errs []error
	for i, prg := range m.programs {
		out, _, err := prg.ContextEval(ctx, vars)
		if err != nil {
			errs = append(errs, fmt.Errorf("matchCondition %q: %w", m.expressions[i], err))
			continue
		}
		b, ok := out.Value().(bool)
		if !ok {
			errs = append(errs, fmt.Errorf("matchCondition %q: must evaluate to bool", m.expressions[i]))
			continue
		}
		if !b {
			return false, nil
		}
	}
	if len(errs) > 0 {
		return false, utilerrors.NewAggregate(errs)
	}
	return true, nil
}
