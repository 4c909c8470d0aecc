package policy_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kapi-dev/kapi/pkg/apis/policy"
)

func TestValidatePodDisruptionBudget(t *testing.T) {
	one, half := intstr.FromInt32(1), intstr.FromString("50%")
	tests := []struct {
		name string
		pdb  policyv1.PodDisruptionBudget
		want []string
	}{
		{name: "names need only be path segments", pdb: policyv1.PodDisruptionBudget{
			ObjectMeta: metav1.ObjectMeta{Name: "Not_DNS", Namespace: "default"},
			Spec:       policyv1.PodDisruptionBudgetSpec{MinAvailable: &one},
		}},
		{name: "one bound at most", pdb: policyv1.PodDisruptionBudget{
			ObjectMeta: metav1.ObjectMeta{Name: "both", Namespace: "default"},
			Spec:       policyv1.PodDisruptionBudgetSpec{MinAvailable: &one, MaxUnavailable: &half},
		}, want: []string{`spec: Invalid value: {"MinAvailable":1,"Selector":null,"MaxUnavailable":"50%","UnhealthyPodEvictionPolicy":null}: minAvailable and maxUnavailable cannot be both set`}},
		{name: "metadata is checked once the spec is valid", pdb: policyv1.PodDisruptionBudget{
			ObjectMeta: metav1.ObjectMeta{Name: "a/b", Namespace: "default"},
			Spec:       policyv1.PodDisruptionBudgetSpec{MaxUnavailable: ptr(intstr.FromString("150%"))},
		}, want: []string{`spec.maxUnavailable: Invalid value: "150%": must not be greater than 100%`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, e := range policy.ValidatePodDisruptionBudget(&tc.pdb) {
				got = append(got, e.Error())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

func TestStripV1beta1Label(t *testing.T) {
	marker := metav1.LabelSelectorRequirement{Key: policy.V1beta1Label, Operator: metav1.LabelSelectorOpDoesNotExist}
	pdb := &policyv1.PodDisruptionBudget{Spec: policyv1.PodDisruptionBudgetSpec{Selector: &metav1.LabelSelector{
		MatchLabels: map[string]string{"app": "web"}, MatchExpressions: []metav1.LabelSelectorRequirement{marker},
	}}}
	policy.StripV1beta1Label(pdb, nil)
	if len(pdb.Spec.Selector.MatchExpressions) != 0 {
		t.Errorf("marker kept: %+v", pdb.Spec.Selector)
	}
	matchNone := &policyv1.PodDisruptionBudget{Spec: policyv1.PodDisruptionBudgetSpec{Selector: &metav1.LabelSelector{
		MatchExpressions: []metav1.LabelSelectorRequirement{{Key: policy.V1beta1Label, Operator: metav1.LabelSelectorOpExists}},
	}}}
	policy.StripV1beta1Label(matchNone, nil)
	if len(matchNone.Spec.Selector.MatchExpressions) != 1 {
		t.Error("the match-none selector lost its marker")
	}
}

func ptr[T any](v T) *T { return &v }
