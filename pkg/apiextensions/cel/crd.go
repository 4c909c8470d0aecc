package cel

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/cel/schemas"
)

// CompileOption adjusts Compile to an update of a CRD.
type CompileOption func(*compileOptions)

type compileOptions struct {
	storedRules, storedMessages sets.Set[string]
	suppressPerExpressionCost   bool
}

// WithStoredExpressions declares the schemas the CRD had before the update
// being validated. Rules and message expressions found in them are already
// stored and compile in the environment of stored expressions (every
// library this server knows); others compile in the environment of new
// expressions (the libraries of the previous minor version, so that a
// rollback keeps working).
func WithStoredExpressions(oldSchemas ...*apiextensionsv1.JSONSchemaProps) CompileOption {
	return func(o *compileOptions) {
		for _, s := range oldSchemas {
			collectExpressions(s, o.storedRules, o.storedMessages)
		}
	}
}

// WithoutPerExpressionCostLimit lifts the per-expression estimated cost
// limit, for a version whose schema an update leaves unchanged: a server
// upgrade that prices expressions higher must not make it unwritable. The
// limit on the total of the schema still applies.
func WithoutPerExpressionCostLimit() CompileOption {
	return func(o *compileOptions) { o.suppressPerExpressionCost = true }
}

func collectExpressions(s *apiextensionsv1.JSONSchemaProps, rules, messages sets.Set[string]) {
	if s == nil {
		return
	}
	for _, r := range s.XValidations {
		rules.Insert(r.Rule)
		if r.MessageExpression != "" {
			messages.Insert(r.MessageExpression)
		}
	}
	for _, p := range s.Properties {
		collectExpressions(&p, rules, messages)
	}
	if s.Items != nil {
		collectExpressions(s.Items.Schema, rules, messages)
		for i := range s.Items.JSONSchemas {
			collectExpressions(&s.Items.JSONSchemas[i], rules, messages)
		}
	}
	if s.AdditionalProperties != nil {
		collectExpressions(s.AdditionalProperties.Schema, rules, messages)
	}
	for _, group := range [][]apiextensionsv1.JSONSchemaProps{s.AllOf, s.AnyOf, s.OneOf} {
		for i := range group {
			collectExpressions(&group[i], rules, messages)
		}
	}
	collectExpressions(s.Not, rules, messages)
	for _, d := range s.Definitions {
		collectExpressions(&d, rules, messages)
	}
	if s.AdditionalItems != nil {
		collectExpressions(s.AdditionalItems.Schema, rules, messages)
	}
}

// Compile validates and compiles the x-kubernetes-validations rules of
// schema, the openAPIV3Schema of one CRD version at fldPath (e.g.
// spec.versions[0].schema.openAPIV3Schema), as kube-apiserver's CRD
// validation does. schema must be a valid structural schema: kube-apiserver
// only looks at rules once it is.
//
// The errors are kube-apiserver's, first those about the rules themselves
// (rule not specified, message, reason, fieldPath), then the compilation
// and cost errors, in schema order, then those of the schema's total cost.
// Rules of a location where (or below which) a rule itself is invalid are
// not compiled.
//
// The Validator returned evaluates the rules compiled; it is nil when the
// schema has no rules.
func Compile(schema *apiextensionsv1.JSONSchemaProps, fldPath *field.Path, opts ...CompileOption) (*Validator, field.ErrorList) {
	o := compileOptions{storedRules: sets.New[string](), storedMessages: sets.New[string]()}
	for _, opt := range opts {
		opt(&o)
	}
	root := newRootNode(schema)
	if root == nil {
		return nil, nil
	}
	c := &crdCompiler{options: o}
	rn := c.walk(&scope{n: root, inScope: len(root.rules) > 0, cardinality: ptrTo(uint64(1))}, fldPath)

	errs := append(c.ruleErrs, c.celErrs...)
	if c.total.total > StaticEstimatedCRDCostLimit {
		for _, expensive := range c.total.mostExpensive {
			errs = append(errs, field.Forbidden(expensive.path, "contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema"))
		}
		errs = append(errs, field.Forbidden(fldPath, costErrorMessage("x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema", c.total.total, StaticEstimatedCRDCostLimit)))
	}
	if rn == nil {
		return nil, errs
	}
	return &Validator{root: rn}, errs
}

// crdCompiler walks a schema as kube-apiserver's CRD validation does.
type crdCompiler struct {
	options compileOptions
	// ruleErrs are the errors of the rules themselves, celErrs those of
	// compiling them.
	ruleErrs, celErrs field.ErrorList
	total             totalCost
}

func (c *crdCompiler) stored(expression string, isMessage bool) bool {
	if isMessage {
		return c.options.storedMessages.Has(expression)
	}
	return c.options.storedRules.Has(expression)
}

// scope is a schema location during the walk. A location is in the scope
// of rules when it or an ancestor has rules; the type of self at such a
// location comes from the nearest ancestor in scope when it can, as in
// kube-apiserver.
type scope struct {
	parent *scope
	n      *node
	// childType finds this location's type info in its parent's.
	childType func(parent *typeInfo) *typeInfo
	inScope   bool
	// cardinality is how many times values of this location can occur in
	// one object, nil when unbounded.
	cardinality *uint64
	// uncorrelatable is the first ancestor below which values have no old
	// value, so oldSelf cannot be used.
	uncorrelatable *field.Path

	resolved bool
	info     *typeInfo
	err      error
}

type typeInfo struct {
	n *node
	t *schemas.DeclType
}

func (s *scope) typeInfo() (*typeInfo, error) {
	if !s.inScope {
		return nil, nil
	}
	if s.resolved {
		return s.info, s.err
	}
	s.resolved = true
	if s.parent != nil {
		parent, err := s.parent.typeInfo()
		if err != nil {
			s.err = err
			return nil, err
		}
		if parent != nil && s.childType != nil {
			if s.info = s.childType(parent); s.info != nil {
				return s.info, nil
			}
		}
	}
	t := declTypeOf(s.n, s.parent == nil || s.n.embedded)
	if t == nil {
		s.err = errors.New("unable to convert structural schema to CEL declarations")
		return nil, s.err
	}
	s.info = &typeInfo{n: s.n, t: t}
	return s.info, nil
}

func (s *scope) child(n *node, childType func(*typeInfo) *typeInfo) *scope {
	child := &scope{
		parent:         s,
		n:              n,
		childType:      childType,
		inScope:        s.inScope || len(n.rules) > 0,
		uncorrelatable: s.uncorrelatable,
	}
	if s.cardinality != nil {
		if maxElements := s.n.maxElements(); maxElements != nil {
			child.cardinality = ptrTo(multiplyCapped(*s.cardinality, *maxElements))
		}
	}
	return child
}

// maxElements is how many child values one value of n can hold, nil when
// unbounded.
func (n *node) maxElements() *uint64 {
	switch n.typ {
	case "object":
		if n.hasAdditional {
			if n.maxProperties != nil {
				return ptrTo(uint64(max(*n.maxProperties, 0)))
			}
			return nil
		}
	case "array":
		if n.maxItems != nil {
			return ptrTo(uint64(max(*n.maxItems, 0)))
		}
		return nil
	}
	return ptrTo(uint64(1))
}

// walk validates the rules at s and below, and returns their rule node.
func (c *crdCompiler) walk(s *scope, fldPath *field.Path) *ruleNode {
	n := s.n
	if !n.hasRules() {
		return nil
	}
	ruleErrsBefore := len(c.ruleErrs)
	rn := &ruleNode{schema: n, isResourceRoot: s.parent == nil || n.embedded}

	if n.additionalProperties != nil {
		rn.additionalProperties = c.walk(s.child(n.additionalProperties, func(p *typeInfo) *typeInfo {
			if p.n.additionalProperties == nil || p.t.Elem == nil {
				return nil
			}
			return &typeInfo{n: p.n.additionalProperties, t: p.t.Elem}
		}), fldPath.Child("additionalProperties"))
	}
	for _, name := range n.propertyNames {
		prop := n.properties[name]
		child := s.child(prop, func(p *typeInfo) *typeInfo {
			propNode := p.n.properties[name]
			escaped, ok := schemas.Escape(name)
			if propNode == nil || !ok || p.t.Fields[escaped] == nil {
				return nil
			}
			return &typeInfo{n: propNode, t: p.t.Fields[escaped]}
		})
		if !mapIsCorrelatable(n.mapType) && child.uncorrelatable == nil {
			child.uncorrelatable = fldPath
		}
		rn.addProperty(name, c.walk(child, fldPath.Child("properties").Key(name)))
	}
	if n.items != nil {
		child := s.child(n.items, func(p *typeInfo) *typeInfo {
			if p.n.items == nil || p.t.Elem == nil {
				return nil
			}
			return &typeInfo{n: p.n.items, t: p.t.Elem}
		})
		// Only map list items correlate with old items (set items are not
		// correlated for rules).
		if n.listType != "map" && child.uncorrelatable == nil {
			child.uncorrelatable = fldPath
		}
		rn.items = c.walk(child, fldPath.Child("items"))
	}

	if len(n.rules) > 0 {
		rulesPath := fldPath.Child("x-kubernetes-validations")
		c.checkRules(n, rulesPath)
		// Rules are only compiled once they, and those below, are sound.
		if len(c.ruleErrs) == ruleErrsBefore {
			rn.setRules(c.compileRules(s, rulesPath))
		}
	}
	if rn.empty() {
		return nil
	}
	return rn
}

// supportedReasons are the reasons a rule may give, sorted.
var supportedReasons = []string{
	string(apiextensionsv1.FieldValueDuplicate),
	string(apiextensionsv1.FieldValueForbidden),
	string(apiextensionsv1.FieldValueInvalid),
	string(apiextensionsv1.FieldValueRequired),
}

var supportedReasonSet = sets.New(supportedReasons...)

// checkRules reports what is wrong with the rules of n themselves.
func (c *crdCompiler) checkRules(n *node, rulesPath *field.Path) {
	for i, rule := range n.rules {
		rulePath := rulesPath.Index(i)
		trimmedRule := strings.TrimSpace(rule.Rule)
		trimmedMessage := strings.TrimSpace(rule.Message)
		switch {
		case trimmedRule == "":
			c.ruleErrs = append(c.ruleErrs, field.Required(rulePath.Child("rule"), "rule is not specified"))
		case rule.Message != "" && trimmedMessage == "":
			c.ruleErrs = append(c.ruleErrs, field.Invalid(rulePath.Child("message"), rule.Message, "must be non-empty if specified"))
		case hasLineBreaks(trimmedMessage):
			c.ruleErrs = append(c.ruleErrs, field.Invalid(rulePath.Child("message"), rule.Message, "must not contain line breaks"))
		case hasLineBreaks(trimmedRule) && trimmedMessage == "":
			c.ruleErrs = append(c.ruleErrs, field.Required(rulePath.Child("message"), "message must be specified if rule contains line breaks"))
		}
		if rule.MessageExpression != "" && strings.TrimSpace(rule.MessageExpression) == "" {
			c.ruleErrs = append(c.ruleErrs, field.Required(rulePath.Child("messageExpression"), "messageExpression must be non-empty if specified"))
		}
		if rule.Reason != nil && !supportedReasonSet.Has(string(*rule.Reason)) {
			c.ruleErrs = append(c.ruleErrs, field.NotSupported(rulePath.Child("reason"), *rule.Reason, supportedReasons))
		}
		if rule.FieldPath != "" && strings.TrimSpace(rule.FieldPath) == "" {
			c.ruleErrs = append(c.ruleErrs, field.Invalid(rulePath.Child("fieldPath"), rule.FieldPath, "must be non-empty if specified"))
		}
		if hasLineBreaks(rule.FieldPath) {
			c.ruleErrs = append(c.ruleErrs, field.Invalid(rulePath.Child("fieldPath"), rule.FieldPath, "must not contain line breaks"))
		}
		if rule.FieldPath != "" {
			if _, err := validFieldPath(rule.FieldPath, n); err != nil {
				c.ruleErrs = append(c.ruleErrs, field.Invalid(rulePath.Child("fieldPath"), rule.FieldPath, "must be a valid path"))
			}
		}
	}
}

func hasLineBreaks(s string) bool {
	return strings.ContainsAny(s, "\n\r")
}

// compileRules compiles the rules of s and reports compilation and cost
// errors.
func (c *crdCompiler) compileRules(s *scope, rulesPath *field.Path) []*compiledRule {
	info, err := s.typeInfo()
	if err != nil {
		c.celErrs = append(c.celErrs, field.InternalError(rulesPath, fmt.Errorf("internal error: failed to construct type information for x-kubernetes-validations rules: %s", err)))
		return nil
	}
	if info == nil {
		c.celErrs = append(c.celErrs, field.InternalError(rulesPath, errors.New("internal error: failed to retrieve type information for x-kubernetes-validations")))
		return nil
	}
	rc := newRuleCompiler(info.n, info.t, c.stored)
	rules := make([]*compiledRule, len(s.n.rules))
	for i, rule := range s.n.rules {
		cr := rc.compile(rule)
		rules[i] = cr
		rulePath := rulesPath.Index(i)

		cost := expressionCost(cr, s.cardinality)
		if !c.options.suppressPerExpressionCost && cost > StaticEstimatedCostLimit {
			c.celErrs = append(c.celErrs, field.Forbidden(rulePath.Child("rule"), costErrorMessage("estimated rule cost", cost, StaticEstimatedCostLimit)))
		}
		c.total.observe(rulePath.Child("rule"), cost)
		if cr.err != nil {
			c.celErrs = append(c.celErrs, field.Invalid(rulePath.Child("rule"), reportedRule(rule), cr.err.detail))
		}
		if cr.messageErr != nil {
			c.celErrs = append(c.celErrs, field.Invalid(rulePath.Child("messageExpression"), reportedRule(rule), cr.messageErr.detail))
		} else if cr.message != nil {
			if !c.options.suppressPerExpressionCost && cr.messageMaxCost > StaticEstimatedCostLimit {
				c.celErrs = append(c.celErrs, field.Forbidden(rulePath.Child("messageExpression"), costErrorMessage("estimated messageExpression cost", cr.messageMaxCost, StaticEstimatedCostLimit)))
			}
			c.total.observe(rulePath.Child("messageExpression"), cr.messageMaxCost)
		}
		switch {
		case cr.usesOldSelf:
			if s.uncorrelatable != nil {
				c.celErrs = append(c.celErrs, field.Invalid(rulePath.Child("rule"), rule.Rule, fmt.Sprintf("oldSelf cannot be used on the uncorrelatable portion of the schema within %v", s.uncorrelatable)))
			}
		case rule.OptionalOldSelf != nil:
			c.celErrs = append(c.celErrs, field.Invalid(rulePath.Child("optionalOldSelf"), *rule.OptionalOldSelf, "may not be set if oldSelf is not used in rule"))
		}
	}
	return rules
}

// expressionCost is the estimated cost of all evaluations of a rule in one
// object: its cost times how many times it can run.
func expressionCost(cr *compiledRule, cardinality *uint64) uint64 {
	if cardinality != nil {
		return multiplyCapped(cr.maxCost, *cardinality)
	}
	return multiplyCapped(cr.maxCost, cr.maxCardinality)
}

func costErrorMessage(costName string, cost, limit uint64) string {
	factor := float64(cost) / float64(limit)
	var factorText string
	switch {
	case factor > 100.0:
		// The rule is likely O(n^2) or worse, and the figure meaningless.
		factorText = "more than 100x"
	case factor < 1.5:
		// Not "1.0x".
		factorText = fmt.Sprintf("%fx", factor)
	default:
		factorText = fmt.Sprintf("%.1fx", factor)
	}
	return fmt.Sprintf("%s exceeds budget by factor of %s (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)", costName, factorText)
}

// totalCost sums the estimated costs of a schema's expressions and keeps
// the most expensive, to blame them when the total is over the limit.
type totalCost struct {
	total         uint64
	mostExpensive []expressionCostAt
}

type expressionCostAt struct {
	path *field.Path
	cost uint64
}

func (t *totalCost) observe(path *field.Path, cost uint64) {
	if math.MaxUint64-t.total < cost {
		t.total = math.MaxUint64
	} else {
		t.total += cost
	}
	// Expressions under 1% of the limit are not worth blaming.
	if cost < StaticEstimatedCRDCostLimit/100 {
		return
	}
	t.mostExpensive = append(t.mostExpensive, expressionCostAt{path: path, cost: cost})
	sort.SliceStable(t.mostExpensive, func(i, j int) bool { return t.mostExpensive[i].cost > t.mostExpensive[j].cost })
	if len(t.mostExpensive) > 4 {
		t.mostExpensive = t.mostExpensive[:4]
	}
}

// reportedRuleValue is a rule as kube-apiserver's CRD validation reports
// it in errors: its internal ValidationRule type, rendered as JSON without
// field tags ({"Rule":"...","Message":"",...}). Do not add tags.
type reportedRuleValue struct {
	Rule              string
	Message           string
	MessageExpression string
	Reason            *apiextensionsv1.FieldValueErrorReason
	FieldPath         string
	OptionalOldSelf   *bool
}

func reportedRule(r apiextensionsv1.ValidationRule) reportedRuleValue {
	return reportedRuleValue{
		Rule:              r.Rule,
		Message:           r.Message,
		MessageExpression: r.MessageExpression,
		Reason:            r.Reason,
		FieldPath:         r.FieldPath,
		OptionalOldSelf:   r.OptionalOldSelf,
	}
}

func ptrTo[T any](v T) *T { return &v }
