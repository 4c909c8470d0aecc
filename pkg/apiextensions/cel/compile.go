package cel

import (
	"fmt"
	"math"
	"strings"
	"sync/atomic"
	"time"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/checker"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/kapi-dev/kapi/pkg/cel/library"
	"github.com/kapi-dev/kapi/pkg/cel/schemas"
)

// compiledRule is one x-kubernetes-validations rule, ready to evaluate.
type compiledRule struct {
	rule apiextensionsv1.ValidationRule
	// program is nil for an empty rule, and when err is set.
	program cel.Program
	err     *ruleError
	// usesOldSelf marks a transition rule.
	usesOldSelf bool
	// maxCost is the estimated worst-case cost of one evaluation;
	// maxCardinality how many times the rule can run in one object when its
	// schema is under an unbounded list or map.
	maxCost, maxCardinality uint64

	// message is the compiled messageExpression, if any.
	message        cel.Program
	messageErr     *ruleError
	messageMaxCost uint64

	// fieldPath is the rule's fieldPath, normalized ("" if unset).
	fieldPath string
}

// ruleError is a compilation problem of a rule, reported at CRD validation
// and, should a stored rule fail to compile, at evaluation.
type ruleError struct {
	detail string
}

func (e *ruleError) Error() string { return e.detail }

// ruleCompiler compiles the rules of one schema location.
type ruleCompiler struct {
	schema *node
	// t is the named type of self.
	t *schemas.DeclType
	// stored decides which environment an expression compiles in.
	stored func(expression string, isMessage bool) bool
	envs   [2]*ruleEnvs
	// estimator prices expressions, sizing self's members from t.
	estimator *library.CostEstimator
}

// typeNameCounter makes the generated name of self's type unique, so that
// rule authors cannot come to depend on it.
var typeNameCounter atomic.Uint64

func newRuleCompiler(schema *node, t *schemas.DeclType, stored func(string, bool) bool) *ruleCompiler {
	name := fmt.Sprintf("selfType%d", uint64(time.Now().Nanosecond())+typeNameCounter.Add(1))
	return &ruleCompiler{
		schema:    schema,
		t:         t.Named(name),
		stored:    stored,
		estimator: &library.CostEstimator{SizeEstimator: &sizeEstimator{root: t}},
	}
}

func (c *ruleCompiler) env(expression string, isMessage, optionalOldSelf bool) (*cel.Env, error) {
	kind := newExpressions
	if c.stored(expression, isMessage) {
		kind = storedExpressions
	}
	if c.envs[kind] == nil {
		envs, err := newRuleEnvs(kind, c.t, c.needsOptional())
		if err != nil {
			return nil, err
		}
		c.envs[kind] = envs
	}
	if optionalOldSelf {
		return c.envs[kind].optionalOldSelf, nil
	}
	return c.envs[kind].oldSelf, nil
}

func (c *ruleCompiler) needsOptional() bool {
	for _, r := range c.schema.rules {
		if r.OptionalOldSelf != nil && *r.OptionalOldSelf {
			return true
		}
	}
	return false
}

// compile compiles one rule; failures are recorded in the result.
func (c *ruleCompiler) compile(rule apiextensionsv1.ValidationRule) *compiledRule {
	cr := &compiledRule{rule: rule}
	if strings.TrimSpace(rule.Rule) == "" {
		return cr
	}
	optionalOldSelf := rule.OptionalOldSelf != nil && *rule.OptionalOldSelf
	env, err := c.env(rule.Rule, false, optionalOldSelf)
	if err != nil {
		cr.err = &ruleError{detail: "unexpected compilation error: " + err.Error()}
		return cr
	}
	ast, issues := env.Compile(rule.Rule)
	if issues != nil {
		cr.err = &ruleError{detail: "compilation failed: " + issues.String()}
		return cr
	}
	if ast.OutputType() != cel.BoolType {
		cr.err = &ruleError{detail: "cel expression must evaluate to a bool"}
		return cr
	}
	for _, ref := range ast.NativeRep().ReferenceMap() {
		if ref.Name == oldSelfVar {
			cr.usesOldSelf = true
			break
		}
	}
	program, err := env.Program(ast,
		cel.CostLimit(PerCallLimit),
		cel.CostTracking(c.estimator),
		cel.InterruptCheckFrequency(checkFrequency),
	)
	if err != nil {
		cr.err = &ruleError{detail: "program instantiation failed: " + err.Error()}
		return cr
	}
	estimate, err := env.EstimateCost(ast, c.estimator)
	if err != nil {
		cr.err = &ruleError{detail: "cost estimation failed: " + err.Error()}
		return cr
	}
	cr.program = program
	cr.maxCost = estimate.Max
	cr.maxCardinality = maxCardinality(c.t.MinSerializedSize)
	if rule.MessageExpression != "" {
		c.compileMessage(cr, optionalOldSelf)
		if cr.messageErr != nil {
			// kube-apiserver does not look at fieldPath once the message
			// expression failed.
			return cr
		}
	}
	if rule.FieldPath != "" {
		if p, err := validFieldPath(rule.FieldPath, c.schema); err == nil {
			cr.fieldPath = p.String()
		}
	}
	return cr
}

func (c *ruleCompiler) compileMessage(cr *compiledRule, optionalOldSelf bool) {
	expr := cr.rule.MessageExpression
	env, err := c.env(expr, true, optionalOldSelf)
	if err != nil {
		cr.messageErr = &ruleError{detail: "unexpected messageExpression compilation error: " + err.Error()}
		return
	}
	ast, issues := env.Compile(expr)
	if issues != nil {
		cr.messageErr = &ruleError{detail: "messageExpression compilation failed: " + issues.String()}
		return
	}
	if ast.OutputType() != cel.StringType {
		cr.messageErr = &ruleError{detail: "messageExpression must evaluate to a string"}
		return
	}
	program, err := env.Program(ast,
		cel.CostLimit(PerCallLimit),
		cel.CostTracking(c.estimator),
		cel.InterruptCheckFrequency(checkFrequency),
	)
	if err != nil {
		cr.messageErr = &ruleError{detail: "messageExpression instantiation failed: " + err.Error()}
		return
	}
	estimate, err := env.EstimateCost(ast, c.estimator)
	if err != nil {
		cr.messageErr = &ruleError{detail: "cost estimation failed for messageExpression: " + err.Error()}
		return
	}
	cr.message = program
	cr.messageMaxCost = estimate.Max
}

// maxCardinality is how many values of serialized size at least minSize
// (plus a comma) fit in the largest request: the worst case number of
// times a rule under unbounded lists or maps can run.
func maxCardinality(minSize int64) uint64 {
	return uint64(schemas.MaxRequestSizeBytes / (minSize + 1))
}

// sizeEstimator bounds the sizes of self and its members from the schema,
// for cost estimation.
type sizeEstimator struct {
	root *schemas.DeclType
}

func (e *sizeEstimator) EstimateSize(element checker.AstNode) *checker.SizeEstimate {
	path := element.Path()
	if len(path) == 0 {
		return nil
	}
	t := e.root
	// path[0] is self
	for _, name := range path[1:] {
		switch name {
		case "@items", "@values":
			t = t.Elem
		case "@keys":
			if !t.IsMap {
				return nil
			}
			t = schemas.MapKeyType
		default:
			t = t.Fields[name]
		}
		if t == nil {
			return nil
		}
	}
	return &checker.SizeEstimate{Min: 0, Max: uint64(t.MaxElements)}
}

func (e *sizeEstimator) EstimateCallCost(function, overloadID string, target *checker.AstNode, args []checker.AstNode) *checker.CallEstimate {
	return nil
}

// multiplyCapped returns a*b, or MaxUint64 on overflow.
func multiplyCapped(a, b uint64) uint64 {
	if a == 0 {
		return 0
	}
	if math.MaxUint64/a < b {
		return math.MaxUint64
	}
	return a * b
}
