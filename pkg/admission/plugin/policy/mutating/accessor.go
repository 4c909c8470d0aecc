package mutating

import (
	v1 "k8s.io/api/admissionregistration/v1"
)

// policyAccessor is what package generic reads of a policy.
type policyAccessor struct{ *Policy }

func (p policyAccessor) GetParamKind() *v1.ParamKind             { return p.Spec.ParamKind }
func (p policyAccessor) GetMatchConstraints() *v1.MatchResources { return p.Spec.MatchConstraints }
func (p policyAccessor) GetFailurePolicy() *v1.FailurePolicyType { return p.Spec.FailurePolicy }
func (p policyAccessor) GetMatchConditions() []v1.MatchCondition { return p.Spec.MatchConditions }

// bindingAccessor is what package generic reads of a binding.
type bindingAccessor struct{ *Binding }

func (b bindingAccessor) GetPolicyName() string                 { return b.Spec.PolicyName }
func (b bindingAccessor) GetMatchResources() *v1.MatchResources { return b.Spec.MatchResources }
func (b bindingAccessor) GetParamRef() *v1.ParamRef             { return b.Spec.ParamRef }
