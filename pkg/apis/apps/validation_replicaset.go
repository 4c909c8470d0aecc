package apps

import (
	appsv1 "k8s.io/api/apps/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metavalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/apis/core"
)

// ValidateReplicaSet validates a ReplicaSet on create.
func ValidateReplicaSet(rs *appsv1.ReplicaSet) field.ErrorList {
	allErrs := core.ValidateObjectMeta(&rs.ObjectMeta, true, apivalidation.NameIsDNSSubdomain, metadataPath)
	return append(allErrs, validateReplicaSetSpec(&rs.Spec, specPath, core.PodValidationOptions{})...)
}

// ValidateReplicaSetUpdate validates an update of a ReplicaSet. In apps/v1
// the selector is immutable: changing it would orphan the existing pods.
func ValidateReplicaSetUpdate(newRS, oldRS *appsv1.ReplicaSet) field.ErrorList {
	allErrs := core.ValidateObjectMetaUpdate(&newRS.ObjectMeta, &oldRS.ObjectMeta, metadataPath)
	allErrs = append(allErrs, validateReplicaSetSpec(&newRS.Spec, specPath, core.PodTemplateValidationOptions(&oldRS.Spec.Template))...)
	return append(allErrs, apivalidation.ValidateImmutableField(newRS.Spec.Selector, oldRS.Spec.Selector, specPath.Child("selector"))...)
}

// ValidateReplicaSetStatusUpdate validates an update of a ReplicaSet's
// status: counts are non-negative and consistent.
func ValidateReplicaSetStatusUpdate(newRS, oldRS *appsv1.ReplicaSet) field.ErrorList {
	allErrs := core.ValidateObjectMetaUpdate(&newRS.ObjectMeta, &oldRS.ObjectMeta, metadataPath)
	status := &newRS.Status
	allErrs = append(allErrs, nonNegative(statusPath,
		count{"replicas", int64(status.Replicas)},
		count{"fullyLabeledReplicas", int64(status.FullyLabeledReplicas)},
		count{"readyReplicas", int64(status.ReadyReplicas)},
		count{"availableReplicas", int64(status.AvailableReplicas)},
		count{"observedGeneration", status.ObservedGeneration},
	)...)
	if status.TerminatingReplicas != nil {
		allErrs = append(allErrs, apivalidation.ValidateNonnegativeField(int64(*status.TerminatingReplicas), statusPath.Child("terminatingReplicas"))...)
	}
	const msg = "cannot be greater than status.replicas"
	if status.FullyLabeledReplicas > status.Replicas {
		allErrs = append(allErrs, field.Invalid(statusPath.Child("fullyLabeledReplicas"), status.FullyLabeledReplicas, msg))
	}
	if status.ReadyReplicas > status.Replicas {
		allErrs = append(allErrs, field.Invalid(statusPath.Child("readyReplicas"), status.ReadyReplicas, msg))
	}
	if status.AvailableReplicas > status.Replicas {
		allErrs = append(allErrs, field.Invalid(statusPath.Child("availableReplicas"), status.AvailableReplicas, msg))
	}
	if status.AvailableReplicas > status.ReadyReplicas {
		allErrs = append(allErrs, field.Invalid(statusPath.Child("availableReplicas"), status.AvailableReplicas, "cannot be greater than readyReplicas"))
	}
	return allErrs
}

func validateReplicaSetSpec(spec *appsv1.ReplicaSetSpec, fldPath *field.Path, opts core.PodValidationOptions) field.ErrorList {
	var allErrs field.ErrorList
	if spec.Replicas != nil {
		allErrs = append(allErrs, apivalidation.ValidateNonnegativeField(int64(*spec.Replicas), fldPath.Child("replicas"))...)
	}
	allErrs = append(allErrs, apivalidation.ValidateNonnegativeField(int64(spec.MinReadySeconds), fldPath.Child("minReadySeconds"))...)
	selectorPath := fldPath.Child("selector")
	if spec.Selector == nil {
		allErrs = append(allErrs, field.Required(selectorPath, ""))
	} else {
		allErrs = append(allErrs, metavalidation.ValidateLabelSelector(spec.Selector, metavalidation.LabelSelectorValidationOptions{}, selectorPath)...)
		// kube-apiserver says "deployment" here too.
		if len(spec.Selector.MatchLabels)+len(spec.Selector.MatchExpressions) == 0 {
			allErrs = append(allErrs, field.Invalid(selectorPath, spec.Selector, "empty selector is invalid for deployment"))
		}
	}
	if selector, err := metav1.LabelSelectorAsSelector(spec.Selector); err != nil {
		allErrs = append(allErrs, field.Invalid(selectorPath, spec.Selector, "invalid label selector"))
	} else {
		allErrs = append(allErrs, validatePodTemplate(&spec.Template, selector, fldPath.Child("template"), opts)...)
	}
	return allErrs
}

// count is a named counter of a status, which may not be negative.
type count struct {
	name  string
	value int64
}

func nonNegative(fldPath *field.Path, counts ...count) field.ErrorList {
	var allErrs field.ErrorList
	for _, c := range counts {
		allErrs = append(allErrs, apivalidation.ValidateNonnegativeField(c.value, fldPath.Child(c.name))...)
	}
	return allErrs
}

// validateCollisionCount refuses a collision count that goes down: it
// feeds the names of the controller's revisions.
func validateCollisionCount(newCount, oldCount *int32) field.ErrorList {
	if !isDecremented(newCount, oldCount) {
		return nil
	}
	value := int32(0)
	if newCount != nil {
		value = *newCount
	}
	return field.ErrorList{field.Invalid(statusPath.Child("collisionCount"), value, "cannot be decremented")}
}
