// Package cel is kube-apiserver's base CEL environment, which every CEL
// expression kapi compiles extends: CRD validation rules, DRA device
// selectors, admission webhooks' match conditions and admission
// policies. Each user adds its own variables and types; the libraries,
// their versions and the cost settings are declared here once.
package cel

import (
	"fmt"
	"sync"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/checker"
	"github.com/google/cel-go/ext"
	"github.com/google/cel-go/interpreter"

	"github.com/kapi-dev/kapi/pkg/cel/library"
)

// PerCallLimit bounds the runtime cost of one evaluation of one
// expression, in CEL's abstract cost units (roughly one per operation, a
// tenth per string character traversed), as kube-apiserver bounds it.
const PerCallLimit = 1000000

// EnvKind picks one of kube-apiserver's two base environments.
//
// Expressions written now (a new object, or an expression an update adds)
// compile in the environment of the compatibility version, one minor
// behind (1.36 for 1.37), so that a rollback to the previous server still
// understands them. Expressions already stored compile in the environment
// of everything this server knows, so that a rollforward-then-back does
// not break them. In 1.37 the two differ only in the lists library:
// includes() is 1.37's.
type EnvKind int

const (
	NewExpressions EnvKind = iota
	StoredExpressions
)

var baseEnvs = sync.OnceValues(func() ([2]*cel.Env, error) {
	var envs [2]*cel.Env
	for _, kind := range []EnvKind{NewExpressions, StoredExpressions} {
		opts := append(CompileOptions(kind), cel.Lib(ProgramOptions{
			cel.EvalOptions(cel.OptOptimize, cel.OptTrackCost),
			cel.CostLimit(PerCallLimit),
			cel.CostTrackerOptions(interpreter.PresenceTestHasCost(false)),
		}), cel.Lib(ProgramOptions{cel.CostTracking(&library.CostEstimator{})}))
		env, err := cel.NewEnv(opts...)
		if err != nil {
			return envs, fmt.Errorf("CEL base environment misconfigured: %w", err)
		}
		envs[kind] = env
	}
	return envs, nil
})

// BaseEnv is kube-apiserver's base environment of kind, with its runtime
// settings: cost tracking and the per-call limit. It is built once;
// extend it with the variables of an expression.
func BaseEnv(kind EnvKind) (*cel.Env, error) {
	envs, err := baseEnvs()
	if err != nil {
		return nil, err
	}
	return envs[kind], nil
}

// CompileOptions are the libraries and settings of kube-apiserver's base
// environment of kind, in its order, without runtime settings. Left out:
// the authorizer libraries, which only the users whose expressions have
// an authorizer add.
func CompileOptions(kind EnvKind) []cel.EnvOption {
	// The lists library moved from version 0 to 1 in 1.37; each sits
	// where kube-apiserver adds it.
	lists0, lists1 := library.Lists(0), cel.EnvOption(nil)
	if kind == StoredExpressions {
		lists0, lists1 = nil, library.Lists(1)
	}
	opts := []cel.EnvOption{
		cel.HomogeneousAggregateLiterals(),
		cel.EagerlyValidateDeclarations(true),
		cel.DefaultUTCTimeZone(true),
		library.URLs(),
		library.Regex(),
		// has() costs nothing, as before cel-go 0.17.7.
		cel.CostEstimatorOptions(checker.PresenceTestHasCost(false)),
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
	}
	present := opts[:0]
	for _, o := range opts {
		if o != nil {
			present = append(present, o)
		}
	}
	return present
}

// ProgramOptions is a library of program options only.
type ProgramOptions []cel.ProgramOption

func (p ProgramOptions) CompileOptions() []cel.EnvOption     { return nil }
func (p ProgramOptions) ProgramOptions() []cel.ProgramOption { return p }
