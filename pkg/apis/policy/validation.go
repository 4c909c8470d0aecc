package policy

import (
	"slices"
	"strconv"

	policyv1 "k8s.io/api/policy/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/api/validation/path"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metavalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/apis/internal/gofields"
)

var (
	metadataPath = field.NewPath("metadata")
	specPath     = field.NewPath("spec")
	statusPath   = field.NewPath("status")

	unhealthyPodEvictionPolicies = []string{string(policyv1.AlwaysAllow), string(policyv1.IfHealthyBudget)}
)

// V1beta1Label is the label key policy/v1beta1 put in selectors to tell an
// empty selector (all pods in v1, none in v1beta1) apart; it is stripped
// from v1 selectors.
const V1beta1Label = "pdb.kubernetes.io/deprecated-v1beta1-empty-selector-match"

// ValidatePodDisruptionBudget validates a PDB on create: its spec, then,
// if that is valid, the metadata every object must have right.
func ValidatePodDisruptionBudget(pdb *policyv1.PodDisruptionBudget) field.ErrorList {
	allErrs := validateSpec(&pdb.Spec, specPath, false)
	if len(allErrs) == 0 {
		allErrs = apivalidation.ValidateObjectMeta(&pdb.ObjectMeta, true, path.ValidatePathSegmentName, metadataPath)
	}
	return allErrs
}

// ValidatePodDisruptionBudgetUpdate validates an update of a PDB. Label
// values of a selector stored before they were checked ratchet.
func ValidatePodDisruptionBudgetUpdate(pdb, old *policyv1.PodDisruptionBudget) field.ErrorList {
	allErrs := validateMetadataUpdate(pdb, old)
	return append(allErrs, validateSpec(&pdb.Spec, specPath, selectorHasInvalidLabelValue(old.Spec.Selector))...)
}

// ValidatePodDisruptionBudgetStatusUpdate validates an update of a PDB's
// status: well-formed conditions and non-negative counts.
func ValidatePodDisruptionBudgetStatusUpdate(pdb, old *policyv1.PodDisruptionBudget) field.ErrorList {
	allErrs := validateMetadataUpdate(pdb, old)
	s := &pdb.Status
	allErrs = append(allErrs, metavalidation.ValidateConditions(s.Conditions, statusPath.Child("conditions"))...)
	for _, f := range []struct {
		name  string
		value int32
	}{
		{"disruptionsAllowed", s.DisruptionsAllowed},
		{"currentHealthy", s.CurrentHealthy},
		{"desiredHealthy", s.DesiredHealthy},
		{"expectedPods", s.ExpectedPods},
	} {
		allErrs = append(allErrs, apivalidation.ValidateNonnegativeField(int64(f.value), statusPath.Child(f.name))...)
	}
	return allErrs
}

func validateMetadataUpdate(pdb, old *policyv1.PodDisruptionBudget) field.ErrorList {
	allErrs := apivalidation.ValidateObjectMeta(&pdb.ObjectMeta, true, path.ValidatePathSegmentName, metadataPath)
	return append(allErrs, apivalidation.ValidateObjectMetaUpdate(&pdb.ObjectMeta, &old.ObjectMeta, metadataPath)...)
}

func selectorHasInvalidLabelValue(s *metav1.LabelSelector) bool {
	return s != nil && len(metavalidation.ValidateLabelSelector(s, metavalidation.LabelSelectorValidationOptions{}, nil)) > 0
}

// validateSpec: at most one of minAvailable and maxUnavailable, each a
// non-negative count or a percentage up to 100%, a valid selector, a
// known unhealthy pod eviction policy.
func validateSpec(spec *policyv1.PodDisruptionBudgetSpec, fldPath *field.Path, allowInvalidLabelValue bool) field.ErrorList {
	var allErrs field.ErrorList
	if spec.MinAvailable != nil && spec.MaxUnavailable != nil {
		allErrs = append(allErrs, field.Invalid(fldPath, gofields.Value(spec), "minAvailable and maxUnavailable cannot be both set"))
	}
	if spec.MinAvailable != nil {
		allErrs = append(allErrs, validateIntOrPercent(*spec.MinAvailable, fldPath.Child("minAvailable"))...)
	}
	if spec.MaxUnavailable != nil {
		allErrs = append(allErrs, validateIntOrPercent(*spec.MaxUnavailable, fldPath.Child("maxUnavailable"))...)
	}
	opts := metavalidation.LabelSelectorValidationOptions{AllowInvalidLabelValueInSelector: allowInvalidLabelValue}
	allErrs = append(allErrs, metavalidation.ValidateLabelSelector(spec.Selector, opts, fldPath.Child("selector"))...)
	if p := spec.UnhealthyPodEvictionPolicy; p != nil && !slices.Contains(unhealthyPodEvictionPolicies, string(*p)) {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("unhealthyPodEvictionPolicy"), *p, unhealthyPodEvictionPolicies))
	}
	return allErrs
}

func validateIntOrPercent(v intstr.IntOrString, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	switch v.Type {
	case intstr.String:
		for _, msg := range validation.IsValidPercent(v.StrVal) {
			allErrs = append(allErrs, field.Invalid(fldPath, v, msg))
		}
		if len(allErrs) == 0 {
			if percent, _ := strconv.Atoi(v.StrVal[:len(v.StrVal)-1]); percent > 100 {
				allErrs = append(allErrs, field.Invalid(fldPath, v, "must not be greater than 100%"))
			}
		}
	case intstr.Int:
		allErrs = append(allErrs, apivalidation.ValidateNonnegativeField(int64(v.IntValue()), fldPath)...)
	default:
		allErrs = append(allErrs, field.Invalid(fldPath, v, "must be an integer or percentage (e.g '5%%')"))
	}
	return allErrs
}

// StripV1beta1Label removes the policy/v1beta1 marker from a selector, as
// kube-apiserver does when a v1 PDB's selector is set or changed, unless
// the selector is exactly one of the markers' forms.
func StripV1beta1Label(pdb, old *policyv1.PodDisruptionBudget) {
	sel := pdb.Spec.Selector
	if sel == nil || old != nil && apiequality.Semantic.DeepEqual(old.Spec.Selector, sel) {
		return
	}
	matchNone := &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: V1beta1Label, Operator: metav1.LabelSelectorOpExists}}}
	if apiequality.Semantic.DeepEqual(sel, &metav1.LabelSelector{}) || apiequality.Semantic.DeepEqual(sel, matchNone) {
		return
	}
	kept := sel.MatchExpressions[:0]
	for _, e := range sel.MatchExpressions {
		if e.Key != V1beta1Label {
			kept = append(kept, e)
		}
	}
	sel.MatchExpressions = kept
}
