package validatingadmissionpolicystatus

import (
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/cel/admission"
	"github.com/kapi-dev/kapi/pkg/cel/schemas"
)

// maxTypesToCheck bounds how many kinds a policy is checked against.
const maxTypesToCheck = 10

// TypeChecker checks the expressions of a policy against the schemas of
// the kinds its matchConstraints name, as kube-controller-manager's
// type checker does.
type TypeChecker struct {
	Schemas    SchemaResolver
	RESTMapper meta.RESTMapper
	Log        *slog.Logger
}

// Check returns the warnings of the policy's validations (expression
// and messageExpression), each naming the kinds an expression fails
// for; nil when there are none. The policy is not modified.
//
// A kind is checked only if its group, version and resource are named
// without wildcards (a rule with a wildcard group or version names
// none, a wildcard or subresource resource is skipped), the kinds in
// order of group, version and kind, at most ten. A kind whose schema is
// not found is not checked; a paramKind whose schema is not found leaves
// params dyn.
func (c *TypeChecker) Check(policy *admissionregistrationv1.ValidatingAdmissionPolicy) []admissionregistrationv1.ExpressionWarning {
	ctx := c.context(policy)
	var warnings []admissionregistrationv1.ExpressionWarning
	validations := field.NewPath("spec", "validations")
	for i, v := range policy.Spec.Validations {
		if w := c.checkExpression(ctx, v.Expression); w != "" {
			warnings = append(warnings, admissionregistrationv1.ExpressionWarning{FieldRef: validations.Index(i).Child("expression").String(), Warning: w})
		}
		if v.MessageExpression == "" {
			continue
		}
		if w := c.checkExpression(ctx, v.MessageExpression); w != "" {
			warnings = append(warnings, admissionregistrationv1.ExpressionWarning{FieldRef: validations.Index(i).Child("messageExpression").String(), Warning: w})
		}
	}
	return warnings
}

// checkContext is what a policy's expressions are checked against.
type checkContext struct {
	gvks      []schema.GroupVersionKind
	types     []*schemas.DeclType
	hasParams bool
	params    *schemas.DeclType
	variables []admissionregistrationv1.Variable
}

func (c *TypeChecker) context(policy *admissionregistrationv1.ValidatingAdmissionPolicy) *checkContext {
	ctx := &checkContext{variables: policy.Spec.Variables}
	for _, gvk := range c.kindsToCheck(policy) {
		t, err := c.declType(gvk)
		if err != nil {
			if !errors.Is(err, ErrSchemaNotFound) {
				c.log().Debug("resolving the schema of a kind", "gvk", gvk, "err", err)
			}
			continue
		}
		ctx.gvks = append(ctx.gvks, gvk)
		ctx.types = append(ctx.types, t)
	}
	if pk := policy.Spec.ParamKind; pk != nil {
		// A paramKind whose apiVersion does not parse leaves params
		// undeclared, as kube's empty kind does.
		if gv, err := schema.ParseGroupVersion(pk.APIVersion); err == nil {
			gvk := gv.WithKind(pk.Kind)
			ctx.hasParams = !gvk.Empty()
			if ctx.hasParams {
				t, err := c.declType(gvk)
				if err != nil && !errors.Is(err, ErrSchemaNotFound) {
					c.log().Debug("resolving the schema of a paramKind", "gvk", gvk, "err", err)
				}
				ctx.params = t
			}
		}
	}
	return ctx
}

func (c *TypeChecker) log() *slog.Logger {
	if c.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return c.Log
}

// declType is the type of the objects of gvk, named after the kind and a
// number, as kube names it (the name shows in some messages).
func (c *TypeChecker) declType(gvk schema.GroupVersionKind) (*schemas.DeclType, error) {
	s, err := c.Schemas.ResolveSchema(gvk)
	if err != nil {
		return nil, err
	}
	t := schemas.SchemaDeclType(s, true)
	if t == nil {
		return nil, nil
	}
	return t.Named(fmt.Sprintf("%s%d", gvk.Kind, time.Now().Nanosecond())), nil
}

// checkExpression returns the warning of an expression: for each kind it
// fails for, the kind and the checker's issues, or "".
func (c *TypeChecker) checkExpression(ctx *checkContext, expression string) string {
	var messages []string
	for i, gvk := range ctx.gvks {
		checker, err := admission.NewTypeChecker(ctx.types[i], ctx.params, ctx.hasParams)
		if err != nil {
			c.log().Error("building the type checking environment", "err", err)
			continue
		}
		for _, v := range ctx.variables {
			checker.AddVariable(v.Name, v.Expression)
		}
		if issues := checker.Check(expression); issues != "" {
			messages = append(messages, fmt.Sprintf("%v: %s\n", gvk, issues))
		}
	}
	return strings.Join(messages, "\n")
}

// kindsToCheck are the kinds the policy's resource rules name, sorted.
func (c *TypeChecker) kindsToCheck(p *admissionregistrationv1.ValidatingAdmissionPolicy) []schema.GroupVersionKind {
	if p.Spec.MatchConstraints == nil {
		return nil
	}
	gvks := map[schema.GroupVersionKind]bool{}
	refreshed := false
	count := 0
	for _, rule := range p.Spec.MatchConstraints.ResourceRules {
		groups, versions, resources := named(rule.APIGroups, false), named(rule.APIVersions, false), named(rule.Resources, true)
		if len(groups) == 0 || len(versions) == 0 || len(resources) == 0 {
			continue
		}
		for _, group := range groups {
			for _, version := range versions {
				for _, resource := range resources {
					gvr := schema.GroupVersionResource{Group: group, Version: version, Resource: resource}
					kinds, err := c.RESTMapper.KindsFor(gvr)
					if err != nil {
						// The mapper learns new resources at most once a
						// policy.
						if refreshed {
							continue
						}
						if r, ok := c.RESTMapper.(meta.ResettableRESTMapper); ok {
							r.Reset()
						}
						refreshed = true
						if kinds, err = c.RESTMapper.KindsFor(gvr); err != nil {
							continue
						}
					}
					for _, k := range kinds {
						if k.Empty() {
							continue
						}
						gvks[k] = true
						count++
						if count == maxTypesToCheck {
							return sortedKinds(gvks)
						}
					}
				}
			}
		}
	}
	return sortedKinds(gvks)
}

// named returns the values of a rule's list, sorted; nil if one is a
// wildcard (groups and versions), or without wildcards and subresources
// (resources).
func named(values []string, skip bool) []string {
	out := make([]string, 0, len(values))
	for _, v := range values {
		if skip && strings.ContainsAny(v, "*/") {
			continue
		}
		if !skip && strings.Contains(v, "*") {
			return nil
		}
		out = append(out, v)
	}
	sort.Strings(out)
	return out
}

func sortedKinds(set map[schema.GroupVersionKind]bool) []schema.GroupVersionKind {
	if len(set) == 0 {
		return nil
	}
	out := make([]schema.GroupVersionKind, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Group != out[j].Group {
			return out[i].Group < out[j].Group
		}
		if out[i].Version != out[j].Version {
			return out[i].Version < out[j].Version
		}
		return out[i].Kind < out[j].Kind
	})
	return out
}
