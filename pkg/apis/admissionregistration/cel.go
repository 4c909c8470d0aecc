package admissionregistration

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"

	celadmission "github.com/kapi-dev/kapi/pkg/cel/admission"
)

// The expressions of admission webhooks and policies are CEL, compiled
// as kube-apiserver compiles them when it validates a configuration, in
// the environment of package cel/admission. An expression fails
// validation if it does not compile, or if its type is not the one its
// field must have.

// exprKind is which field an expression is.
type exprKind = celadmission.Kind

const (
	exprMatchCondition     = celadmission.MatchCondition
	exprValidation         = celadmission.Validation
	exprMessage            = celadmission.Message
	exprAuditAnnotation    = celadmission.AuditAnnotation
	exprVariable           = celadmission.Variable
	exprApplyConfiguration = celadmission.ApplyConfiguration
	exprJSONPatch          = celadmission.JSONPatch
)

// policyCompiler compiles the expressions of one configuration or
// policy into field errors.
type policyCompiler struct {
	c *celadmission.Compiler
}

func newPolicyCompiler(composited, hasParams bool, stored map[exprKind]sets.Set[string]) *policyCompiler {
	return &policyCompiler{c: celadmission.NewCompiler(composited, hasParams, stored)}
}

// compileMatchCondition compiles a webhook's match condition, which
// sees no params and no variables.
func compileMatchCondition(expression string, stored bool, fldPath *field.Path) field.ErrorList {
	var s map[exprKind]sets.Set[string]
	if stored {
		s = map[exprKind]sets.Set[string]{exprMatchCondition: sets.New(expression)}
	}
	return newPolicyCompiler(false, false, s).compile(expression, exprMatchCondition, fldPath)
}

// compile compiles expression as an expression of kind at fldPath.
func (c *policyCompiler) compile(expression string, kind exprKind, fldPath *field.Path) field.ErrorList {
	return fieldErrors(c.c.Compile(expression, kind), expression, fldPath)
}

// compileAs compiles expression but reports the error with written, the
// value as the object has it (kube-apiserver compiles some expressions
// trimmed).
func (c *policyCompiler) compileAs(expression, written string, kind exprKind, fldPath *field.Path) field.ErrorList {
	return fieldErrors(c.c.Compile(expression, kind), written, fldPath)
}

// compileVariable compiles a variable and makes its type, dyn if it does
// not compile, known to the expressions compiled after it.
func (c *policyCompiler) compileVariable(name, expression string, fldPath *field.Path) field.ErrorList {
	return fieldErrors(c.c.CompileVariable(name, expression), expression, fldPath)
}

func fieldErrors(e *celadmission.Expression, written string, fldPath *field.Path) field.ErrorList {
	cerr, ok := e.Err.(*celadmission.CompileError)
	switch {
	case e.Err == nil:
		return nil
	case ok && cerr.Internal:
		return field.ErrorList{field.InternalError(fldPath, fmt.Errorf("unexpected error loading CEL environment: %v", cerr.Reason))}
	case ok:
		return field.ErrorList{field.Invalid(fldPath, written, cerr.Reason)}
	}
	return field.ErrorList{field.Invalid(fldPath, written, e.Err.Error())}
}
