package cel

import (
	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"

	kapicel "github.com/kapi-dev/kapi/pkg/cel"
	"github.com/kapi-dev/kapi/pkg/cel/schemas"
)

// Variable names of rules.
const (
	// selfVar is the value at the rule's location in the schema.
	selfVar = "self"
	// oldSelfVar is the value at the same location before an update; a rule
	// that uses it is a transition rule.
	oldSelfVar = "oldSelf"
)

// The two base environments of kube-apiserver (see kapicel.EnvKind).
const (
	newExpressions    = kapicel.NewExpressions
	storedExpressions = kapicel.StoredExpressions
)

// ruleEnvs are the environments of the rules of one schema location: self
// has the location's type, and oldSelf the same type, or optional of it
// for rules with optionalOldSelf.
type ruleEnvs struct {
	oldSelf, optionalOldSelf *cel.Env
}

// newRuleEnvs extends the base environment of kind with the variables of a
// location whose values have type t. t must be named (see schemas.DeclType.Named).
func newRuleEnvs(kind kapicel.EnvKind, t *schemas.DeclType, needOptional bool) (*ruleEnvs, error) {
	base, err := kapicel.BaseEnv(kind)
	if err != nil {
		return nil, err
	}
	provider := schemas.NewTypeProvider(base.CELTypeProvider(), t)
	extend := func(oldSelfType *types.Type) (*cel.Env, error) {
		return base.Extend(
			cel.CustomTypeProvider(provider),
			cel.Variable(selfVar, t.CEL),
			cel.Variable(oldSelfVar, oldSelfType),
		)
	}
	e := &ruleEnvs{}
	if e.oldSelf, err = extend(t.CEL); err != nil {
		return nil, err
	}
	if needOptional {
		if e.optionalOldSelf, err = extend(types.NewOptionalType(t.CEL)); err != nil {
			return nil, err
		}
	}
	return e, nil
}
