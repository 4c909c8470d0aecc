// Package generic is what the ValidatingAdmissionPolicy and
// MutatingAdmissionPolicy plugins share, as kube-apiserver 1.37 runs
// admission policies: the policies and their bindings from the shared
// informers, each policy compiled once per version of it; which writes
// a policy (matchConstraints) and a binding (matchResources) apply to;
// the params a binding names (paramKind, paramRef by name or selector,
// parameterNotFoundAction); the match conditions; the failure policy;
// and the request, objects and authorizer the expressions see. The
// plugins evaluate the policies' own expressions (validations, mutations).
package generic

import (
	"fmt"
	"sort"
	"sync"

	v1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/types"
)

// PolicyAccessor is what the machinery reads of a policy.
type PolicyAccessor interface {
	GetName() string
	GetUID() types.UID
	GetResourceVersion() string
	GetParamKind() *v1.ParamKind
	GetMatchConstraints() *v1.MatchResources
	GetFailurePolicy() *v1.FailurePolicyType
	GetMatchConditions() []v1.MatchCondition
}

// BindingAccessor is what the machinery reads of a binding.
type BindingAccessor interface {
	GetName() string
	GetPolicyName() string
	GetMatchResources() *v1.MatchResources
	GetParamRef() *v1.ParamRef
}

// Hook is a policy with its bindings and its compiled form E.
type Hook[P, B, E any] struct {
	Policy   P
	Bindings []B
	Compiled E
}

// Source lists the policies that have bindings, with their bindings, and
// keeps each compiled until it changes.
type Source[P, B, E any] struct {
	Policies  func() ([]P, error)
	Bindings  func() ([]B, error)
	HasSynced func() bool
	Policy    func(P) PolicyAccessor
	Binding   func(B) BindingAccessor
	Compile   func(P) E

	mu       sync.Mutex
	compiled map[string]compiled[E]
}

type compiled[E any] struct {
	uid             types.UID
	resourceVersion string
	e               E
}

// Hooks are the policies with at least one binding, by name, with their
// bindings by name. A binding of a policy that does not exist is left
// out, as kube-apiserver leaves it.
func (s *Source[P, B, E]) Hooks() ([]Hook[P, B, E], error) {
	policies, err := s.Policies()
	if err != nil {
		return nil, fmt.Errorf("listing policies: %w", err)
	}
	bindings, err := s.Bindings()
	if err != nil {
		return nil, fmt.Errorf("listing bindings: %w", err)
	}
	byPolicy := map[string][]B{}
	for _, b := range bindings {
		name := s.Binding(b).GetPolicyName()
		byPolicy[name] = append(byPolicy[name], b)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.compiled == nil {
		s.compiled = map[string]compiled[E]{}
	}
	var hooks []Hook[P, B, E]
	seen := map[string]bool{}
	for _, p := range policies {
		acc := s.Policy(p)
		bs := byPolicy[acc.GetName()]
		if len(bs) == 0 {
			continue
		}
		sort.Slice(bs, func(i, j int) bool { return s.Binding(bs[i]).GetName() < s.Binding(bs[j]).GetName() })
		seen[acc.GetName()] = true
		c, ok := s.compiled[acc.GetName()]
		if !ok || c.uid != acc.GetUID() || c.resourceVersion != acc.GetResourceVersion() {
			c = compiled[E]{uid: acc.GetUID(), resourceVersion: acc.GetResourceVersion(), e: s.Compile(p)}
			s.compiled[acc.GetName()] = c
		}
		hooks = append(hooks, Hook[P, B, E]{Policy: p, Bindings: bs, Compiled: c.e})
	}
	for name := range s.compiled {
		if !seen[name] {
			delete(s.compiled, name)
		}
	}
	sort.Slice(hooks, func(i, j int) bool { return s.Policy(hooks[i].Policy).GetName() < s.Policy(hooks[j].Policy).GetName() })
	return hooks, nil
}
