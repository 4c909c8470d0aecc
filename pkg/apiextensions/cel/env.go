package cel

import (
	"fmt"
	"sync"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/checker"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/ext"
	"github.com/google/cel-go/interpreter"

	"github.com/kapi-dev/kapi/pkg/apiextensions/cel/library"
)

// Variable names of rules.
const (
	// selfVar is the value at the rule's location in the schema.
	selfVar = "self"
	// oldSelfVar is the value at the same location before an update; a rule
	// that uses it is a transition rule.
	oldSelfVar = "oldSelf"
)

// kube-apiserver keeps two CEL environments. Expressions written now (a new
// CRD, or a rule added by an update) compile in the environment of the
// compatibility version, one minor behind (1.36 for 1.37), so that a
// rollback to the previous server still understands them. Expressions
// already stored compile in the environment of everything this server
// knows, so that a rollforward-then-back does not break stored rules.
// In 1.37 the two differ only in the lists library: includes() is 1.37's.
type envKind int

const (
	newExpressions envKind = iota
	storedExpressions
)

var baseEnvs = sync.OnceValues(func() ([2]*cel.Env, error) {
	var envs [2]*cel.Env
	for kind, listsVersion := range map[envKind]uint32{newExpressions: 0, storedExpressions: 1} {
		env, err := cel.NewEnv(baseOptions(listsVersion)...)
		if err != nil {
			return envs, fmt.Errorf("CEL base environment misconfigured: %w", err)
		}
		envs[kind] = env
	}
	return envs, nil
})

// baseOptions are the libraries and settings of kube-apiserver's base
// environment, in its order. Left out: the authorizer libraries, whose
// variables CRD rules never have.
func baseOptions(listsVersion uint32) []cel.EnvOption {
	// The lists library moved from version 0 to 1 in 1.37; each sits
	// where kube-apiserver adds it.
	lists0, lists1 := library.Lists(0), cel.EnvOption(nil)
	if listsVersion >= 1 {
		lists0, lists1 = nil, library.Lists(listsVersion)
	}
	opts := []cel.EnvOption{
		cel.HomogeneousAggregateLiterals(),
		cel.EagerlyValidateDeclarations(true),
		cel.DefaultUTCTimeZone(true),
		library.URLs(),
		library.Regex(),
		// has() costs nothing, as before cel-go 0.17.7.
		cel.CostEstimatorOptions(checker.PresenceTestHasCost(false)),
		cel.Lib(programOptions{
			cel.EvalOptions(cel.OptOptimize, cel.OptTrackCost),
			cel.CostLimit(PerCallLimit),
			cel.CostTrackerOptions(interpreter.PresenceTestHasCost(false)),
		}),
		lists0,
		cel.CrossTypeNumericComparisons(true),
		cel.OptionalTypes(),
		library.Quantities(),
		cel.ASTValidators(
			cel.ValidateDurationLiterals(),
			cel.ValidateTimestampLiterals(),
			cel.ValidateRegexLiterals(),
			cel.ValidateHomogeneousAggregateLiterals(),
		),
		ext.Strings(ext.StringsVersion(2)),
		ext.Sets(),
		library.IPs(),
		library.CIDRs(),
		library.Formats(),
		ext.TwoVarComprehensions(),
		library.Semvers(1),
		ext.Lists(ext.ListsVersion(3)),
		lists1,
		cel.Lib(programOptions{cel.CostTracking(&library.CostEstimator{})}),
	}
	present := opts[:0]
	for _, o := range opts {
		if o != nil {
			present = append(present, o)
		}
	}
	return present
}

// programOptions is a library of program options only.
type programOptions []cel.ProgramOption

func (p programOptions) CompileOptions() []cel.EnvOption     { return nil }
func (p programOptions) ProgramOptions() []cel.ProgramOption { return p }

// ruleEnvs are the environments of the rules of one schema location: self
// has the location's type, and oldSelf the same type, or optional of it
// for rules with optionalOldSelf.
type ruleEnvs struct {
	oldSelf, optionalOldSelf *cel.Env
}

// newRuleEnvs extends the base environment of kind with the variables of a
// location whose values have type t. t must be named (see declType.named).
func newRuleEnvs(kind envKind, t *declType, needOptional bool) (*ruleEnvs, error) {
	envs, err := baseEnvs()
	if err != nil {
		return nil, err
	}
	base := envs[kind]
	provider := newTypeProvider(base.CELTypeProvider(), t)
	extend := func(oldSelfType *types.Type) (*cel.Env, error) {
		return base.Extend(
			cel.CustomTypeProvider(provider),
			cel.Variable(selfVar, t.cel),
			cel.Variable(oldSelfVar, oldSelfType),
		)
	}
	e := &ruleEnvs{}
	if e.oldSelf, err = extend(t.cel); err != nil {
		return nil, err
	}
	if needOptional {
		if e.optionalOldSelf, err = extend(types.NewOptionalType(t.cel)); err != nil {
			return nil, err
		}
	}
	return e, nil
}
