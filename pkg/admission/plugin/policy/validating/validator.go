package validating

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/google/cel-go/common/types"
	v1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	celadmission "github.com/kapi-dev/kapi/pkg/cel/admission"
)

// kube-apiserver's limits of what a policy reports.
const (
	// maxMessageLength is the longest message a messageExpression may
	// give; a longer one falls back to the message.
	maxMessageLength = 5 * 1024
	// maxAuditAnnotationValueLength truncates audit annotation values.
	maxAuditAnnotationValueLength = 10 * 1024
)

type action int

const (
	admit action = iota
	deny
)

// decision is the outcome of one validation (or of the whole policy, when
// it could not be evaluated).
type decision struct {
	action  action
	evalErr bool
	message string
	reason  metav1.StatusReason
	elapsed time.Duration
}

type annotationAction int

const (
	annotationPublish annotationAction = iota
	annotationExclude
	annotationError
)

type auditAnnotation struct {
	key, value string
	action     annotationAction
	err        string
	elapsed    time.Duration
}

type result struct {
	decisions   []decision
	annotations []auditAnnotation
}

// evaluation is what a policy's expressions are evaluated with for one
// binding and param.
type evaluation struct {
	policy *v1.ValidatingAdmissionPolicy
	c      *compiled
	// input is the write's; its Namespace is left out of the match
	// conditions, and its Authorizer out of messages and audit
	// annotations, as kube-apiserver leaves them out.
	input            celadmission.Input
	conditionMetrics ConditionMetrics
}

func errorAction(fp *v1.FailurePolicyType) action {
	if fp != nil && *fp == v1.Ignore {
		return admit
	}
	return deny
}

func failed(fp *v1.FailurePolicyType, err error) result {
	return result{decisions: []decision{{action: errorAction(fp), evalErr: true, message: err.Error()}}}
}

// validate evaluates the policy for one binding and param, as
// kube-apiserver's validator does.
func (e *evaluation) validate(ctx context.Context) result {
	fp := e.policy.Spec.FailurePolicy
	e.input.Variables = e.c.variables
	if len(e.c.matchConditions) > 0 {
		in := e.input
		in.Namespace = nil
		act, err := celadmission.NewActivation(ctx, in)
		if err != nil {
			return failed(fp, err)
		}
		start := time.Now()
		ok, err, evalErrors := celadmission.MatchConditions(ctx, e.c.matchConditions, act)
		if e.conditionMetrics != nil {
			e.conditionMetrics.ObserveConditions(e.policy.Name, "policy", "validate", string(e.input.Request.Operation), time.Since(start), evalErrors)
		}
		if err != nil {
			return failed(fp, err)
		}
		if !ok {
			return result{}
		}
	}
	act, err := celadmission.NewActivation(ctx, e.input)
	if err != nil {
		return failed(fp, err)
	}
	budget := int64(celadmission.Budget)
	evals := make([]celadmission.Result, len(e.c.validations))
	elapsed := make([]time.Duration, len(e.c.validations))
	for i, v := range e.c.validations {
		start := time.Now()
		r, fatal := act.Eval(ctx, v, &budget)
		if fatal != nil {
			return failed(fp, fatal)
		}
		evals[i], elapsed[i] = r, time.Since(start)
	}
	// Messages see no authorizer, and spend what the validations left.
	noAuthz := e.input
	noAuthz.Authorizer = nil
	messages := make([]celadmission.Result, len(e.c.messages))
	var messageErr error
	if msgAct, err := celadmission.NewActivation(ctx, noAuthz); err != nil {
		messageErr = err
	} else {
		for i, m := range e.c.messages {
			if m == nil {
				continue
			}
			r, fatal := msgAct.Eval(ctx, m, &budget)
			if fatal != nil {
				messageErr = fatal
				break
			}
			messages[i] = r
		}
	}
	decisions := make([]decision, len(evals))
	for i, r := range evals {
		d := &decisions[i]
		d.elapsed = elapsed[i]
		v := e.policy.Spec.Validations[i]
		switch {
		case r.Err != nil:
			d.action, d.evalErr, d.message = errorAction(fp), true, r.Err.Error()
		case messageErr != nil:
			d.action, d.evalErr, d.message = errorAction(fp), true, fmt.Sprintf("failed messageExpression: %s", messageErr)
		case r.Value != types.True:
			d.action = deny
			d.reason = metav1.StatusReasonInvalid
			if v.Reason != nil {
				d.reason = *v.Reason
			}
			d.message = denialMessage(v, messages[i])
		}
	}
	// Audit annotations have a budget of their own.
	annotations, err := e.auditAnnotations(ctx, noAuthz)
	if err != nil {
		return failed(fp, err)
	}
	return result{decisions: decisions, annotations: annotations}
}

// denialMessage is the messageExpression's value if it gave a usable one
// (a string, not blank, on one line, not too long), else the message,
// else "failed expression: " and the expression.
func denialMessage(v v1.Validation, r celadmission.Result) string {
	var message string
	if r.Err == nil && r.Value != nil {
		if s, ok := r.Value.Value().(string); ok {
			message = strings.TrimSpace(s)
			if len(message) > maxMessageLength || strings.Contains(message, "\n") {
				message = ""
			}
		}
	}
	if message == "" {
		message = strings.TrimSpace(v.Message)
	}
	if message == "" {
		message = fmt.Sprintf("failed expression: %v", strings.TrimSpace(v.Expression))
	}
	return message
}

func (e *evaluation) auditAnnotations(ctx context.Context, in celadmission.Input) ([]auditAnnotation, error) {
	if len(e.c.auditAnnotations) == 0 {
		return nil, nil
	}
	act, err := celadmission.NewActivation(ctx, in)
	if err != nil {
		return nil, err
	}
	ignore := errorAction(e.policy.Spec.FailurePolicy) == admit
	budget := int64(celadmission.Budget)
	out := make([]auditAnnotation, len(e.c.auditAnnotations))
	for i, expr := range e.c.auditAnnotations {
		start := time.Now()
		r, fatal := act.Eval(ctx, expr, &budget)
		if fatal != nil {
			return nil, fatal
		}
		a := &out[i]
		a.key, a.elapsed = e.policy.Spec.AuditAnnotations[i].Key, time.Since(start)
		switch {
		case r.Err != nil:
			a.action, a.err = annotationError, r.Err.Error()
			if ignore {
				a.action = annotationExclude
			}
		case r.Value.Type() == types.StringType:
			if a.value = strings.TrimSpace(r.Value.Value().(string)); a.value == "" {
				a.action = annotationExclude
			}
		case r.Value.Type() == types.NullType:
			a.action = annotationExclude
		default:
			a.action = annotationError
			a.err = fmt.Sprintf("valueExpression '%v' resulted in unsupported return type: %v. Return type must be either string or null.",
				e.policy.Spec.AuditAnnotations[i].ValueExpression, r.Value.Type())
		}
	}
	return out, nil
}
