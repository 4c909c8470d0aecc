package apiextensions

import (
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

func TestAPIApprovalState(t *testing.T) {
	const (
		missing = `protected groups must have approval annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111`
		invalid = `protected groups must have approval annotation "api-approved.kubernetes.io" with either a URL or a reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111`
	)
	tests := []struct {
		group, annotation string
		wantState         ApprovalState
		wantReason        string
		wantCondition     *apiextensionsv1.CustomResourceDefinitionCondition
	}{
		{group: "example.com", annotation: "", wantState: ApprovalNotProtected},
		{group: "notk8s.io", annotation: "junk", wantState: ApprovalNotProtected},
		{group: "k8s.io", wantState: ApprovalMissing, wantReason: missing,
			wantCondition: &apiextensionsv1.CustomResourceDefinitionCondition{Type: "KubernetesAPIApprovalPolicyConformant", Status: "False", Reason: "MissingAnnotation", Message: missing}},
		{group: "storage.k8s.io", annotation: "https://github.com/kubernetes/kubernetes/pull/78458", wantState: Approved, wantReason: "approved in https://github.com/kubernetes/kubernetes/pull/78458",
			wantCondition: &apiextensionsv1.CustomResourceDefinitionCondition{Type: "KubernetesAPIApprovalPolicyConformant", Status: "True", Reason: "ApprovedAnnotation", Message: "approved in https://github.com/kubernetes/kubernetes/pull/78458"}},
		{group: "x.kubernetes.io", annotation: "unapproved, experimental", wantState: Unapproved, wantReason: `not approved: "unapproved, experimental"`,
			wantCondition: &apiextensionsv1.CustomResourceDefinitionCondition{Type: "KubernetesAPIApprovalPolicyConformant", Status: "False", Reason: "UnapprovedAnnotation", Message: `not approved: "unapproved, experimental"`}},
		{group: "kubernetes.io", annotation: "github.com/kubernetes/kubernetes/pull/1", wantState: ApprovalInvalid, wantReason: invalid,
			wantCondition: &apiextensionsv1.CustomResourceDefinitionCondition{Type: "KubernetesAPIApprovalPolicyConformant", Status: "False", Reason: "InvalidAnnotation", Message: invalid}},
		{group: "kubernetes.io", annotation: "https:///no-host", wantState: ApprovalInvalid, wantReason: invalid,
			wantCondition: &apiextensionsv1.CustomResourceDefinitionCondition{Type: "KubernetesAPIApprovalPolicyConformant", Status: "False", Reason: "InvalidAnnotation", Message: invalid}},
	}
	for _, tt := range tests {
		t.Run(tt.group+" "+tt.annotation, func(t *testing.T) {
			c := &apiextensionsv1.CustomResourceDefinition{Spec: apiextensionsv1.CustomResourceDefinitionSpec{Group: tt.group}}
			if tt.annotation != "" {
				c.Annotations = map[string]string{apiextensionsv1.KubeAPIApprovedAnnotation: tt.annotation}
			}
			state, reason := APIApprovalState(c)
			if state != tt.wantState || reason != tt.wantReason {
				t.Errorf("APIApprovalState = %v, %q; want %v, %q", state, reason, tt.wantState, tt.wantReason)
			}
			cond := APIApprovalCondition(c)
			if (cond == nil) != (tt.wantCondition == nil) || cond != nil && *cond != *tt.wantCondition {
				t.Errorf("APIApprovalCondition = %+v, want %+v", cond, tt.wantCondition)
			}
		})
	}
}
