package validating

import (
	v1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kapi-dev/kapi/pkg/admission/plugin/policy/generic"
	celadmission "github.com/kapi-dev/kapi/pkg/cel/admission"
)

// compiled is a policy's expressions, compiled as kube-apiserver compiles
// a stored policy: in the environment of stored expressions, composited
// (every expression sees variables), with params if it has a paramKind.
// An expression that does not compile fails when evaluated.
type compiled struct {
	variables        []*celadmission.Expression
	matchConditions  []*celadmission.Expression
	validations      []*celadmission.Expression
	messages         []*celadmission.Expression // nil where a validation has no messageExpression
	auditAnnotations []*celadmission.Expression
}

func compile(p *v1.ValidatingAdmissionPolicy) *compiled {
	c := celadmission.NewStoredCompiler(true, p.Spec.ParamKind != nil)
	for _, v := range p.Spec.Variables {
		c.CompileVariable(v.Name, v.Expression)
	}
	out := &compiled{variables: c.Variables()}
	for _, m := range p.Spec.MatchConditions {
		out.matchConditions = append(out.matchConditions, c.Compile(m.Expression, celadmission.MatchCondition))
	}
	for _, v := range p.Spec.Validations {
		out.validations = append(out.validations, c.Compile(v.Expression, celadmission.Validation))
		var msg *celadmission.Expression
		if v.MessageExpression != "" {
			msg = c.Compile(v.MessageExpression, celadmission.Message)
		}
		out.messages = append(out.messages, msg)
	}
	for _, a := range p.Spec.AuditAnnotations {
		out.auditAnnotations = append(out.auditAnnotations, c.Compile(a.ValueExpression, celadmission.AuditAnnotation))
	}
	return out
}

type policyAccessor struct{ *v1.ValidatingAdmissionPolicy }

func (p policyAccessor) GetName() string                         { return p.Name }
func (p policyAccessor) GetUID() types.UID                       { return p.UID }
func (p policyAccessor) GetResourceVersion() string              { return p.ResourceVersion }
func (p policyAccessor) GetParamKind() *v1.ParamKind             { return p.Spec.ParamKind }
func (p policyAccessor) GetMatchConstraints() *v1.MatchResources { return p.Spec.MatchConstraints }
func (p policyAccessor) GetFailurePolicy() *v1.FailurePolicyType { return p.Spec.FailurePolicy }
func (p policyAccessor) GetMatchConditions() []v1.MatchCondition { return p.Spec.MatchConditions }

type bindingAccessor struct {
	*v1.ValidatingAdmissionPolicyBinding
}

func (b bindingAccessor) GetName() string                       { return b.Name }
func (b bindingAccessor) GetPolicyName() string                 { return b.Spec.PolicyName }
func (b bindingAccessor) GetMatchResources() *v1.MatchResources { return b.Spec.MatchResources }
func (b bindingAccessor) GetParamRef() *v1.ParamRef             { return b.Spec.ParamRef }

var (
	_ generic.PolicyAccessor  = policyAccessor{}
	_ generic.BindingAccessor = bindingAccessor{}
)
