package rbac

import (
	rbacv1 "k8s.io/api/rbac/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/api/validation/path"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/apis/core"
)

// kube-apiserver 1.37 reports its errors in two runs: first those of its
// hand-written validation, then those of the declarative validation the
// rbac types moved to (required verbs, subject and roleRef names, the
// immutable roleRef). Clients see the order, so each function here builds
// the two lists and joins them in that order.

var (
	metadataPath        = field.NewPath("metadata")
	rulesPath           = field.NewPath("rules")
	subjectsPath        = field.NewPath("subjects")
	roleRefPath         = field.NewPath("roleRef")
	aggregationRulePath = field.NewPath("aggregationRule", "clusterRoleSelectors")
)

// isPathSegment is how RBAC objects and the roles a binding names are
// checked: any name that can be one segment of a URL path. RBAC names are
// often like "system:controller:foo", which DNS names could not be.
func isPathSegment(name string, _ bool) []string { return path.IsValidPathSegmentName(name) }

// ValidateRole validates a Role on create.
func ValidateRole(role *rbacv1.Role) field.ErrorList {
	allErrs := core.ValidateObjectMeta(&role.ObjectMeta, true, isPathSegment, metadataPath)
	written, declared := validateRules(role.Rules, true)
	return append(append(allErrs, written...), declared...)
}

// ValidateRoleUpdate validates an update of a Role.
func ValidateRoleUpdate(role, old *rbacv1.Role) field.ErrorList {
	allErrs := ValidateRole(role)
	return append(allErrs, core.ValidateObjectMetaUpdate(&role.ObjectMeta, &old.ObjectMeta, metadataPath)...)
}

// ValidateClusterRole validates a ClusterRole on create.
func ValidateClusterRole(role *rbacv1.ClusterRole) field.ErrorList {
	allErrs := core.ValidateObjectMeta(&role.ObjectMeta, false, isPathSegment, metadataPath)
	written, declared := validateRules(role.Rules, false)
	allErrs = append(allErrs, written...)
	allErrs = append(allErrs, validateAggregationRule(role.AggregationRule)...)
	return append(allErrs, declared...)
}

// ValidateClusterRoleUpdate validates an update of a ClusterRole.
func ValidateClusterRoleUpdate(role, old *rbacv1.ClusterRole) field.ErrorList {
	allErrs := ValidateClusterRole(role)
	return append(allErrs, core.ValidateObjectMetaUpdate(&role.ObjectMeta, &old.ObjectMeta, metadataPath)...)
}

// validateRules checks each rule is either about resources or about
// non-resource URLs, and complete. Non-resource URLs are cluster-wide by
// nature, so a Role (namespaced) may not name them.
func validateRules(rules []rbacv1.PolicyRule, namespaced bool) (written, declared field.ErrorList) {
	for i, rule := range rules {
		p := rulesPath.Index(i)
		if len(rule.Verbs) == 0 {
			declared = append(declared, field.Required(p.Child("verbs"), ""))
		}
		if len(rule.NonResourceURLs) > 0 {
			if namespaced {
				written = append(written, field.Invalid(p.Child("nonResourceURLs"), rule.NonResourceURLs, "namespaced rules cannot apply to non-resource URLs"))
			}
			if len(rule.APIGroups) > 0 || len(rule.Resources) > 0 || len(rule.ResourceNames) > 0 {
				written = append(written, field.Invalid(p.Child("nonResourceURLs"), rule.NonResourceURLs, "rules cannot apply to both regular resources and non-resource URLs"))
			}
			continue
		}
		if len(rule.APIGroups) == 0 {
			written = append(written, field.Required(p.Child("apiGroups"), "resource rules must supply at least one api group"))
		}
		if len(rule.Resources) == 0 {
			written = append(written, field.Required(p.Child("resources"), "resource rules must supply at least one resource"))
		}
	}
	return written, declared
}

// validateAggregationRule checks the selectors the aggregation controller
// will use to fill the role's rules.
func validateAggregationRule(rule *rbacv1.AggregationRule) field.ErrorList {
	if rule == nil {
		return nil
	}
	if len(rule.ClusterRoleSelectors) == 0 {
		return field.ErrorList{field.Required(aggregationRulePath, "at least one clusterRoleSelector required if aggregationRule is non-nil")}
	}
	var allErrs field.ErrorList
	for i := range rule.ClusterRoleSelectors {
		sel := &rule.ClusterRoleSelectors[i]
		p := aggregationRulePath.Index(i)
		allErrs = append(allErrs, metav1validation.ValidateLabelSelector(sel, metav1validation.LabelSelectorValidationOptions{}, p)...)
		if _, err := metav1.LabelSelectorAsSelector(sel); err != nil {
			allErrs = append(allErrs, field.Invalid(p, nil, "invalid label selector."))
		}
	}
	return allErrs
}

// ValidateRoleBinding validates a RoleBinding on create. It may refer to a
// Role of its namespace or to a ClusterRole, whose rules then apply in the
// binding's namespace only.
func ValidateRoleBinding(rb *rbacv1.RoleBinding) field.ErrorList {
	allErrs := core.ValidateObjectMeta(&rb.ObjectMeta, true, isPathSegment, metadataPath)
	return append(allErrs, validateBinding(rb.RoleRef, rb.Subjects, true)...)
}

// ValidateRoleBindingUpdate validates an update of a RoleBinding: its
// roleRef may not change, because what a binding grants would otherwise
// change under the feet of those who checked it (and escalation checks
// are made against the role named at creation).
func ValidateRoleBindingUpdate(rb, old *rbacv1.RoleBinding) field.ErrorList {
	allErrs := ValidateRoleBinding(rb)
	allErrs = append(allErrs, core.ValidateObjectMetaUpdate(&rb.ObjectMeta, &old.ObjectMeta, metadataPath)...)
	return append(allErrs, validateRoleRefUnchanged(rb.RoleRef, old.RoleRef)...)
}

// ValidateClusterRoleBinding validates a ClusterRoleBinding on create.
func ValidateClusterRoleBinding(crb *rbacv1.ClusterRoleBinding) field.ErrorList {
	allErrs := core.ValidateObjectMeta(&crb.ObjectMeta, false, isPathSegment, metadataPath)
	return append(allErrs, validateBinding(crb.RoleRef, crb.Subjects, false)...)
}

// ValidateClusterRoleBindingUpdate validates an update of a
// ClusterRoleBinding; its roleRef may not change either.
func ValidateClusterRoleBindingUpdate(crb, old *rbacv1.ClusterRoleBinding) field.ErrorList {
	allErrs := ValidateClusterRoleBinding(crb)
	allErrs = append(allErrs, core.ValidateObjectMetaUpdate(&crb.ObjectMeta, &old.ObjectMeta, metadataPath)...)
	return append(allErrs, validateRoleRefUnchanged(crb.RoleRef, old.RoleRef)...)
}

func validateBinding(ref rbacv1.RoleRef, subjects []rbacv1.Subject, namespaced bool) field.ErrorList {
	var written, declared field.ErrorList
	if ref.APIGroup != rbacv1.GroupName {
		written = append(written, field.NotSupported(roleRefPath.Child("apiGroup"), ref.APIGroup, []string{rbacv1.GroupName}))
	}
	kinds := []string{"ClusterRole"}
	if namespaced {
		kinds = []string{"Role", "ClusterRole"}
	}
	if !contains(kinds, ref.Kind) {
		written = append(written, field.NotSupported(roleRefPath.Child("kind"), ref.Kind, kinds))
	}
	for _, msg := range isPathSegment(ref.Name, false) {
		written = append(written, field.Invalid(roleRefPath.Child("name"), ref.Name, msg))
	}
	for i, s := range subjects {
		p := subjectsPath.Index(i)
		if s.Name == "" {
			declared = append(declared, field.Required(p.Child("name"), ""))
		}
		written = append(written, validateSubject(s, namespaced, p)...)
	}
	if ref.Name == "" {
		declared = append(declared, field.Required(roleRefPath.Child("name"), ""))
	}
	return append(written, declared...)
}

// validateSubject checks a subject's kind and the API group that goes
// with it. A ServiceAccount of a ClusterRoleBinding must name its
// namespace; in a RoleBinding it defaults to the binding's.
func validateSubject(s rbacv1.Subject, namespaced bool, p *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	switch s.Kind {
	case rbacv1.ServiceAccountKind:
		if s.Name != "" {
			for _, msg := range apivalidation.NameIsDNSSubdomain(s.Name, false) {
				allErrs = append(allErrs, field.Invalid(p.Child("name"), s.Name, msg))
			}
		}
		if s.APIGroup != "" {
			allErrs = append(allErrs, field.NotSupported(p.Child("apiGroup"), s.APIGroup, []string{""}))
		}
		if !namespaced && s.Namespace == "" {
			allErrs = append(allErrs, field.Required(p.Child("namespace"), ""))
		}
	case rbacv1.UserKind, rbacv1.GroupKind:
		if s.APIGroup != rbacv1.GroupName {
			allErrs = append(allErrs, field.NotSupported(p.Child("apiGroup"), s.APIGroup, []string{rbacv1.GroupName}))
		}
	default:
		allErrs = append(allErrs, field.NotSupported(p.Child("kind"), s.Kind, []string{rbacv1.ServiceAccountKind, rbacv1.UserKind, rbacv1.GroupKind}))
	}
	return allErrs
}

// roleRefValue is how kube-apiserver prints a roleRef in the immutability
// error: its internal type, without JSON tags, so with Go field names.
type roleRefValue struct {
	APIGroup string
	Kind     string
	Name     string
}

func validateRoleRefUnchanged(ref, old rbacv1.RoleRef) field.ErrorList {
	if ref == old {
		return nil
	}
	return field.ErrorList{field.Invalid(roleRefPath, roleRefValue(ref), "field is immutable")}
}

func contains(set []string, s string) bool {
	for _, x := range set {
		if x == s {
			return true
		}
	}
	return false
}
