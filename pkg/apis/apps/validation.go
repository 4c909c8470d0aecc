package apps

import (
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metavalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/apis/core"
)

var (
	metadataPath = field.NewPath("metadata")
	specPath     = field.NewPath("spec")
	statusPath   = field.NewPath("status")
)

// ValidateDeployment validates a Deployment on create.
func ValidateDeployment(d *appsv1.Deployment) field.ErrorList {
	allErrs := core.ValidateObjectMeta(&d.ObjectMeta, true, apivalidation.NameIsDNSSubdomain, metadataPath)
	return append(allErrs, validateDeploymentSpec(&d.Spec, specPath, core.PodValidationOptions{})...)
}

// ValidateDeploymentUpdate validates an update of a Deployment. In apps/v1
// the selector is immutable: changing it would orphan the existing pods.
func ValidateDeploymentUpdate(newD, oldD *appsv1.Deployment) field.ErrorList {
	allErrs := core.ValidateObjectMetaUpdate(&newD.ObjectMeta, &oldD.ObjectMeta, metadataPath)
	allErrs = append(allErrs, validateDeploymentSpec(&newD.Spec, specPath, core.PodTemplateValidationOptions(&oldD.Spec.Template))...)
	return append(allErrs, apivalidation.ValidateImmutableField(newD.Spec.Selector, oldD.Spec.Selector, specPath.Child("selector"))...)
}

// ValidateDeploymentStatusUpdate validates an update of a Deployment's
// status: counts are non-negative and consistent, and the collision count
// never goes down (it feeds the names of new ReplicaSets).
func ValidateDeploymentStatusUpdate(newD, oldD *appsv1.Deployment) field.ErrorList {
	allErrs := core.ValidateObjectMetaUpdate(&newD.ObjectMeta, &oldD.ObjectMeta, metadataPath)
	allErrs = append(allErrs, validateDeploymentStatus(&newD.Status, statusPath)...)
	if isDecremented(newD.Status.CollisionCount, oldD.Status.CollisionCount) {
		value := int32(0)
		if newD.Status.CollisionCount != nil {
			value = *newD.Status.CollisionCount
		}
		allErrs = append(allErrs, field.Invalid(statusPath.Child("collisionCount"), value, "cannot be decremented"))
	}
	return allErrs
}

func validateDeploymentSpec(spec *appsv1.DeploymentSpec, fldPath *field.Path, opts core.PodValidationOptions) field.ErrorList {
	var allErrs field.ErrorList
	if spec.Replicas != nil {
		allErrs = append(allErrs, apivalidation.ValidateNonnegativeField(int64(*spec.Replicas), fldPath.Child("replicas"))...)
	}
	selectorPath := fldPath.Child("selector")
	if spec.Selector == nil {
		allErrs = append(allErrs, field.Required(selectorPath, ""))
	} else {
		allErrs = append(allErrs, metavalidation.ValidateLabelSelector(spec.Selector, metavalidation.LabelSelectorValidationOptions{}, selectorPath)...)
		if len(spec.Selector.MatchLabels)+len(spec.Selector.MatchExpressions) == 0 {
			allErrs = append(allErrs, field.Invalid(selectorPath, spec.Selector, "empty selector is invalid for deployment"))
		}
	}
	if selector, err := metav1.LabelSelectorAsSelector(spec.Selector); err != nil {
		allErrs = append(allErrs, field.Invalid(selectorPath, spec.Selector, "invalid label selector"))
	} else {
		allErrs = append(allErrs, validatePodTemplate(&spec.Template, selector, fldPath.Child("template"), opts)...)
	}
	allErrs = append(allErrs, validateStrategy(&spec.Strategy, fldPath.Child("strategy"))...)
	allErrs = append(allErrs, apivalidation.ValidateNonnegativeField(int64(spec.MinReadySeconds), fldPath.Child("minReadySeconds"))...)
	if spec.RevisionHistoryLimit != nil {
		// Zero is valid: keep no old ReplicaSets.
		allErrs = append(allErrs, apivalidation.ValidateNonnegativeField(int64(*spec.RevisionHistoryLimit), fldPath.Child("revisionHistoryLimit"))...)
	}
	if deadline := spec.ProgressDeadlineSeconds; deadline != nil {
		deadlinePath := fldPath.Child("progressDeadlineSeconds")
		allErrs = append(allErrs, apivalidation.ValidateNonnegativeField(int64(*deadline), deadlinePath)...)
		if *deadline <= spec.MinReadySeconds {
			allErrs = append(allErrs, field.Invalid(deadlinePath, deadline, "must be greater than minReadySeconds"))
		}
	}
	return allErrs
}

// validatePodTemplate validates the pod template of a Deployment or a
// ReplicaSet: it must carry the labels the selector looks for, and
// describe pods that run for ever. opts are those of the old template on
// an update.
func validatePodTemplate(template *v1.PodTemplateSpec, selector labels.Selector, fldPath *field.Path, opts core.PodValidationOptions) field.ErrorList {
	var allErrs field.ErrorList
	if !selector.Empty() && !selector.Matches(labels.Set(template.Labels)) {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("metadata", "labels"), template.Labels, "`selector` does not match template `labels`"))
	}
	allErrs = append(allErrs, core.ValidatePodTemplateSpecWithOptions(template, fldPath, opts)...)
	return append(allErrs, validateRestartPolicyAlways(&template.Spec, fldPath.Child("spec"), "ReplicaSet")...)
}

// strategyValue and rollingUpdateValue render a strategy in an error the
// way kube-apiserver does: with the Go field names of its internal type,
// which has no JSON tags.
type strategyValue struct {
	Type          appsv1.DeploymentStrategyType
	RollingUpdate *rollingUpdateValue
}

type rollingUpdateValue struct {
	MaxUnavailable intstr.IntOrString
	MaxSurge       intstr.IntOrString
}

func toStrategyValue(s *appsv1.DeploymentStrategy) strategyValue {
	value := strategyValue{Type: s.Type}
	if ru := s.RollingUpdate; ru != nil {
		value.RollingUpdate = &rollingUpdateValue{}
		if ru.MaxUnavailable != nil {
			value.RollingUpdate.MaxUnavailable = *ru.MaxUnavailable
		}
		if ru.MaxSurge != nil {
			value.RollingUpdate.MaxSurge = *ru.MaxSurge
		}
	}
	return value
}

func validateStrategy(s *appsv1.DeploymentStrategy, fldPath *field.Path) field.ErrorList {
	switch s.Type {
	case appsv1.RecreateDeploymentStrategyType:
		if s.RollingUpdate != nil {
			return field.ErrorList{field.Forbidden(fldPath.Child("rollingUpdate"), "may not be specified when strategy `type` is 'Recreate'")}
		}
	case appsv1.RollingUpdateDeploymentStrategyType:
		if s.RollingUpdate == nil {
			return field.ErrorList{field.Required(fldPath.Child("rollingUpdate"), "this should be defaulted and never be nil")}
		}
		return validateRollingUpdate(s.RollingUpdate, fldPath.Child("rollingUpdate"))
	default:
		valid := []string{string(appsv1.RecreateDeploymentStrategyType), string(appsv1.RollingUpdateDeploymentStrategyType)}
		return field.ErrorList{field.NotSupported(fldPath, toStrategyValue(s), valid)}
	}
	return nil
}

// validateRollingUpdate requires the rollout to make progress: surge and
// unavailability cannot both be zero, and no more than all pods may be
// unavailable.
func validateRollingUpdate(ru *appsv1.RollingUpdateDeployment, fldPath *field.Path) field.ErrorList {
	var maxUnavailable, maxSurge intstr.IntOrString
	if ru.MaxUnavailable != nil {
		maxUnavailable = *ru.MaxUnavailable
	}
	if ru.MaxSurge != nil {
		maxSurge = *ru.MaxSurge
	}
	unavailablePath := fldPath.Child("maxUnavailable")
	allErrs := validatePositiveIntOrPercent(maxUnavailable, unavailablePath)
	allErrs = append(allErrs, validatePositiveIntOrPercent(maxSurge, fldPath.Child("maxSurge"))...)
	if intOrPercentValue(maxUnavailable) == 0 && intOrPercentValue(maxSurge) == 0 {
		allErrs = append(allErrs, field.Invalid(unavailablePath, maxUnavailable, "may not be 0 when `maxSurge` is 0"))
	}
	if percent, ok := percentValue(maxUnavailable); ok && percent > 100 {
		allErrs = append(allErrs, field.Invalid(unavailablePath, maxUnavailable, "must not be greater than 100%"))
	}
	return allErrs
}

func validatePositiveIntOrPercent(v intstr.IntOrString, fldPath *field.Path) field.ErrorList {
	switch v.Type {
	case intstr.String:
		var allErrs field.ErrorList
		for _, msg := range validation.IsValidPercent(v.StrVal) {
			allErrs = append(allErrs, field.Invalid(fldPath, v, msg))
		}
		return allErrs
	case intstr.Int:
		return apivalidation.ValidateNonnegativeField(int64(v.IntValue()), fldPath)
	}
	return field.ErrorList{field.Invalid(fldPath, v, "must be an integer or percentage (e.g '5%%')")}
}

// percentValue returns the number of a valid percentage such as "25%".
func percentValue(v intstr.IntOrString) (int, bool) {
	if v.Type != intstr.String || len(validation.IsValidPercent(v.StrVal)) != 0 {
		return 0, false
	}
	value, _ := strconv.Atoi(v.StrVal[:len(v.StrVal)-1])
	return value, true
}

func intOrPercentValue(v intstr.IntOrString) int {
	if percent, ok := percentValue(v); ok {
		return percent
	}
	return v.IntValue()
}

func validateDeploymentStatus(status *appsv1.DeploymentStatus, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for _, f := range []struct {
		name  string
		value int64
	}{
		{"observedGeneration", status.ObservedGeneration},
		{"replicas", int64(status.Replicas)},
		{"updatedReplicas", int64(status.UpdatedReplicas)},
		{"readyReplicas", int64(status.ReadyReplicas)},
		{"availableReplicas", int64(status.AvailableReplicas)},
		{"unavailableReplicas", int64(status.UnavailableReplicas)},
	} {
		allErrs = append(allErrs, apivalidation.ValidateNonnegativeField(f.value, fldPath.Child(f.name))...)
	}
	if status.TerminatingReplicas != nil {
		allErrs = append(allErrs, apivalidation.ValidateNonnegativeField(int64(*status.TerminatingReplicas), fldPath.Child("terminatingReplicas"))...)
	}
	if status.CollisionCount != nil {
		allErrs = append(allErrs, apivalidation.ValidateNonnegativeField(int64(*status.CollisionCount), fldPath.Child("collisionCount"))...)
	}
	const msg = "cannot be greater than status.replicas"
	if status.UpdatedReplicas > status.Replicas {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("updatedReplicas"), status.UpdatedReplicas, msg))
	}
	if status.ReadyReplicas > status.Replicas {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("readyReplicas"), status.ReadyReplicas, msg))
	}
	if status.AvailableReplicas > status.Replicas {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("availableReplicas"), status.AvailableReplicas, msg))
	}
	if status.AvailableReplicas > status.ReadyReplicas {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("availableReplicas"), status.AvailableReplicas, "cannot be greater than readyReplicas"))
	}
	return allErrs
}

func isDecremented(newValue, oldValue *int32) bool {
	if newValue == nil {
		return oldValue != nil
	}
	return oldValue != nil && *newValue < *oldValue
}

// notMoreThan100Percent refuses a percentage above 100%.
func notMoreThan100Percent(v intstr.IntOrString, fldPath *field.Path) field.ErrorList {
	if percent, ok := percentValue(v); ok && percent > 100 {
		return field.ErrorList{field.Invalid(fldPath, v, "must not be greater than 100%")}
	}
	return nil
}

// intOrZero is the value of an optional int-or-percent, zero when unset
// (the internal type has no pointer).
func intOrZero(v *intstr.IntOrString) intstr.IntOrString {
	if v == nil {
		return intstr.IntOrString{}
	}
	return *v
}
