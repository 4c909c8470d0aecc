package admissionregistration

import (
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// policy is a valid ValidatingAdmissionPolicy whose one validation is
// expression.
func policy(expression string) *admissionregistrationv1.ValidatingAdmissionPolicy {
	p := &admissionregistrationv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "p", ResourceVersion: "1"},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			MatchConstraints: &admissionregistrationv1.MatchResources{
				ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{RuleWithOperations: admissionregistrationv1.RuleWithOperations{
					Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
					Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}},
				}}},
			},
			Validations: []admissionregistrationv1.Validation{{Expression: expression}},
		},
	}
	SetDefaultsValidatingAdmissionPolicy(p)
	return p
}

// includes() is 1.37's: kube-apiserver refuses it in a new expression
// (the corpus case validatingadmissionpolicies/cel records the error), so
// that a rollback to 1.36 still understands what was written, but an
// expression already stored compiles in the environment of everything
// 1.37 knows, and an update that keeps it is accepted.
func TestStoredExpressionsCompileInTheEnvironmentOfStoredExpressions(t *testing.T) {
	const expression = "[1, 2].includes(1)"
	errs := ValidateValidatingAdmissionPolicy(policy(expression))
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "undeclared reference to 'includes'") {
		t.Fatalf("a new policy using includes(): got %v, want the undeclared reference", errs)
	}
	old := policy(expression)
	updated := policy(expression)
	updated.Labels = map[string]string{"a": "b"}
	if errs := ValidateValidatingAdmissionPolicyUpdate(updated, old); len(errs) != 0 {
		t.Errorf("an update keeping the stored expression: %v", errs)
	}
	added := policy(expression)
	added.Spec.Validations = append(added.Spec.Validations, admissionregistrationv1.Validation{Expression: "[3].includes(3)"})
	errs = ValidateValidatingAdmissionPolicyUpdate(added, old)
	if len(errs) != 1 || errs[0].Field != "spec.validations[1].expression" {
		t.Errorf("an update adding a new expression using includes(): got %v, want one error at spec.validations[1].expression", errs)
	}
}

// A webhook's match conditions are compiled again only when an update
// changes them: unchanged ones, which an older server accepted, do not
// block other changes.
func TestUnchangedMatchConditionsAreNotCompiledAgain(t *testing.T) {
	hook := func(timeout int32) *admissionregistrationv1.ValidatingWebhookConfiguration {
		url, none := "https://a.example.com", admissionregistrationv1.SideEffectClassNone
		c := &admissionregistrationv1.ValidatingWebhookConfiguration{
			ObjectMeta: metav1.ObjectMeta{Name: "c", ResourceVersion: "1"},
			Webhooks: []admissionregistrationv1.ValidatingWebhook{{
				Name:                    "a.example.com",
				ClientConfig:            admissionregistrationv1.WebhookClientConfig{URL: &url},
				SideEffects:             &none,
				AdmissionReviewVersions: []string{"v1"},
				TimeoutSeconds:          &timeout,
				MatchConditions:         []admissionregistrationv1.MatchCondition{{Name: "c", Expression: "request.nope"}},
			}},
		}
		SetDefaultsValidatingWebhookConfiguration(c)
		return c
	}
	if errs := ValidateValidatingWebhookConfiguration(hook(10)); len(errs) != 1 {
		t.Fatalf("a new configuration with a condition that does not compile: got %v, want one error", errs)
	}
	if errs := ValidateValidatingWebhookConfigurationUpdate(hook(20), hook(10)); len(errs) != 0 {
		t.Errorf("an update of the timeout only: %v", errs)
	}
	changed := hook(10)
	changed.Webhooks[0].MatchConditions[0].Expression = "request.nope2"
	if errs := ValidateValidatingWebhookConfigurationUpdate(changed, hook(10)); len(errs) != 1 {
		t.Errorf("an update of the condition: got %v, want one error", errs)
	}
}
