package mutating

import (
	v1 "k8s.io/api/admissionregistration/v1"

	celadmission "github.com/kapi-dev/kapi/pkg/cel/admission"
)

// compiled is a policy compiled once per version of it, as
// kube-apiserver compiles a stored policy: its variables (which every
// later expression may read), match conditions and mutations, in the
// environment of stored expressions.
type compiled struct {
	variables       []*celadmission.Expression
	matchConditions []*celadmission.Expression
	mutations       []mutation
}

// mutation is one of a policy's mutations: an ApplyConfiguration or a
// JSONPatch expression.
type mutation struct {
	patchType v1.PatchType
	expr      *celadmission.Expression
}

func compile(p *v1.MutatingAdmissionPolicy) *compiled {
	c := celadmission.NewStoredCompiler(true, p.Spec.ParamKind != nil)
	out := &compiled{}
	for _, v := range p.Spec.Variables {
		out.variables = append(out.variables, c.CompileVariable(v.Name, v.Expression))
	}
	for _, m := range p.Spec.MatchConditions {
		out.matchConditions = append(out.matchConditions, c.Compile(m.Expression, celadmission.MatchCondition))
	}
	for _, m := range p.Spec.Mutations {
		switch {
		case m.PatchType == v1.PatchTypeApplyConfiguration && m.ApplyConfiguration != nil:
			out.mutations = append(out.mutations, mutation{m.PatchType, c.Compile(m.ApplyConfiguration.Expression, celadmission.ApplyConfiguration)})
		case m.PatchType == v1.PatchTypeJSONPatch && m.JSONPatch != nil:
			out.mutations = append(out.mutations, mutation{m.PatchType, c.Compile(m.JSONPatch.Expression, celadmission.JSONPatch)})
		}
	}
	return out
}
