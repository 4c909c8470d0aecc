package admissionregistration

import (
	"fmt"
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/validate/content"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/apis/core"
)

// The values kube-apiserver accepts, sorted as its errors list them.
var (
	failurePolicies      = []string{string(admissionregistrationv1.Fail), string(admissionregistrationv1.Ignore)}
	matchPolicies        = []string{string(admissionregistrationv1.Equivalent), string(admissionregistrationv1.Exact)}
	reinvocationPolicies = []string{string(admissionregistrationv1.IfNeededReinvocationPolicy), string(admissionregistrationv1.NeverReinvocationPolicy)}
	// sideEffectClasses are those an older server accepted; new and
	// updated webhooks may only have noSideEffectClasses.
	sideEffectClasses   = []string{string(admissionregistrationv1.SideEffectClassNone), string(admissionregistrationv1.SideEffectClassNoneOnDryRun), string(admissionregistrationv1.SideEffectClassSome), string(admissionregistrationv1.SideEffectClassUnknown)}
	noSideEffectClasses = []string{string(admissionregistrationv1.SideEffectClassNone), string(admissionregistrationv1.SideEffectClassNoneOnDryRun)}
	operations          = []string{string(admissionregistrationv1.OperationAll), string(admissionregistrationv1.Connect), string(admissionregistrationv1.Create), string(admissionregistrationv1.Delete), string(admissionregistrationv1.Update)}
	// mutatingOperations: a mutating admission policy cannot mutate a
	// delete.
	mutatingOperations = []string{string(admissionregistrationv1.OperationAll), string(admissionregistrationv1.Connect), string(admissionregistrationv1.Create), string(admissionregistrationv1.Update)}
	scopes             = []string{string(admissionregistrationv1.AllScopes), string(admissionregistrationv1.ClusterScope), string(admissionregistrationv1.NamespacedScope)}
)

// validateRuleWithOperations validates a webhook's or a policy's rule:
// its operations, then the groups, versions, resources and scope.
func validateRuleWithOperations(r *admissionregistrationv1.RuleWithOperations, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if len(r.Operations) == 0 {
		allErrs = append(allErrs, field.Required(fldPath.Child("operations"), ""))
	}
	if len(r.Operations) > 1 && slices.Contains(r.Operations, admissionregistrationv1.OperationAll) {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("operations"), r.Operations, "if '*' is present, must not specify other operations"))
	}
	for i, op := range r.Operations {
		if !slices.Contains(operations, string(op)) {
			allErrs = append(allErrs, field.NotSupported(fldPath.Child("operations").Index(i), op, operations))
		}
	}
	return append(allErrs, validateRule(&r.Rule, fldPath)...)
}

func validateRule(r *admissionregistrationv1.Rule, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if len(r.APIGroups) == 0 {
		allErrs = append(allErrs, field.Required(fldPath.Child("apiGroups"), ""))
	}
	if len(r.APIGroups) > 1 && slices.Contains(r.APIGroups, "*") {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("apiGroups"), r.APIGroups, "if '*' is present, must not specify other API groups"))
	}
	// A group may be empty: the core group.
	if len(r.APIVersions) == 0 {
		allErrs = append(allErrs, field.Required(fldPath.Child("apiVersions"), ""))
	}
	if len(r.APIVersions) > 1 && slices.Contains(r.APIVersions, "*") {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("apiVersions"), r.APIVersions, "if '*' is present, must not specify other API versions"))
	}
	for i, v := range r.APIVersions {
		if v == "" {
			allErrs = append(allErrs, field.Required(fldPath.Child("apiVersions").Index(i), ""))
		}
	}
	allErrs = append(allErrs, validateResources(r.Resources, fldPath.Child("resources"))...)
	if r.Scope != nil && !slices.Contains(scopes, string(*r.Scope)) {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("scope"), *r.Scope, scopes))
	}
	return allErrs
}

// validateResources: resources and subresources ("pods/status"), where a
// wildcard excludes naming what it already covers.
func validateResources(resources []string, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if len(resources) == 0 {
		allErrs = append(allErrs, field.Required(fldPath, ""))
	}
	anySubresourceOf := sets.New[string]()   // x/*
	anyResourceWithSub := sets.New[string]() // */x
	var doubleWildcard, singleWildcard, plainResource bool
	for i, resSub := range resources {
		if resSub == "" {
			allErrs = append(allErrs, field.Required(fldPath.Index(i), ""))
			continue
		}
		switch resSub {
		case "*/*":
			doubleWildcard = true
		case "*":
			singleWildcard = true
		}
		res, sub, hasSub := strings.Cut(resSub, "/")
		if !hasSub {
			// kube-apiserver remembers only the last such entry.
			plainResource = resSub != "*"
			continue
		}
		if anySubresourceOf.Has(res) {
			allErrs = append(allErrs, field.Invalid(fldPath.Index(i), resSub, fmt.Sprintf("if '%s/*' is present, must not specify %s", res, resSub)))
		}
		if anyResourceWithSub.Has(sub) {
			allErrs = append(allErrs, field.Invalid(fldPath.Index(i), resSub, fmt.Sprintf("if '*/%s' is present, must not specify %s", sub, resSub)))
		}
		if sub == "*" {
			anySubresourceOf.Insert(res)
		}
		if res == "*" {
			anyResourceWithSub.Insert(sub)
		}
	}
	if len(resources) > 1 && doubleWildcard {
		allErrs = append(allErrs, field.Invalid(fldPath, resources, "if '*/*' is present, must not specify other resources"))
	}
	if singleWildcard && plainResource {
		allErrs = append(allErrs, field.Invalid(fldPath, resources, "if '*' is present, must not specify other resources without subresources"))
	}
	return allErrs
}

// validateLabelSelector validates a webhook's or a policy's selector;
// an update may keep label values that were accepted before the values
// were checked.
func validateLabelSelector(s *metav1.LabelSelector, allowInvalidLabelValue bool, fldPath *field.Path) field.ErrorList {
	return metav1validation.ValidateLabelSelector(s, metav1validation.LabelSelectorValidationOptions{AllowInvalidLabelValueInSelector: allowInvalidLabelValue}, fldPath)
}

func hasInvalidLabelValue(selectors ...*metav1.LabelSelector) bool {
	for _, s := range selectors {
		if s != nil && len(validateLabelSelector(s, false, nil)) > 0 {
			return true
		}
	}
	return false
}

// validateMatchConditions validates at most 64 conditions with unique
// qualified names, whose expressions compile with compile.
func validateMatchConditions(conditions []admissionregistrationv1.MatchCondition, compile func(expression string, fldPath *field.Path) field.ErrorList, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if len(conditions) > 64 {
		allErrs = append(allErrs, field.TooMany(fldPath, len(conditions), 64))
	}
	names := sets.New[string]()
	for i, c := range conditions {
		p := fldPath.Index(i)
		if expr := strings.TrimSpace(c.Expression); expr == "" {
			allErrs = append(allErrs, field.Required(p.Child("expression"), ""))
		} else if compile != nil {
			allErrs = append(allErrs, compile(expr, p.Child("expression"))...)
		}
		if c.Name == "" {
			allErrs = append(allErrs, field.Required(p.Child("name"), ""))
		} else {
			allErrs = append(allErrs, core.ValidateQualifiedName(c.Name, p.Child("name"))...)
		}
		if c.Name != "" {
			if names.Has(c.Name) {
				allErrs = append(allErrs, field.Duplicate(p.Child("name"), c.Name))
			} else {
				names.Insert(c.Name)
			}
		}
	}
	return allErrs
}

// validateMatchResources validates a policy's match constraints or a
// binding's match resources, which defaulting has filled in.
func validateMatchResources(m *admissionregistrationv1.MatchResources, fldPath *field.Path) field.ErrorList {
	if m == nil {
		return nil
	}
	var allErrs field.ErrorList
	if m.MatchPolicy == nil {
		allErrs = append(allErrs, field.Required(fldPath.Child("matchPolicy"), ""))
	} else if !slices.Contains(matchPolicies, string(*m.MatchPolicy)) {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("matchPolicy"), *m.MatchPolicy, matchPolicies))
	}
	if m.NamespaceSelector == nil {
		allErrs = append(allErrs, field.Required(fldPath.Child("namespaceSelector"), ""))
	} else {
		allErrs = append(allErrs, validateLabelSelector(m.NamespaceSelector, false, fldPath.Child("namespaceSelector"))...)
	}
	if m.ObjectSelector == nil {
		allErrs = append(allErrs, field.Required(fldPath.Child("objectSelector"), ""))
	} else {
		allErrs = append(allErrs, validateLabelSelector(m.ObjectSelector, false, fldPath.Child("objectSelector"))...)
	}
	for i := range m.ResourceRules {
		allErrs = append(allErrs, validateNamedRule(&m.ResourceRules[i], fldPath.Child("resourceRules").Index(i))...)
	}
	for i := range m.ExcludeResourceRules {
		allErrs = append(allErrs, validateNamedRule(&m.ExcludeResourceRules[i], fldPath.Child("excludeResourceRules").Index(i))...)
	}
	return allErrs
}

func validateNamedRule(r *admissionregistrationv1.NamedRuleWithOperations, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	names := sets.New[string]()
	for i, name := range r.ResourceNames {
		for _, msg := range content.IsPathSegmentName(name) {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("resourceNames").Index(i), name, msg))
		}
		if names.Has(name) {
			allErrs = append(allErrs, field.Duplicate(fldPath.Child("resourceNames").Index(i), name))
		} else {
			names.Insert(name)
		}
	}
	return append(allErrs, validateRuleWithOperations(&r.RuleWithOperations, fldPath)...)
}
