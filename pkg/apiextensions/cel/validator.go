package cel

import (
	"errors"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/kapi-dev/kapi/pkg/cel/schemas"
)

// Validator evaluates the x-kubernetes-validations rules of one schema
// (the schema of one version of a CRD). It mirrors the schema tree, keeping
// only the locations that hold rules or lead to some. It is safe for
// concurrent use. A nil *Validator validates nothing.
type Validator struct {
	root *ruleNode
}

// ruleNode holds the compiled rules of one schema location and the nodes
// of the locations below it that hold rules.
type ruleNode struct {
	schema *node
	// isResourceRoot marks the root of the custom resource or of an
	// embedded resource, where self has apiVersion, kind and metadata.
	isResourceRoot bool
	rules          []*compiledRule
	// initErr is set when the rules could not be compiled at all.
	initErr error
	// usesOldSelf is set when some rule is a transition rule, so oldSelf
	// must be bound.
	usesOldSelf bool

	properties           map[string]*ruleNode
	propertyNames        []string
	items                *ruleNode
	additionalProperties *ruleNode
}

func (r *ruleNode) addProperty(name string, child *ruleNode) {
	if child == nil {
		return
	}
	if r.properties == nil {
		r.properties = map[string]*ruleNode{}
	}
	r.properties[name] = child
	r.propertyNames = append(r.propertyNames, name)
}

func (r *ruleNode) empty() bool {
	return len(r.rules) == 0 && r.initErr == nil && r.properties == nil && r.items == nil && r.additionalProperties == nil
}

func (r *ruleNode) setRules(rules []*compiledRule) {
	r.rules = rules
	for _, cr := range rules {
		if cr.usesOldSelf {
			r.usesOldSelf = true
		}
	}
}

// NewValidator compiles the rules of schema, the schema of a custom
// resource, for serving: every expression compiles in the environment of
// stored expressions, and rules that fail to compile (which CRD
// validation prevents) report their error whenever they are evaluated.
// It returns nil when the schema has no rules.
func NewValidator(schema *apiextensionsv1.JSONSchemaProps) *Validator {
	root := newRootNode(schema)
	if !root.hasRules() {
		return nil
	}
	always := func(string, bool) bool { return true }
	rn := servingNode(root, true, declTypeOf(root, true), always)
	if rn == nil {
		return nil
	}
	return &Validator{root: rn}
}

// servingNode builds the rule node of n, whose values have type t (nil if
// CEL cannot type them), the way kube-apiserver does when serving.
func servingNode(n *node, isResourceRoot bool, t *schemas.DeclType, stored func(string, bool) bool) *ruleNode {
	if !n.hasRules() {
		return nil
	}
	rn := &ruleNode{schema: n, isResourceRoot: isResourceRoot}
	if len(n.rules) > 0 {
		if t == nil {
			rn.initErr = errors.New("failed to convert to declType for CEL validation rules")
		} else {
			rc := newRuleCompiler(n, t, stored)
			rules := make([]*compiledRule, len(n.rules))
			for i, rule := range n.rules {
				rules[i] = rc.compile(rule)
			}
			rn.setRules(rules)
		}
	}
	var elem *schemas.DeclType
	if t != nil {
		elem = t.Elem
	}
	if n.items != nil {
		rn.items = servingNode(n.items, n.items.embedded, elem, stored)
	}
	for _, name := range n.propertyNames {
		prop := n.properties[name]
		var ft *schemas.DeclType
		if escaped, ok := schemas.Escape(name); ok {
			// A property CEL cannot type is left out of validation.
			if t == nil || t.Fields[escaped] == nil {
				continue
			}
			ft = t.Fields[escaped]
		} else if ft = declTypeOf(prop, prop.embedded); ft == nil {
			continue
		}
		rn.addProperty(name, servingNode(prop, prop.embedded, ft, stored))
	}
	if n.additionalProperties != nil {
		rn.additionalProperties = servingNode(n.additionalProperties, n.additionalProperties.embedded, elem, stored)
	}
	if rn.empty() {
		return nil
	}
	return rn
}
