package core

import (
	v1 "k8s.io/api/core/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ValidatePodTemplate validates a PodTemplate object.
func ValidatePodTemplate(pt *v1.PodTemplate) field.ErrorList {
	allErrs := ValidateObjectMeta(&pt.ObjectMeta, true, apivalidation.NameIsDNSSubdomain, metadataPath)
	return append(allErrs, ValidatePodTemplateSpec(&pt.Template, field.NewPath("template"))...)
}

// ValidatePodTemplateUpdate validates an update of a PodTemplate: any
// change of the template is allowed.
func ValidatePodTemplateUpdate(pt, old *v1.PodTemplate) field.ErrorList {
	allErrs := ValidateObjectMetaUpdate(&pt.ObjectMeta, &old.ObjectMeta, metadataPath)
	return append(allErrs, ValidatePodTemplateSpecWithOptions(&pt.Template, field.NewPath("template"), PodTemplateValidationOptions(&old.Template))...)
}

// ValidateReplicationController validates a controller on create.
func ValidateReplicationController(rc *v1.ReplicationController) field.ErrorList {
	allErrs := validateReplicas(rc.Spec.Replicas)
	allErrs = append(allErrs, ValidateObjectMeta(&rc.ObjectMeta, true, apivalidation.NameIsDNSSubdomain, metadataPath)...)
	return append(allErrs, validateReplicationControllerSpec(&rc.Spec, specPath, PodValidationOptions{})...)
}

// ValidateReplicationControllerUpdate validates an update: the same rules
// as on create, everything in the spec may change.
func ValidateReplicationControllerUpdate(rc, old *v1.ReplicationController) field.ErrorList {
	allErrs := validateReplicas(rc.Spec.Replicas)
	allErrs = append(allErrs, ValidateObjectMetaUpdate(&rc.ObjectMeta, &old.ObjectMeta, metadataPath)...)
	return append(allErrs, validateReplicationControllerSpec(&rc.Spec, specPath, PodTemplateValidationOptions(old.Spec.Template))...)
}

// validateReplicas checks spec.replicas, a rule kube-apiserver declares on
// the type (+k8s:minimum=0): its error comes before the others.
func validateReplicas(replicas *int32) field.ErrorList {
	if replicas == nil {
		return nil
	}
	return apivalidation.ValidateNonnegativeField(int64(*replicas), specPath.Child("replicas"))
}

// ValidateReplicationControllerStatusUpdate validates a write of /status:
// counts are not negative, and none exceeds the number of replicas.
func ValidateReplicationControllerStatusUpdate(rc, old *v1.ReplicationController) field.ErrorList {
	allErrs := ValidateObjectMetaUpdate(&rc.ObjectMeta, &old.ObjectMeta, metadataPath)
	s := &rc.Status
	for _, f := range []struct {
		name  string
		value int64
	}{
		{"replicas", int64(s.Replicas)}, {"fullyLabeledReplicas", int64(s.FullyLabeledReplicas)},
		{"readyReplicas", int64(s.ReadyReplicas)}, {"availableReplicas", int64(s.AvailableReplicas)},
		{"observedGeneration", s.ObservedGeneration},
	} {
		allErrs = append(allErrs, apivalidation.ValidateNonnegativeField(f.value, statusPath.Child(f.name))...)
	}
	const msg = "cannot be greater than status.replicas"
	if s.FullyLabeledReplicas > s.Replicas {
		allErrs = append(allErrs, field.Invalid(statusPath.Child("fullyLabeledReplicas"), s.FullyLabeledReplicas, msg))
	}
	if s.ReadyReplicas > s.Replicas {
		allErrs = append(allErrs, field.Invalid(statusPath.Child("readyReplicas"), s.ReadyReplicas, msg))
	}
	if s.AvailableReplicas > s.Replicas {
		allErrs = append(allErrs, field.Invalid(statusPath.Child("availableReplicas"), s.AvailableReplicas, msg))
	}
	if s.AvailableReplicas > s.ReadyReplicas {
		allErrs = append(allErrs, field.Invalid(statusPath.Child("availableReplicas"), s.AvailableReplicas, "cannot be greater than readyReplicas"))
	}
	return allErrs
}

// validateReplicationControllerSpec requires a non-empty selector that
// matches the template's labels, and a template whose pods restart
// always and have no deadline.
func validateReplicationControllerSpec(spec *v1.ReplicationControllerSpec, fldPath *field.Path, opts PodValidationOptions) field.ErrorList {
	allErrs := apivalidation.ValidateNonnegativeField(int64(spec.MinReadySeconds), fldPath.Child("minReadySeconds"))
	selector := labels.Set(spec.Selector).AsSelector()
	if selector.Empty() {
		allErrs = append(allErrs, field.Required(fldPath.Child("selector"), ""))
	}

	templatePath := fldPath.Child("template")
	t := spec.Template
	if t == nil {
		return append(allErrs, field.Required(templatePath, ""))
	}
	if !selector.Empty() && !selector.Matches(labels.Set(t.Labels)) {
		allErrs = append(allErrs, field.Invalid(templatePath.Child("metadata", "labels"), t.Labels, "`selector` does not match template `labels`"))
	}
	allErrs = append(allErrs, ValidatePodTemplateSpecWithOptions(t, templatePath, opts)...)
	if t.Spec.RestartPolicy != v1.RestartPolicyAlways {
		allErrs = append(allErrs, field.NotSupported(templatePath.Child("spec", "restartPolicy"), t.Spec.RestartPolicy, []v1.RestartPolicy{v1.RestartPolicyAlways}))
	}
	if t.Spec.ActiveDeadlineSeconds != nil {
		allErrs = append(allErrs, field.Forbidden(templatePath.Child("spec", "activeDeadlineSeconds"), "activeDeadlineSeconds in ReplicationController is not Supported"))
	}
	return allErrs
}
