package cel

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/interpreter"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/apiextensions/schema/ratchet"
	"github.com/kapi-dev/kapi/pkg/endpoints/warning"
)

// Validate evaluates the rules on obj, the unstructured content of a custom
// resource (or the value at fldPath within one), and returns the errors
// kube-apiserver reports and the budget left.
//
// old is the object before an update, nil on create. On update, transition
// rules (those using oldSelf) run wherever old has a correlated value, and
// validation ratchets: a failing rule that does not use oldSelf, on a value
// that the update left unchanged, is reported as a warning on ctx's request
// instead of an error, so that objects stored before a rule was added stay
// writable.
//
// budget is the runtime cost the rules may spend, normally
// RuntimeCELCostBudget. Once it runs out evaluation stops with an error and
// the remaining budget returned is negative.
func (v *Validator) Validate(ctx context.Context, fldPath *field.Path, obj, old interface{}, budget int64) (field.ErrorList, int64) {
	if v == nil {
		return nil, budget
	}
	old = nilIfEmpty(old)
	var r cursor
	if old != nil {
		r = cursor{current: ratchet.New(obj, old, v.root.schema)}
	}
	return v.root.validate(ctx, fldPath, obj, old, r, budget)
}

func (rn *ruleNode) validate(ctx context.Context, fldPath *field.Path, obj, old interface{}, r cursor, budget int64) (field.ErrorList, int64) {
	if rn == nil || obj == nil {
		return nil, budget
	}
	old = nilIfEmpty(old)
	errs, budget := rn.validateRules(ctx, fldPath, obj, old, r, budget)
	if budget < 0 {
		return errs, budget
	}
	var childErrs field.ErrorList
	switch obj := obj.(type) {
	case []interface{}:
		oldList, _ := old.([]interface{})
		childErrs, budget = rn.validateItems(ctx, fldPath, obj, oldList, r, budget)
	case map[string]interface{}:
		oldMap, _ := old.(map[string]interface{})
		childErrs, budget = rn.validateMembers(ctx, fldPath, obj, oldMap, r, budget)
	}
	return append(errs, childErrs...), budget
}

func (rn *ruleNode) validateMembers(ctx context.Context, fldPath *field.Path, obj, old map[string]interface{}, r cursor, budget int64) (field.ErrorList, int64) {
	var errs field.ErrorList
	// Only correlatable maps give members an old value; every map type
	// kube-apiserver knows is.
	correlatable := mapIsCorrelatable(rn.schema.mapType)
	oldOf := func(k string) interface{} {
		if correlatable && old != nil {
			return old[k]
		}
		return nil
	}
	if rn.additionalProperties != nil {
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			var childErrs field.ErrorList
			childErrs, budget = rn.additionalProperties.validate(ctx, fldPath.Key(k), obj[k], oldOf(k), r.key(k), budget)
			errs = append(errs, childErrs...)
			if budget < 0 {
				return errs, budget
			}
		}
	}
	for _, name := range rn.propertyNames {
		v, ok := obj[name]
		if !ok {
			continue
		}
		var childErrs field.ErrorList
		childErrs, budget = rn.properties[name].validate(ctx, fldPath.Child(name), v, oldOf(name), r.key(name), budget)
		errs = append(errs, childErrs...)
		if budget < 0 {
			return errs, budget
		}
	}
	return errs, budget
}

func (rn *ruleNode) validateItems(ctx context.Context, fldPath *field.Path, obj, old []interface{}, r cursor, budget int64) (field.ErrorList, int64) {
	if rn.items == nil {
		return nil, budget
	}
	var errs field.ErrorList
	// Only items of map lists correlate with old items, by key.
	oldItems := oldItemsOf(rn.schema, old)
	for i, item := range obj {
		var childErrs field.ErrorList
		childErrs, budget = rn.items.validate(ctx, fldPath.Index(i), item, oldItems.Get(item), r.index(i), budget)
		errs = append(errs, childErrs...)
		if budget < 0 {
			return errs, budget
		}
	}
	return errs, budget
}

// nilIfEmpty turns a nil map or slice held in an interface into nil, so
// that it counts as no old value.
func nilIfEmpty(v interface{}) interface{} {
	switch t := v.(type) {
	case map[string]interface{}:
		if t == nil {
			return nil
		}
	case []interface{}:
		if t == nil {
			return nil
		}
	}
	return v
}

// mapIsCorrelatable tells whether the members of a map of mapType
// correlate between the old and the new object: granular (the default)
// and atomic maps do.
func mapIsCorrelatable(mapType *string) bool {
	return mapType == nil || *mapType == "granular" || *mapType == "atomic"
}

// validateRules evaluates the rules of this location on obj.
func (rn *ruleNode) validateRules(ctx context.Context, fldPath *field.Path, obj, old interface{}, r cursor, budget int64) (field.ErrorList, int64) {
	var errs field.ErrorList
	schemaType := rn.schema.typ
	if rn.initErr != nil {
		return field.ErrorList{field.Invalid(fldPath, schemaType, fmt.Sprintf("rule compiler initialization error: %v", rn.initErr))}, budget
	}
	if len(rn.rules) == 0 {
		return nil, budget
	}
	if budget <= 0 {
		return field.ErrorList{field.Invalid(fldPath, schemaType, "validation failed due to running out of cost budget, no further validation rules will be run")}, -1
	}
	act := rn.newActivation(obj, old)
	for _, cr := range rn.rules {
		rule := cr.rule
		if cr.err != nil {
			errs = append(errs, field.Invalid(fldPath, schemaType, fmt.Sprintf("rule compile error: %v", cr.err)))
			continue
		}
		if cr.program == nil {
			continue // an empty rule
		}
		optionalOldSelf := rule.OptionalOldSelf != nil && *rule.OptionalOldSelf
		if cr.usesOldSelf && old == nil && !optionalOldSelf {
			// A transition rule needs a value to transition from.
			continue
		}
		var activation interpreter.Activation = act
		if optionalOldSelf {
			activation = act.optional()
		}
		result, details, err := cr.program.ContextEval(ctx, activation)
		if details == nil {
			errs = append(errs, field.InternalError(fldPath, fmt.Errorf("runtime cost could not be calculated for validation rule: %v, no further validation rules will be run", ruleErrorString(rule))))
			return errs, -1
		}
		cost := details.ActualCost()
		if cost == nil {
			errs = append(errs, field.Invalid(fldPath, schemaType, fmt.Sprintf("runtime cost could not be calculated for validation rule: %v, no further validation rules will be run", ruleErrorString(rule))))
			return errs, -1
		}
		if *cost > math.MaxInt64 || int64(*cost) > budget {
			errs = append(errs, field.Invalid(fldPath, schemaType, "validation failed due to running out of cost budget, no further validation rules will be run"))
			return errs, -1
		}
		budget -= int64(*cost)
		if err != nil {
			switch {
			case strings.HasPrefix(err.Error(), "no such overload"):
				// Only values typed dyn (int-or-string) get past the type
				// checker to fail like this.
				errs = append(errs, field.Invalid(fldPath, schemaType, fmt.Sprintf("'%v': call arguments did not match a supported operator, function or macro signature for rule: %v", err, ruleErrorString(rule))))
			case strings.HasPrefix(err.Error(), "operation cancelled: actual cost limit exceeded"):
				errs = append(errs, field.Invalid(fldPath, schemaType, fmt.Sprintf("'%v': no further validation rules will be run due to call cost exceeds limit for rule: %v", err, ruleErrorString(rule))))
				return errs, -1
			default:
				// no such key, index out of bounds, overflow, division by zero...
				errs = append(errs, field.Invalid(fldPath, schemaType, fmt.Sprintf("%v evaluating rule: %v", err, ruleErrorString(rule))))
			}
			continue
		}
		if result == types.True {
			continue
		}

		failedPath := fldPath
		if cr.fieldPath != "" {
			failedPath = failedPath.Child(cr.fieldPath)
		}
		report := func(e *field.Error) {
			// Ratcheting: an unchanged value keeps passing validation.
			if !cr.usesOldSelf && r.unchanged() {
				warning.AddWarning(ctx, e.Error())
				return
			}
			errs = append(errs, e)
		}
		detail := ""
		if cr.message != nil {
			msg, remaining, msgErr := evalMessageExpression(ctx, cr.message, rule.MessageExpression, activation, budget)
			switch {
			case msgErr == nil:
				detail, budget = msg, remaining
			case msgErr.kind == messageInternal:
				report(field.InternalError(failedPath, msgErr))
				return errs, -1
			case msgErr.kind == messageOutOfBudget:
				report(field.Invalid(failedPath, schemaType, msgErr.Error()))
				return errs, -1
			default:
				// A message that cannot be produced falls back to the
				// static message.
				budget = remaining
			}
		}
		if detail == "" {
			detail = ruleMessageOrDefault(rule)
		}
		var value interface{} = obj
		if schemaType == "object" || schemaType == "array" {
			value = field.OmitValueType{}
		}
		report(fieldErrorForReason(failedPath, value, detail, rule.Reason))
	}
	return errs, budget
}

func fieldErrorForReason(fldPath *field.Path, value interface{}, detail string, reason *apiextensionsv1.FieldValueErrorReason) *field.Error {
	if reason == nil {
		return field.Invalid(fldPath, value, detail)
	}
	switch *reason {
	case apiextensionsv1.FieldValueForbidden:
		return field.Forbidden(fldPath, detail)
	case apiextensionsv1.FieldValueRequired:
		return field.Required(fldPath, detail)
	case apiextensionsv1.FieldValueDuplicate:
		return field.Duplicate(fldPath, value)
	}
	return field.Invalid(fldPath, value, detail)
}

type messageErrorKind int

const (
	messageFailed messageErrorKind = iota
	messageInternal
	messageOutOfBudget
)

type messageError struct {
	kind   messageErrorKind
	detail string
}

func (e *messageError) Error() string { return e.detail }

// evalMessageExpression produces the message of a failed rule, returning
// the budget left. An error of kind messageFailed means the static message
// is used instead.
func evalMessageExpression(ctx context.Context, program cel.Program, expr string, activation interpreter.Activation, budget int64) (string, int64, *messageError) {
	result, details, err := program.ContextEval(ctx, activation)
	if details == nil || details.ActualCost() == nil {
		return "", -1, &messageError{kind: messageInternal, detail: fmt.Sprintf("runtime cost could not be calculated for messageExpression: %q", expr)}
	}
	cost := *details.ActualCost()
	if cost > math.MaxInt64 || int64(cost) > budget {
		return "", -1, &messageError{kind: messageOutOfBudget, detail: "messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run"}
	}
	remaining := budget - int64(cost)
	if err != nil {
		if strings.HasPrefix(err.Error(), "operation cancelled: actual cost limit exceeded") {
			return "", -1, &messageError{kind: messageOutOfBudget, detail: fmt.Sprintf("no further validation rules will be run due to call cost exceeds limit for messageExpression: %q", expr)}
		}
		return "", remaining, &messageError{detail: "messageExpression evaluation failed due to: " + err.Error()}
	}
	msg, ok := result.Value().(string)
	if !ok {
		return "", remaining, &messageError{detail: "messageExpression failed to convert to string"}
	}
	msg = strings.TrimSpace(msg)
	switch {
	case len(msg) > maxEvaluatedMessageExpressionSizeBytes:
		return "", remaining, &messageError{detail: fmt.Sprintf("messageExpression beyond allowable length of %d", maxEvaluatedMessageExpressionSizeBytes)}
	case strings.Contains(msg, "\n"):
		return "", remaining, &messageError{detail: "messageExpression should not contain line breaks"}
	case msg == "":
		return "", remaining, &messageError{detail: "messageExpression should evaluate to a non-empty string"}
	}
	return msg, remaining, nil
}

func ruleMessageOrDefault(rule apiextensionsv1.ValidationRule) string {
	if rule.Message == "" {
		return "failed rule: " + ruleErrorString(rule)
	}
	return strings.TrimSpace(rule.Message)
}

// ruleErrorString names a rule in errors: by its message if it has one.
func ruleErrorString(rule apiextensionsv1.ValidationRule) string {
	if rule.Message != "" {
		return strings.TrimSpace(rule.Message)
	}
	return strings.TrimSpace(rule.Rule)
}

// activation binds self and oldSelf for the rules of one location.
type activation struct {
	self, oldSelf ref.Val
	hasOldSelf    bool
}

func (rn *ruleNode) newActivation(obj, old interface{}) *activation {
	schema := rn.schema
	if rn.isResourceRoot {
		schema = schema.resourceRoot()
	}
	a := &activation{self: newVal(obj, schema)}
	if rn.usesOldSelf && old != nil {
		a.oldSelf, a.hasOldSelf = newVal(old, schema), true
	}
	return a
}

// optional binds oldSelf as an optional value, for rules with
// optionalOldSelf: none on create.
func (a *activation) optional() *activation {
	o := &activation{self: a.self, hasOldSelf: true, oldSelf: types.OptionalNone}
	if a.hasOldSelf {
		o.oldSelf = types.OptionalOf(a.oldSelf)
	}
	return o
}

func (a *activation) ResolveName(name string) (any, bool) {
	switch name {
	case selfVar:
		return a.self, true
	case oldSelfVar:
		return a.oldSelf, a.hasOldSelf
	}
	return nil, false
}

func (a *activation) Parent() interpreter.Activation { return nil }
