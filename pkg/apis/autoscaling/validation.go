package autoscaling

import (
	"errors"
	"fmt"
	"slices"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/api/validate/content"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/apis/core"
)

// Bounds of an HPA's scaling behavior.
const (
	maxPeriodSeconds              = 1800
	maxStabilizationWindowSeconds = 3600
)

var (
	metadataPath = field.NewPath("metadata")
	specPath     = field.NewPath("spec")
	statusPath   = field.NewPath("status")

	// Valid values, sorted as kube-apiserver lists them.
	selectPolicies = []string{string(autoscalingv2.DisabledPolicySelect), string(autoscalingv2.MaxChangePolicySelect), string(autoscalingv2.MinChangePolicySelect)}
	policyTypes    = []string{string(autoscalingv2.PercentScalingPolicy), string(autoscalingv2.PodsScalingPolicy)}
	metricTypes    = []string{
		string(autoscalingv2.ContainerResourceMetricSourceType), string(autoscalingv2.ExternalMetricSourceType),
		string(autoscalingv2.ObjectMetricSourceType), string(autoscalingv2.PodsMetricSourceType),
		string(autoscalingv2.ResourceMetricSourceType),
	}
)

// refOptions are the rules of a CrossVersionObjectReference.
type refOptions struct {
	allowEmptyAPIGroup     bool
	allowInvalidAPIVersion bool
}

// validationOptions are the rules that depend on the HPA being updated.
type validationOptions struct {
	minReplicasLowerBound int32
	scaleTargetRef        refOptions
	objectMetrics         refOptions
}

// optionsFor returns the rules of hpa, updating old (nil on create):
// scale to zero is allowed (HPAScaleToZero is on by default); the target
// needs an API group, except a ReplicationController's; an unchanged
// target kind and version are not checked again, nor are the versions of
// object metrics once an old one was invalid.
func optionsFor(hpa, old *autoscalingv2.HorizontalPodAutoscaler) validationOptions {
	opts := validationOptions{objectMetrics: refOptions{allowEmptyAPIGroup: true}}
	ref := hpa.Spec.ScaleTargetRef
	switch {
	case old != nil && old.Spec.ScaleTargetRef.APIVersion == ref.APIVersion && old.Spec.ScaleTargetRef.Kind == ref.Kind:
		opts.scaleTargetRef.allowInvalidAPIVersion = true
	case ref.Kind == "ReplicationController":
		opts.scaleTargetRef.allowEmptyAPIGroup = true
	}
	if old != nil {
		for _, m := range old.Spec.Metrics {
			if m.Type == autoscalingv2.ObjectMetricSourceType && m.Object != nil && validateAPIVersion(m.Object.DescribedObject.APIVersion, opts.objectMetrics) != nil {
				opts.objectMetrics.allowInvalidAPIVersion = true
				break
			}
		}
	}
	return opts
}

// ValidateHorizontalPodAutoscaler validates an HPA on create.
func ValidateHorizontalPodAutoscaler(hpa *autoscalingv2.HorizontalPodAutoscaler) field.ErrorList {
	allErrs := core.ValidateObjectMeta(&hpa.ObjectMeta, true, apivalidation.NameIsDNSSubdomain, metadataPath)
	return append(allErrs, validateSpec(&hpa.Spec, specPath, optionsFor(hpa, nil))...)
}

// ValidateHorizontalPodAutoscalerUpdate validates an update of an HPA.
func ValidateHorizontalPodAutoscalerUpdate(hpa, old *autoscalingv2.HorizontalPodAutoscaler) field.ErrorList {
	allErrs := core.ValidateObjectMetaUpdate(&hpa.ObjectMeta, &old.ObjectMeta, metadataPath)
	return append(allErrs, validateSpec(&hpa.Spec, specPath, optionsFor(hpa, old))...)
}

// ValidateHorizontalPodAutoscalerStatusUpdate validates an update of an
// HPA's status: non-negative counts and generations.
func ValidateHorizontalPodAutoscalerStatusUpdate(hpa, old *autoscalingv2.HorizontalPodAutoscaler) field.ErrorList {
	allErrs := core.ValidateObjectMetaUpdate(&hpa.ObjectMeta, &old.ObjectMeta, metadataPath)
	status := &hpa.Status
	for i, c := range status.Conditions {
		if c.ObservedGeneration != nil {
			allErrs = append(allErrs, apivalidation.ValidateNonnegativeField(*c.ObservedGeneration, statusPath.Child("conditions").Index(i).Child("observedGeneration"))...)
		}
	}
	allErrs = append(allErrs, apivalidation.ValidateNonnegativeField(int64(status.CurrentReplicas), statusPath.Child("currentReplicas"))...)
	return append(allErrs, apivalidation.ValidateNonnegativeField(int64(status.DesiredReplicas), statusPath.Child("desiredReplicas"))...)
}

// validateSpec validates an HPA's spec. The checks kube-apiserver 1.37
// has moved to declarative validation (the replica bounds, the target's
// kind and name being set) report after the others, as there.
func validateSpec(spec *autoscalingv2.HorizontalPodAutoscalerSpec, fldPath *field.Path, opts validationOptions) field.ErrorList {
	var allErrs, declarative field.ErrorList
	if spec.MinReplicas != nil && spec.MaxReplicas < *spec.MinReplicas {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("maxReplicas"), spec.MaxReplicas, "must be greater than or equal to `minReplicas`"))
	}
	refPath := fldPath.Child("scaleTargetRef")
	ref := spec.ScaleTargetRef
	allErrs = append(allErrs, validateReference(ref, refPath, opts.scaleTargetRef, false)...)
	allErrs = append(allErrs, validateMetrics(spec.Metrics, fldPath.Child("metrics"), spec.MinReplicas, opts.objectMetrics)...)
	if b := spec.Behavior; b != nil {
		allErrs = append(allErrs, validateScalingRules(b.ScaleUp, fldPath.Child("behavior", "scaleUp"))...)
		allErrs = append(allErrs, validateScalingRules(b.ScaleDown, fldPath.Child("behavior", "scaleDown"))...)
	}

	if ref.Kind == "" {
		declarative = append(declarative, field.Required(refPath.Child("kind"), ""))
	}
	if ref.Name == "" {
		declarative = append(declarative, field.Required(refPath.Child("name"), ""))
	}
	if spec.MinReplicas != nil && *spec.MinReplicas < opts.minReplicasLowerBound {
		declarative = append(declarative, field.Invalid(fldPath.Child("minReplicas"), *spec.MinReplicas, fmt.Sprintf("must be greater than or equal to %d", opts.minReplicasLowerBound)))
	}
	switch {
	case spec.MaxReplicas == 0:
		declarative = append(declarative, field.Required(fldPath.Child("maxReplicas"), ""))
	case spec.MaxReplicas < 0:
		declarative = append(declarative, field.Invalid(fldPath.Child("maxReplicas"), spec.MaxReplicas, "must be greater than or equal to 1"))
	}
	return append(allErrs, declarative...)
}

// validateReference validates a reference to an object; requiredReported
// says whether a missing kind or name is reported here.
func validateReference(ref autoscalingv2.CrossVersionObjectReference, fldPath *field.Path, opts refOptions, requiredReported bool) field.ErrorList {
	var allErrs field.ErrorList
	if ref.Kind == "" {
		if requiredReported {
			allErrs = append(allErrs, field.Required(fldPath.Child("kind"), ""))
		}
	} else {
		for _, msg := range content.IsPathSegmentName(ref.Kind) {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("kind"), ref.Kind, msg))
		}
	}
	if ref.Name == "" {
		if requiredReported {
			allErrs = append(allErrs, field.Required(fldPath.Child("name"), ""))
		}
	} else {
		for _, msg := range content.IsPathSegmentName(ref.Name) {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("name"), ref.Name, msg))
		}
	}
	if err := validateAPIVersion(ref.APIVersion, opts); err != nil {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("apiVersion"), ref.APIVersion, err.Error()))
	}
	return allErrs
}

func validateAPIVersion(apiVersion string, opts refOptions) error {
	if opts.allowInvalidAPIVersion {
		return nil
	}
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return err
	}
	if !opts.allowEmptyAPIGroup && gv.Group == "" {
		return errors.New("apiVersion must specify API group")
	}
	return nil
}

func validateMetrics(metrics []autoscalingv2.MetricSpec, fldPath *field.Path, minReplicas *int32, opts refOptions) field.ErrorList {
	var allErrs field.ErrorList
	objectOrExternal := false
	for i := range metrics {
		allErrs = append(allErrs, validateMetricSpec(&metrics[i], fldPath.Index(i), opts)...)
		if t := metrics[i].Type; t == autoscalingv2.ObjectMetricSourceType || t == autoscalingv2.ExternalMetricSourceType {
			objectOrExternal = true
		}
	}
	if minReplicas != nil && *minReplicas == 0 && !objectOrExternal {
		allErrs = append(allErrs, field.Forbidden(fldPath, "must specify at least one Object or External metric to support scaling to zero replicas"))
	}
	return allErrs
}

func validateScalingRules(rules *autoscalingv2.HPAScalingRules, fldPath *field.Path) field.ErrorList {
	if rules == nil {
		return nil
	}
	var allErrs field.ErrorList
	if w := rules.StabilizationWindowSeconds; w != nil {
		if *w < 0 {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("stabilizationWindowSeconds"), w, "must be greater than or equal to zero"))
		}
		if *w > maxStabilizationWindowSeconds {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("stabilizationWindowSeconds"), w, fmt.Sprintf("must be less than or equal to %v", maxStabilizationWindowSeconds)))
		}
	}
	if p := rules.SelectPolicy; p != nil && !slices.Contains(selectPolicies, string(*p)) {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("selectPolicy"), p, selectPolicies))
	}
	policiesPath := fldPath.Child("policies")
	if len(rules.Policies) == 0 {
		allErrs = append(allErrs, field.Required(policiesPath, "must specify at least one Policy"))
	}
	for i, p := range rules.Policies {
		path := policiesPath.Index(i)
		if p.Type != autoscalingv2.PodsScalingPolicy && p.Type != autoscalingv2.PercentScalingPolicy {
			allErrs = append(allErrs, field.NotSupported(path.Child("type"), p.Type, policyTypes))
		}
		if p.Value <= 0 {
			allErrs = append(allErrs, field.Invalid(path.Child("value"), p.Value, "must be greater than zero"))
		}
		if p.PeriodSeconds <= 0 {
			allErrs = append(allErrs, field.Invalid(path.Child("periodSeconds"), p.PeriodSeconds, "must be greater than zero"))
		}
		if p.PeriodSeconds > maxPeriodSeconds {
			allErrs = append(allErrs, field.Invalid(path.Child("periodSeconds"), p.PeriodSeconds, fmt.Sprintf("must be less than or equal to %v", maxPeriodSeconds)))
		}
	}
	if t := rules.Tolerance; t != nil && t.Cmp(resource.Quantity{}) < 0 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("tolerance"), t.String(), apivalidation.IsNegativeErrorMsg))
	}
	return allErrs
}

func validateMetricSpec(spec *autoscalingv2.MetricSpec, fldPath *field.Path, opts refOptions) field.ErrorList {
	var allErrs field.ErrorList
	if spec.Type == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("type"), "must specify a metric source type"))
	}
	if !slices.Contains(metricTypes, string(spec.Type)) {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("type"), spec.Type, metricTypes))
	}
	// Only the first source given is validated; the others are reported
	// as forbidden below.
	var present []string
	if spec.Object != nil {
		if present = append(present, "object"); len(present) == 1 {
			allErrs = append(allErrs, validateObjectSource(spec.Object, fldPath.Child("object"), opts)...)
		}
	}
	if spec.External != nil {
		if present = append(present, "external"); len(present) == 1 {
			allErrs = append(allErrs, validateExternalSource(spec.External, fldPath.Child("external"))...)
		}
	}
	if spec.Pods != nil {
		if present = append(present, "pods"); len(present) == 1 {
			allErrs = append(allErrs, validatePodsSource(spec.Pods, fldPath.Child("pods"))...)
		}
	}
	if spec.Resource != nil {
		if present = append(present, "resource"); len(present) == 1 {
			allErrs = append(allErrs, validateResourceSource(spec.Resource.Name, spec.Resource.Target, fldPath.Child("resource"))...)
		}
	}
	if spec.ContainerResource != nil {
		if present = append(present, "containerResource"); len(present) == 1 {
			allErrs = append(allErrs, validateContainerResourceSource(spec.ContainerResource, fldPath.Child("containerResource"))...)
		}
	}

	expected := ""
	required := func(name string, set bool) {
		if !set {
			allErrs = append(allErrs, field.Required(fldPath.Child(name), "must populate information for the given metric source"))
		}
		expected = name
	}
	switch spec.Type {
	case autoscalingv2.ObjectMetricSourceType:
		required("object", spec.Object != nil)
	case autoscalingv2.PodsMetricSourceType:
		required("pods", spec.Pods != nil)
	case autoscalingv2.ResourceMetricSourceType:
		required("resource", spec.Resource != nil)
	case autoscalingv2.ExternalMetricSourceType:
		required("external", spec.External != nil)
	case autoscalingv2.ContainerResourceMetricSourceType:
		required("containerResource", spec.ContainerResource != nil)
	}
	// An unknown type, reported above, is reported once: kube-apiserver
	// drops the duplicate its own checks make.
	// kube-apiserver reports the extra sources from a set, in no set
	// order; kapi sorts them.
	if len(present) != 1 {
		slices.Sort(present)
		for _, p := range present {
			if p != expected {
				allErrs = append(allErrs, field.Forbidden(fldPath.Child(p), "must populate the given metric source only"))
			}
		}
	}
	return allErrs
}

func validateObjectSource(src *autoscalingv2.ObjectMetricSource, fldPath *field.Path, opts refOptions) field.ErrorList {
	allErrs := validateReference(src.DescribedObject, fldPath.Child("describedObject"), opts, true)
	allErrs = append(allErrs, validateMetricIdentifier(src.Metric, fldPath.Child("metric"))...)
	allErrs = append(allErrs, validateMetricTarget(src.Target, fldPath.Child("target"))...)
	if src.Target.Value == nil && src.Target.AverageValue == nil {
		allErrs = append(allErrs, field.Required(fldPath.Child("target", "averageValue"), "must set either a target value or averageValue"))
	}
	return allErrs
}

func validateExternalSource(src *autoscalingv2.ExternalMetricSource, fldPath *field.Path) field.ErrorList {
	allErrs := validateMetricIdentifier(src.Metric, fldPath.Child("metric"))
	allErrs = append(allErrs, validateMetricTarget(src.Target, fldPath.Child("target"))...)
	if src.Target.Value == nil && src.Target.AverageValue == nil {
		allErrs = append(allErrs, field.Required(fldPath.Child("target", "averageValue"), "must set either a target value for metric or a per-pod target"))
	}
	if src.Target.Value != nil && src.Target.AverageValue != nil {
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("target", "value"), "may not set both a target value for metric and a per-pod target"))
	}
	return allErrs
}

func validatePodsSource(src *autoscalingv2.PodsMetricSource, fldPath *field.Path) field.ErrorList {
	allErrs := validateMetricIdentifier(src.Metric, fldPath.Child("metric"))
	allErrs = append(allErrs, validateMetricTarget(src.Target, fldPath.Child("target"))...)
	if src.Target.AverageValue == nil {
		allErrs = append(allErrs, field.Required(fldPath.Child("target", "averageValue"), "must specify a positive target averageValue"))
	}
	return allErrs
}

func validateContainerResourceSource(src *autoscalingv2.ContainerResourceMetricSource, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if src.Name == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("name"), "must specify a resource name"))
	} else {
		allErrs = append(allErrs, core.ValidateContainerResourceName(src.Name, fldPath.Child("name"))...)
	}
	if src.Container == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("container"), "must specify a container"))
	} else {
		for _, msg := range validation.IsDNS1123Label(src.Container) {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("container"), src.Container, msg))
		}
	}
	return append(allErrs, validateResourceTarget(src.Target, fldPath.Child("target"))...)
}

func validateResourceSource(name corev1.ResourceName, target autoscalingv2.MetricTarget, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if name == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("name"), "must specify a resource name"))
	}
	return append(allErrs, validateResourceTarget(target, fldPath.Child("target"))...)
}

// validateResourceTarget: a resource metric targets a utilization or a
// raw value, one of the two.
func validateResourceTarget(target autoscalingv2.MetricTarget, fldPath *field.Path) field.ErrorList {
	allErrs := validateMetricTarget(target, fldPath)
	if target.AverageUtilization == nil && target.AverageValue == nil {
		allErrs = append(allErrs, field.Required(fldPath.Child("averageUtilization"), "must set either a target raw value or a target utilization"))
	}
	if target.AverageUtilization != nil && target.AverageValue != nil {
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("averageValue"), "may not set both a target raw value and a target utilization"))
	}
	return allErrs
}

func validateMetricTarget(mt autoscalingv2.MetricTarget, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if mt.Type == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("type"), "must specify a metric target type"))
	}
	if mt.Type != autoscalingv2.UtilizationMetricType && mt.Type != autoscalingv2.ValueMetricType && mt.Type != autoscalingv2.AverageValueMetricType {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("type"), mt.Type, "must be either Utilization, Value, or AverageValue"))
	}
	if mt.Value != nil && mt.Value.Sign() != 1 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("value"), mt.Value, "must be positive"))
	}
	if mt.AverageValue != nil && mt.AverageValue.Sign() != 1 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("averageValue"), mt.AverageValue, "must be positive"))
	}
	if mt.AverageUtilization != nil && *mt.AverageUtilization < 1 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("averageUtilization"), mt.AverageUtilization, "must be greater than 0"))
	}
	return allErrs
}

func validateMetricIdentifier(id autoscalingv2.MetricIdentifier, fldPath *field.Path) field.ErrorList {
	if id.Name == "" {
		return field.ErrorList{field.Required(fldPath.Child("name"), "must specify a metric name")}
	}
	var allErrs field.ErrorList
	for _, msg := range content.IsPathSegmentName(id.Name) {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("name"), id.Name, msg))
	}
	return allErrs
}
