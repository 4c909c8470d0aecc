package apps

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metavalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/apis/core"
	"github.com/kapi-dev/kapi/pkg/apis/internal/gofields"
)

// statefulSetRatchet says which parts of a StatefulSet an update left as
// they were, so that what was accepted once is not refused now that the
// rules are stricter (kube-apiserver's ratcheting).
type statefulSetRatchet struct {
	serviceName, template, claimTemplates bool
	// podOptions are those of the old pod template.
	podOptions core.PodValidationOptions
}

// ValidateStatefulSet validates a StatefulSet on create. Its name becomes
// the prefix of its pods' host names, so it must be a DNS label.
func ValidateStatefulSet(ss *appsv1.StatefulSet) field.ErrorList {
	allErrs := core.ValidateObjectMeta(&ss.ObjectMeta, true, apivalidation.NameIsDNSLabel, metadataPath)
	return append(allErrs, validateStatefulSetSpec(&ss.Spec, specPath, statefulSetRatchet{})...)
}

// ValidateStatefulSetUpdate validates an update of a StatefulSet. The
// selector, the claim templates, the service name and the pod management
// policy are immutable; the name is not validated again (it was once
// allowed to be a DNS subdomain).
func ValidateStatefulSetUpdate(newSS, oldSS *appsv1.StatefulSet) field.ErrorList {
	allErrs := core.ValidateObjectMetaUpdate(&newSS.ObjectMeta, &oldSS.ObjectMeta, metadataPath)
	newSpec, oldSpec := &newSS.Spec, &oldSS.Spec
	unchanged := statefulSetRatchet{
		serviceName:    newSpec.ServiceName == oldSpec.ServiceName,
		claimTemplates: apiequality.Semantic.DeepEqual(untyped(newSpec.VolumeClaimTemplates), untyped(oldSpec.VolumeClaimTemplates)),
		podOptions:     core.PodTemplateValidationOptions(&oldSpec.Template),
	}
	unchanged.template = unchanged.claimTemplates && apiequality.Semantic.DeepEqual(newSpec.Template, oldSpec.Template)
	allErrs = append(allErrs, validateStatefulSetSpec(newSpec, specPath, unchanged)...)
	allErrs = append(allErrs, apivalidation.ValidateImmutableField(newSpec.Selector, oldSpec.Selector, specPath.Child("selector"))...)
	if !unchanged.claimTemplates {
		allErrs = append(allErrs, field.Invalid(specPath.Child("volumeClaimTemplates"), claimTemplatesValue(newSpec.VolumeClaimTemplates), apivalidation.FieldImmutableErrorMsg))
	}
	allErrs = append(allErrs, apivalidation.ValidateImmutableField(newSpec.ServiceName, oldSpec.ServiceName, specPath.Child("serviceName"))...)
	return append(allErrs, apivalidation.ValidateImmutableField(newSpec.PodManagementPolicy, oldSpec.PodManagementPolicy, specPath.Child("podManagementPolicy"))...)
}

// claimTemplatesValue renders claim templates as kube-apiserver does in
// an error: its internal claims, which carry no apiVersion and kind.
func claimTemplatesValue(templates []v1.PersistentVolumeClaim) any {
	return gofields.Value(untyped(templates))
}

// untyped is claim templates without their apiVersion and kind, which
// only the encoding of a StatefulSet has.
func untyped(templates []v1.PersistentVolumeClaim) []v1.PersistentVolumeClaim {
	if templates == nil {
		return nil
	}
	bare := make([]v1.PersistentVolumeClaim, len(templates))
	for i := range templates {
		bare[i] = templates[i]
		bare[i].TypeMeta = metav1.TypeMeta{}
	}
	return bare
}

// ValidateStatefulSetStatusUpdate validates an update of a StatefulSet's
// status: counts are non-negative and consistent, and the collision count
// never goes down.
func ValidateStatefulSetStatusUpdate(newSS, oldSS *appsv1.StatefulSet) field.ErrorList {
	status := &newSS.Status
	allErrs := nonNegative(statusPath,
		count{"replicas", int64(status.Replicas)},
		count{"readyReplicas", int64(status.ReadyReplicas)},
		count{"currentReplicas", int64(status.CurrentReplicas)},
		count{"updatedReplicas", int64(status.UpdatedReplicas)},
		count{"availableReplicas", int64(status.AvailableReplicas)},
		count{"observedGeneration", status.ObservedGeneration},
	)
	if status.CollisionCount != nil {
		allErrs = append(allErrs, apivalidation.ValidateNonnegativeField(int64(*status.CollisionCount), statusPath.Child("collisionCount"))...)
	}
	const msg = "cannot be greater than status.replicas"
	if status.ReadyReplicas > status.Replicas {
		allErrs = append(allErrs, field.Invalid(statusPath.Child("readyReplicas"), status.ReadyReplicas, msg))
	}
	if status.CurrentReplicas > status.Replicas {
		allErrs = append(allErrs, field.Invalid(statusPath.Child("currentReplicas"), status.CurrentReplicas, msg))
	}
	if status.UpdatedReplicas > status.Replicas {
		allErrs = append(allErrs, field.Invalid(statusPath.Child("updatedReplicas"), status.UpdatedReplicas, msg))
	}
	if status.AvailableReplicas > status.Replicas {
		allErrs = append(allErrs, field.Invalid(statusPath.Child("availableReplicas"), status.AvailableReplicas, msg))
	}
	if status.AvailableReplicas > status.ReadyReplicas {
		allErrs = append(allErrs, field.Invalid(statusPath.Child("availableReplicas"), status.AvailableReplicas, "cannot be greater than status.readyReplicas"))
	}
	allErrs = append(allErrs, core.ValidateObjectMetaUpdate(&newSS.ObjectMeta, &oldSS.ObjectMeta, metadataPath)...)
	return append(allErrs, validateCollisionCount(status.CollisionCount, oldSS.Status.CollisionCount)...)
}

// StatefulSetWarnings are the warnings kube-apiserver gives about a
// StatefulSet it accepts.
func StatefulSetWarnings(ss *appsv1.StatefulSet) []string {
	if limit := ss.Spec.RevisionHistoryLimit; limit != nil && *limit < 0 {
		return []string{"spec.revisionHistoryLimit: a negative value retains all historical revisions; a value >= 0 is recommended"}
	}
	return nil
}

func validateStatefulSetSpec(spec *appsv1.StatefulSetSpec, fldPath *field.Path, unchanged statefulSetRatchet) field.ErrorList {
	var allErrs field.ErrorList
	switch spec.PodManagementPolicy {
	case "":
		allErrs = append(allErrs, field.Required(fldPath.Child("podManagementPolicy"), ""))
	case appsv1.OrderedReadyPodManagement, appsv1.ParallelPodManagement:
	default:
		allErrs = append(allErrs, field.Invalid(fldPath.Child("podManagementPolicy"), spec.PodManagementPolicy,
			fmt.Sprintf("must be '%s' or '%s'", appsv1.OrderedReadyPodManagement, appsv1.ParallelPodManagement)))
	}
	allErrs = append(allErrs, validateStatefulSetUpdateStrategy(&spec.UpdateStrategy, fldPath.Child("updateStrategy"))...)
	if policy := spec.PersistentVolumeClaimRetentionPolicy; policy != nil {
		policyPath := fldPath.Child("persistentVolumeClaimRetentionPolicy")
		allErrs = append(allErrs, validateRetentionPolicyType(policy.WhenDeleted, policyPath.Child("whenDeleted"))...)
		allErrs = append(allErrs, validateRetentionPolicyType(policy.WhenScaled, policyPath.Child("whenScaled"))...)
	}
	if !unchanged.claimTemplates {
		for i := range spec.VolumeClaimTemplates {
			allErrs = append(allErrs, core.ValidatePersistentVolumeClaimSpec(&spec.VolumeClaimTemplates[i].Spec, fldPath.Child("volumeClaimTemplates").Index(i).Child("spec"))...)
		}
	}
	if spec.Replicas != nil {
		allErrs = append(allErrs, apivalidation.ValidateNonnegativeField(int64(*spec.Replicas), fldPath.Child("replicas"))...)
	}
	allErrs = append(allErrs, apivalidation.ValidateNonnegativeField(int64(spec.MinReadySeconds), fldPath.Child("minReadySeconds"))...)
	if spec.Ordinals != nil {
		allErrs = append(allErrs, apivalidation.ValidateNonnegativeField(int64(spec.Ordinals.Start), fldPath.Child("ordinals", "start"))...)
	}
	selectorPath := fldPath.Child("selector")
	if spec.Selector == nil {
		allErrs = append(allErrs, field.Required(selectorPath, ""))
	} else {
		allErrs = append(allErrs, metavalidation.ValidateLabelSelector(spec.Selector, metavalidation.LabelSelectorValidationOptions{}, selectorPath)...)
		if len(spec.Selector.MatchLabels)+len(spec.Selector.MatchExpressions) == 0 {
			allErrs = append(allErrs, field.Invalid(selectorPath, spec.Selector, "empty selector is invalid for statefulset"))
		}
	}
	if spec.ServiceName != "" && !unchanged.serviceName {
		for _, msg := range validation.IsDNS1123Label(spec.ServiceName) {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("serviceName"), spec.ServiceName, msg))
		}
	}
	templatePath := fldPath.Child("template")
	if selector, err := metav1.LabelSelectorAsSelector(spec.Selector); err != nil {
		allErrs = append(allErrs, field.Invalid(selectorPath, spec.Selector, ""))
	} else {
		allErrs = append(allErrs, validateStatefulSetTemplate(spec, selector, templatePath, unchanged.template, unchanged.podOptions)...)
	}
	return append(allErrs, validateRestartPolicyAlways(&spec.Template.Spec, templatePath.Child("spec"), "StatefulSet")...)
}

// validateStatefulSetTemplate validates the pod template of a StatefulSet,
// whose pods also have a volume for each claim template: a container may
// mount one.
func validateStatefulSetTemplate(spec *appsv1.StatefulSetSpec, selector labels.Selector, fldPath *field.Path, unchanged bool, opts core.PodValidationOptions) field.ErrorList {
	var allErrs field.ErrorList
	template := &spec.Template
	if !selector.Empty() && !selector.Matches(labels.Set(template.Labels)) {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("metadata", "labels"), template.Labels, "`selector` does not match template `labels`"))
	}
	if unchanged {
		return allErrs
	}
	// A claim takes the place of a template volume of the same name.
	withClaims := template.DeepCopy()
	volumes := map[string]int{}
	for i, volume := range withClaims.Spec.Volumes {
		volumes[volume.Name] = i
	}
	for _, claim := range spec.VolumeClaimTemplates {
		volume := v1.Volume{
			Name:         claim.Name,
			VolumeSource: v1.VolumeSource{PersistentVolumeClaim: &v1.PersistentVolumeClaimVolumeSource{ClaimName: claim.Name}},
		}
		if i, ok := volumes[claim.Name]; ok {
			withClaims.Spec.Volumes[i] = volume
			continue
		}
		volumes[claim.Name] = len(withClaims.Spec.Volumes)
		withClaims.Spec.Volumes = append(withClaims.Spec.Volumes, volume)
	}
	return append(allErrs, core.ValidatePodTemplateSpecWithOptions(withClaims, fldPath, opts)...)
}

// rollingUpdateValue is a StatefulSet's rolling update as kube-apiserver
// shows it in an error: its internal type, with Go field names and a
// partition that is not a pointer.
type rollingUpdateStatefulSetValue struct {
	Partition      int32
	MaxUnavailable *intstr.IntOrString
}

func validateStatefulSetUpdateStrategy(s *appsv1.StatefulSetUpdateStrategy, fldPath *field.Path) field.ErrorList {
	switch s.Type {
	case "":
		return field.ErrorList{field.Required(fldPath, "")}
	case appsv1.OnDeleteStatefulSetStrategyType:
		if ru := s.RollingUpdate; ru != nil {
			value := rollingUpdateStatefulSetValue{MaxUnavailable: ru.MaxUnavailable}
			if ru.Partition != nil {
				value.Partition = *ru.Partition
			}
			return field.ErrorList{field.Invalid(fldPath.Child("rollingUpdate"), value,
				fmt.Sprintf("only allowed for updateStrategy '%s'", appsv1.RollingUpdateStatefulSetStrategyType))}
		}
	case appsv1.RollingUpdateStatefulSetStrategyType:
		if ru := s.RollingUpdate; ru != nil {
			return validateRollingUpdateStatefulSet(ru, fldPath.Child("rollingUpdate"))
		}
	default:
		var value struct {
			Type          appsv1.StatefulSetUpdateStrategyType
			RollingUpdate *rollingUpdateStatefulSetValue
		}
		value.Type = s.Type
		if ru := s.RollingUpdate; ru != nil {
			value.RollingUpdate = &rollingUpdateStatefulSetValue{MaxUnavailable: ru.MaxUnavailable}
			if ru.Partition != nil {
				value.RollingUpdate.Partition = *ru.Partition
			}
		}
		return field.ErrorList{field.Invalid(fldPath, value, fmt.Sprintf("must be '%s' or '%s'",
			appsv1.RollingUpdateStatefulSetStrategyType, appsv1.OnDeleteStatefulSetStrategyType))}
	}
	return nil
}

func validateRollingUpdateStatefulSet(ru *appsv1.RollingUpdateStatefulSetStrategy, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if ru.Partition != nil {
		allErrs = append(allErrs, apivalidation.ValidateNonnegativeField(int64(*ru.Partition), fldPath.Child("partition"))...)
	}
	if ru.MaxUnavailable != nil {
		maxPath := fldPath.Child("maxUnavailable")
		allErrs = append(allErrs, validatePositiveIntOrPercent(*ru.MaxUnavailable, maxPath)...)
		if intOrPercentValue(*ru.MaxUnavailable) == 0 {
			allErrs = append(allErrs, field.Invalid(maxPath, *ru.MaxUnavailable, "cannot be 0"))
		}
		allErrs = append(allErrs, notMoreThan100Percent(*ru.MaxUnavailable, maxPath)...)
	}
	return allErrs
}

func validateRetentionPolicyType(policy appsv1.PersistentVolumeClaimRetentionPolicyType, fldPath *field.Path) field.ErrorList {
	switch policy {
	case appsv1.RetainPersistentVolumeClaimRetentionPolicyType, appsv1.DeletePersistentVolumeClaimRetentionPolicyType:
		return nil
	}
	return field.ErrorList{field.NotSupported(fldPath, policy, []string{
		string(appsv1.RetainPersistentVolumeClaimRetentionPolicyType), string(appsv1.DeletePersistentVolumeClaimRetentionPolicyType)})}
}
