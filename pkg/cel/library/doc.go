// Package library holds the CEL function libraries Kubernetes adds to the
// standard CEL environment of x-kubernetes-validations rules (lists, regex,
// url, quantity, ip, cidr, format, semver), and the cost estimator that
// prices their calls, both statically (when a CRD is written) and at run
// time (when a custom resource is validated).
//
// The function names, overload ids, result types, error texts and cost
// formulas are those of kube-apiserver 1.37: rules that compile and pass
// there must compile and pass here, and rules rejected as too expensive
// there must be rejected here too.
package library

import (
	"github.com/google/cel-go/cel"
)

// library bundles the compile and program options of one function library.
// It is a cel.SingletonLibrary, so adding it twice to an environment is a
// no-op.
type library struct {
	name     string
	compile  []cel.EnvOption
	programs []cel.ProgramOption
}

func (l *library) LibraryName() string                 { return l.name }
func (l *library) CompileOptions() []cel.EnvOption     { return l.compile }
func (l *library) ProgramOptions() []cel.ProgramOption { return l.programs }

func newLibrary(name string, functions map[string][]cel.FunctionOpt, extra ...cel.EnvOption) *library {
	l := &library{name: name}
	l.compile = append(l.compile, extra...)
	for fn, overloads := range functions {
		l.compile = append(l.compile, cel.Function(fn, overloads...))
	}
	return l
}
