package apps

import (
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metavalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/apis/core"
	"github.com/kapi-dev/kapi/pkg/apis/internal/gofields"
)

// ValidateDaemonSet validates a DaemonSet on create.
func ValidateDaemonSet(ds *appsv1.DaemonSet) field.ErrorList {
	allErrs := core.ValidateObjectMeta(&ds.ObjectMeta, true, apivalidation.NameIsDNSSubdomain, metadataPath)
	return append(allErrs, validateDaemonSetSpec(&ds.Spec, specPath, core.PodValidationOptions{})...)
}

// ValidateDaemonSetUpdate validates an update of a DaemonSet; its selector
// is immutable.
func ValidateDaemonSetUpdate(newDS, oldDS *appsv1.DaemonSet) field.ErrorList {
	allErrs := core.ValidateObjectMetaUpdate(&newDS.ObjectMeta, &oldDS.ObjectMeta, metadataPath)
	allErrs = append(allErrs, apivalidation.ValidateImmutableField(newDS.Spec.Selector, oldDS.Spec.Selector, specPath.Child("selector"))...)
	return append(allErrs, validateDaemonSetSpec(&newDS.Spec, specPath, core.PodTemplateValidationOptions(&oldDS.Spec.Template))...)
}

// ValidateDaemonSetStatusUpdate validates an update of a DaemonSet's
// status: counts are non-negative and the collision count never goes down.
func ValidateDaemonSetStatusUpdate(newDS, oldDS *appsv1.DaemonSet) field.ErrorList {
	allErrs := core.ValidateObjectMetaUpdate(&newDS.ObjectMeta, &oldDS.ObjectMeta, metadataPath)
	status := &newDS.Status
	allErrs = append(allErrs, nonNegative(statusPath,
		count{"currentNumberScheduled", int64(status.CurrentNumberScheduled)},
		count{"numberMisscheduled", int64(status.NumberMisscheduled)},
		count{"desiredNumberScheduled", int64(status.DesiredNumberScheduled)},
		count{"numberReady", int64(status.NumberReady)},
		count{"observedGeneration", status.ObservedGeneration},
		count{"updatedNumberScheduled", int64(status.UpdatedNumberScheduled)},
		count{"numberAvailable", int64(status.NumberAvailable)},
		count{"numberUnavailable", int64(status.NumberUnavailable)},
	)...)
	if status.CollisionCount != nil {
		allErrs = append(allErrs, apivalidation.ValidateNonnegativeField(int64(*status.CollisionCount), statusPath.Child("collisionCount"))...)
	}
	return append(allErrs, validateCollisionCount(status.CollisionCount, oldDS.Status.CollisionCount)...)
}

// validateDaemonSetSpec validates a DaemonSet's spec. Unlike the other
// workloads, a missing selector is not reported as such: it selects
// nothing, so the template's labels do not match it.
func validateDaemonSetSpec(spec *appsv1.DaemonSetSpec, fldPath *field.Path, opts core.PodValidationOptions) field.ErrorList {
	selectorPath := fldPath.Child("selector")
	allErrs := metavalidation.ValidateLabelSelector(spec.Selector, metavalidation.LabelSelectorValidationOptions{}, selectorPath)
	if selector, err := metav1.LabelSelectorAsSelector(spec.Selector); err == nil && !selector.Matches(labels.Set(spec.Template.Labels)) {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("template", "metadata", "labels"), spec.Template.Labels, "`selector` does not match template `labels`"))
	}
	if spec.Selector != nil && len(spec.Selector.MatchLabels)+len(spec.Selector.MatchExpressions) == 0 {
		allErrs = append(allErrs, field.Invalid(selectorPath, spec.Selector, "empty selector is invalid for daemonset"))
	}
	templatePath := fldPath.Child("template")
	allErrs = append(allErrs, core.ValidatePodTemplateSpecWithOptions(&spec.Template, templatePath, opts)...)
	allErrs = append(allErrs, validateRestartPolicyAlways(&spec.Template.Spec, templatePath.Child("spec"), "DaemonSet")...)
	allErrs = append(allErrs, apivalidation.ValidateNonnegativeField(int64(spec.MinReadySeconds), fldPath.Child("minReadySeconds"))...)
	allErrs = append(allErrs, validateDaemonSetUpdateStrategy(&spec.UpdateStrategy, fldPath.Child("updateStrategy"))...)
	if spec.RevisionHistoryLimit != nil {
		// Zero is valid: keep no old revisions.
		allErrs = append(allErrs, apivalidation.ValidateNonnegativeField(int64(*spec.RevisionHistoryLimit), fldPath.Child("revisionHistoryLimit"))...)
	}
	return allErrs
}

// validateRestartPolicyAlways requires the pods of a controller to run for
// ever. An invalid restart policy has been reported by the pod spec's
// validation already; this is about valid ones other than Always.
func validateRestartPolicyAlways(spec *v1.PodSpec, fldPath *field.Path, kind string) field.ErrorList {
	var allErrs field.ErrorList
	if spec.RestartPolicy != v1.RestartPolicyAlways {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("restartPolicy"), spec.RestartPolicy, []string{string(v1.RestartPolicyAlways)}))
	}
	if spec.ActiveDeadlineSeconds != nil {
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("activeDeadlineSeconds"), "activeDeadlineSeconds in "+kind+" is not Supported"))
	}
	return allErrs
}

func validateDaemonSetUpdateStrategy(s *appsv1.DaemonSetUpdateStrategy, fldPath *field.Path) field.ErrorList {
	switch s.Type {
	case appsv1.OnDeleteDaemonSetStrategyType:
	case appsv1.RollingUpdateDaemonSetStrategyType:
		if s.RollingUpdate == nil {
			return field.ErrorList{field.Required(fldPath.Child("rollingUpdate"), "")}
		}
		return validateRollingUpdateDaemonSet(s.RollingUpdate, fldPath.Child("rollingUpdate"))
	default:
		valid := []string{string(appsv1.RollingUpdateDaemonSetStrategyType), string(appsv1.OnDeleteDaemonSetStrategyType)}
		return field.ErrorList{field.NotSupported(fldPath, gofields.Value(s), valid)}
	}
	return nil
}

// validateRollingUpdateDaemonSet requires a rolling update to either
// surge or take pods down, not both: a node runs at most two of the
// daemon's pods.
func validateRollingUpdateDaemonSet(ru *appsv1.RollingUpdateDaemonSet, fldPath *field.Path) field.ErrorList {
	maxUnavailable, maxSurge := intOrZero(ru.MaxUnavailable), intOrZero(ru.MaxSurge)
	unavailablePath, surgePath := fldPath.Child("maxUnavailable"), fldPath.Child("maxSurge")
	allErrs := validatePositiveIntOrPercent(maxUnavailable, unavailablePath)
	allErrs = append(allErrs, validatePositiveIntOrPercent(maxSurge, surgePath)...)
	allErrs = append(allErrs, notMoreThan100Percent(maxUnavailable, unavailablePath)...)
	allErrs = append(allErrs, notMoreThan100Percent(maxSurge, surgePath)...)
	hasUnavailable, hasSurge := intOrPercentValue(maxUnavailable) != 0, intOrPercentValue(maxSurge) != 0
	switch {
	case hasUnavailable && hasSurge:
		allErrs = append(allErrs, field.Invalid(surgePath, maxSurge, "may not be set when maxUnavailable is non-zero"))
	case !hasUnavailable && !hasSurge:
		allErrs = append(allErrs, field.Required(unavailablePath, "cannot be 0 when maxSurge is 0"))
	}
	return allErrs
}
