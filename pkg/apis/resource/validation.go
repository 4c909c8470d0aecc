package resource

import (
	"context"
	"strings"

	resourcev1 "k8s.io/api/resource/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/operation"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/apis/core"
	"github.com/kapi-dev/kapi/pkg/apis/internal/declarative"
	"github.com/kapi-dev/kapi/pkg/apis/internal/fielderrors"
	"github.com/kapi-dev/kapi/pkg/apis/internal/gofields"
)

var (
	metadataPath = field.NewPath("metadata")
	specPath     = field.NewPath("spec")
	statusPath   = field.NewPath("status")
)

// maxTaintRuleConditions bounds the conditions of a DeviceTaintRule.
const maxTaintRuleConditions = 8

// poolNameMaxLength bounds a pool's name.
const poolNameMaxLength = 253

// options are the validation options of kube-apiserver 1.37's default
// feature gates: partitionable device types are alpha, off.
var options = map[string]bool{"DRAPartitionableDevicesType": false}

// declared runs the declarative rules generated for the types and keeps
// the errors kube-apiserver 1.37 enforces: its standard and beta rules;
// alpha ones only shadow the hand-written rules.
func declared(fn func(ctx context.Context, op operation.Operation) field.ErrorList, update bool) field.ErrorList {
	op := operation.Operation{Type: operation.Create, Options: options}
	if update {
		op.Type = operation.Update
	}
	var out field.ErrorList
	for _, e := range fn(context.Background(), op) {
		if !e.IsAlpha() {
			out = append(out, e)
		}
	}
	return out
}

// metaUpdate is what kube-apiserver checks of the metadata of every
// update before the resource's own rules.
func metaUpdate(meta, old *metav1.ObjectMeta, namespaced bool) field.ErrorList {
	allErrs := apivalidation.ValidateObjectMeta(meta, namespaced, apivalidation.NameIsDNSSubdomain, metadataPath)
	return append(allErrs, core.ValidateObjectMetaUpdate(meta, old, metadataPath)...)
}

// ValidateDeviceClass validates a DeviceClass on create. Its name is
// checked by a declarative rule in kube-apiserver 1.37, so its errors
// come after the hand-written ones.
func ValidateDeviceClass(c *resourcev1.DeviceClass) field.ErrorList {
	written := core.ValidateObjectMeta(&c.ObjectMeta, false, noName, metadataPath)
	written = append(written, validateClassSpec(&c.Spec, nil)...)
	return declarative.Join(written, append(className(c), declared(func(ctx context.Context, op operation.Operation) field.ErrorList {
		return resourcev1.Validate_DeviceClassSpec(ctx, op, specPath, &c.Spec, nil)
	}, false)...))
}

// validateClassSpec checks a class's selectors and configs. On update,
// selectors or configs exactly as stored before count as stored: their
// expressions are not compiled again, their parameters not measured (any
// change, even a reordering, judges them anew). The extended resource
// name is declarative.
func validateClassSpec(spec, old *resourcev1.DeviceClassSpec) field.ErrorList {
	stored := old != nil && apiequality.Semantic.DeepEqual(spec.Selectors, old.Selectors)
	allErrs := validateSelectors(spec.Selectors, specPath.Child("selectors"), stored)
	stored = old != nil && apiequality.Semantic.DeepEqual(spec.Config, old.Config)
	if !tooMany(len(spec.Config), resourcev1.DeviceConfigMaxSize) {
		for i, c := range spec.Config {
			allErrs = append(allErrs, validateDeviceConfiguration(c.DeviceConfiguration, specPath.Child("config").Index(i), stored)...)
		}
	}
	return allErrs
}

// noName accepts every name: the name is checked elsewhere.
func noName(string, bool) []string { return nil }

func className(c *resourcev1.DeviceClass) field.ErrorList {
	var allErrs field.ErrorList
	for _, msg := range apivalidation.NameIsDNSSubdomain(c.Name, false) {
		allErrs = append(allErrs, field.Invalid(metadataPath.Child("name"), c.Name, msg))
	}
	return allErrs
}

// ValidateDeviceClassUpdate validates an update of a DeviceClass.
func ValidateDeviceClassUpdate(c, old *resourcev1.DeviceClass) field.ErrorList {
	written := fielderrors.Dedupe(append(metaUpdate(&c.ObjectMeta, &old.ObjectMeta, false),
		core.ValidateObjectMeta(&c.ObjectMeta, false, apivalidation.NameIsDNSSubdomain, metadataPath)...))
	written = append(written, validateClassSpec(&c.Spec, &old.Spec)...)
	return declarative.Join(written, declared(func(ctx context.Context, op operation.Operation) field.ErrorList {
		if apiequality.Semantic.DeepEqual(c.Spec, old.Spec) {
			return nil
		}
		return resourcev1.Validate_DeviceClassSpec(ctx, op, specPath, &c.Spec, &old.Spec)
	}, true))
}

// ValidateResourceClaim validates a ResourceClaim on create.
func ValidateResourceClaim(c *resourcev1.ResourceClaim) field.ErrorList {
	written := core.ValidateObjectMeta(&c.ObjectMeta, true, apivalidation.NameIsDNSSubdomain, metadataPath)
	written = append(written, validateDeviceClaim(&c.Spec.Devices, specPath.Child("devices"), false)...)
	return declarative.Join(written, declared(func(ctx context.Context, op operation.Operation) field.ErrorList {
		return resourcev1.Validate_ResourceClaimSpec(ctx, op, specPath, &c.Spec, nil)
	}, false))
}

// ValidateResourceClaimUpdate validates an update of a ResourceClaim:
// its spec never changes, and is not judged again.
func ValidateResourceClaimUpdate(c, old *resourcev1.ResourceClaim) field.ErrorList {
	written := fielderrors.Dedupe(append(metaUpdate(&c.ObjectMeta, &old.ObjectMeta, true),
		core.ValidateObjectMeta(&c.ObjectMeta, true, apivalidation.NameIsDNSSubdomain, metadataPath)...))
	if !apiequality.Semantic.DeepEqual(c.Spec, old.Spec) {
		written = append(written, field.Invalid(specPath, gofields.Value(c.Spec), "field is immutable").WithOrigin("immutable").MarkCoveredByDeclarative())
		return declarative.Join(written, field.ErrorList{field.Invalid(specPath, nil, "field is immutable").WithOrigin("immutable")})
	}
	return written
}

// ValidateResourceClaimStatusUpdate validates a write of /status.
func ValidateResourceClaimStatusUpdate(c, old *resourcev1.ResourceClaim) field.ErrorList {
	written := fielderrors.Dedupe(metaUpdate(&c.ObjectMeta, &old.ObjectMeta, true))
	names := gatherRequestNames(&c.Spec.Devices)
	written = append(written, validateClaimStatus(&c.Status, &old.Status, c.DeletionTimestamp != nil, names, statusPath)...)
	return declarative.Join(written, declared(func(ctx context.Context, op operation.Operation) field.ErrorList {
		if apiequality.Semantic.DeepEqual(c.Status, old.Status) {
			return nil
		}
		return resourcev1.Validate_ResourceClaimStatus(ctx, op, statusPath, &c.Status, &old.Status)
	}, true))
}

// ValidateResourceClaimTemplate validates a ResourceClaimTemplate on
// create.
func ValidateResourceClaimTemplate(t *resourcev1.ResourceClaimTemplate) field.ErrorList {
	written := core.ValidateObjectMeta(&t.ObjectMeta, true, apivalidation.NameIsDNSSubdomain, metadataPath)
	written = append(written, validateTemplateMeta(&t.Spec)...)
	written = append(written, validateDeviceClaim(&t.Spec.Spec.Devices, specPath.Child("spec", "devices"), false)...)
	return declarative.Join(written, declared(func(ctx context.Context, op operation.Operation) field.ErrorList {
		return resourcev1.Validate_ResourceClaimTemplateSpec(ctx, op, specPath, &t.Spec, nil)
	}, false))
}

// ValidateResourceClaimTemplateUpdate validates an update of a template:
// its spec never changes, and a changed one is reported with what both
// the hand-written and the declarative rules find in it.
func ValidateResourceClaimTemplateUpdate(t, old *resourcev1.ResourceClaimTemplate) field.ErrorList {
	written := core.ValidateObjectMeta(&t.ObjectMeta, true, apivalidation.NameIsDNSSubdomain, metadataPath)
	written = append(written, validateTemplateMeta(&t.Spec)...)
	// kube-apiserver 1.37 judges the whole claim spec again on update,
	// before refusing any change of it.
	written = append(written, validateDeviceClaim(&t.Spec.Spec.Devices, specPath.Child("spec", "devices"), false)...)
	written = append(written, metaUpdate(&t.ObjectMeta, &old.ObjectMeta, true)...)
	if !apiequality.Semantic.DeepEqual(t.Spec, old.Spec) {
		written = append(written, field.Invalid(specPath, gofields.Value(t.Spec), "field is immutable"))
	}
	return declarative.Join(fielderrors.Dedupe(written), declared(func(ctx context.Context, op operation.Operation) field.ErrorList {
		if apiequality.Semantic.DeepEqual(t.Spec, old.Spec) {
			return nil
		}
		return resourcev1.Validate_ResourceClaimTemplateSpec(ctx, op, specPath, &t.Spec, &old.Spec)
	}, true))
}

// validateTemplateMeta checks the metadata a claim made from the template
// gets: labels and annotations only.
func validateTemplateMeta(spec *resourcev1.ResourceClaimTemplateSpec) field.ErrorList {
	return core.ValidateTemplateObjectMeta(&spec.ObjectMeta, specPath.Child("metadata"))
}

// ValidateResourceSlice validates a ResourceSlice on create.
func ValidateResourceSlice(s *resourcev1.ResourceSlice) field.ErrorList {
	written := core.ValidateObjectMeta(&s.ObjectMeta, false, apivalidation.NameIsDNSSubdomain, metadataPath)
	written = append(written, validateSliceSpec(&s.Spec, nil, specPath)...)
	return declarative.Join(written, declared(func(ctx context.Context, op operation.Operation) field.ErrorList {
		return resourcev1.Validate_ResourceSliceSpec(ctx, op, specPath, &s.Spec, nil)
	}, false))
}

// ValidateResourceSliceUpdate validates an update of a ResourceSlice.
func ValidateResourceSliceUpdate(s, old *resourcev1.ResourceSlice) field.ErrorList {
	written := fielderrors.Dedupe(metaUpdate(&s.ObjectMeta, &old.ObjectMeta, false))
	written = append(written, validateSliceSpec(&s.Spec, &old.Spec, specPath)...)
	return declarative.Join(written, declared(func(ctx context.Context, op operation.Operation) field.ErrorList {
		if apiequality.Semantic.DeepEqual(s.Spec, old.Spec) {
			return nil
		}
		return resourcev1.Validate_ResourceSliceSpec(ctx, op, specPath, &s.Spec, &old.Spec)
	}, true))
}

// ValidateDeviceTaintRule validates a DeviceTaintRule on create.
func ValidateDeviceTaintRule(r *resourcev1.DeviceTaintRule) field.ErrorList {
	written := core.ValidateObjectMeta(&r.ObjectMeta, false, apivalidation.NameIsDNSSubdomain, metadataPath)
	written = append(written, validateTaintRuleSpec(&r.Spec, nil)...)
	return declarative.Join(written, declared(func(ctx context.Context, op operation.Operation) field.ErrorList {
		return resourcev1.Validate_DeviceTaintRuleSpec(ctx, op, specPath, &r.Spec, nil)
	}, false))
}

// ValidateDeviceTaintRuleUpdate validates an update of a DeviceTaintRule.
func ValidateDeviceTaintRuleUpdate(r, old *resourcev1.DeviceTaintRule) field.ErrorList {
	written := fielderrors.Dedupe(append(metaUpdate(&r.ObjectMeta, &old.ObjectMeta, false), validateTaintRuleSpec(&r.Spec, &old.Spec)...))
	return declarative.Join(written, declared(func(ctx context.Context, op operation.Operation) field.ErrorList {
		if apiequality.Semantic.DeepEqual(r.Spec, old.Spec) {
			return nil
		}
		return resourcev1.Validate_DeviceTaintRuleSpec(ctx, op, specPath, &r.Spec, &old.Spec)
	}, true))
}

// ValidateDeviceTaintRuleStatusUpdate validates a write of /status.
func ValidateDeviceTaintRuleStatusUpdate(r, old *resourcev1.DeviceTaintRule) field.ErrorList {
	written := fielderrors.Dedupe(metaUpdate(&r.ObjectMeta, &old.ObjectMeta, false))
	conditions := statusPath.Child("conditions")
	written = append(written, metav1validation.ValidateConditions(r.Status.Conditions, conditions)...)
	if n := len(r.Status.Conditions); n > maxTaintRuleConditions {
		written = append(written, field.TooMany(conditions, n, maxTaintRuleConditions))
	}
	return declarative.Join(written, declared(func(ctx context.Context, op operation.Operation) field.ErrorList {
		if apiequality.Semantic.DeepEqual(r.Status, old.Status) {
			return nil
		}
		return resourcev1.Validate_DeviceTaintRuleStatus(ctx, op, statusPath, &r.Status, &old.Status)
	}, true))
}

var taintEffects = sets.New(resourcev1.DeviceTaintEffectNoSchedule, resourcev1.DeviceTaintEffectNoExecute, resourcev1.DeviceTaintEffectNone)

func validateTaintRuleSpec(spec, old *resourcev1.DeviceTaintRuleSpec) field.ErrorList {
	var allErrs field.ErrorList
	if s := spec.DeviceSelector; s != nil {
		p := specPath.Child("deviceSelector")
		if s.Driver != nil {
			allErrs = append(allErrs, validateDriverName(*s.Driver, p.Child("driver"))...)
		}
		if s.Pool != nil {
			allErrs = append(allErrs, validatePoolName(*s.Pool, p.Child("pool"))...)
		}
		if s.Device != nil {
			for _, msg := range validation.IsDNS1123Label(*s.Device) {
				allErrs = append(allErrs, field.Invalid(p.Child("device"), *s.Device, msg))
			}
		}
	}
	t, p := spec.Taint, specPath.Child("taint")
	allErrs = append(allErrs, metav1validation.ValidateLabelName(t.Key, p.Child("key"))...)
	if t.Value != "" {
		for _, msg := range validation.IsValidLabelValue(t.Value) {
			allErrs = append(allErrs, field.Invalid(p.Child("value"), t.Value, msg))
		}
	}
	if old == nil || old.Taint.Effect != t.Effect {
		switch {
		case t.Effect == "":
			allErrs = append(allErrs, field.Required(p.Child("effect"), "").MarkCoveredByDeclarative())
		case !taintEffects.Has(t.Effect):
			allErrs = append(allErrs, field.NotSupported(p.Child("effect"), t.Effect, sets.List(taintEffects)).MarkCoveredByDeclarative())
		}
	}
	return allErrs
}

// validateDriverName is the rule of CSI driver names, which DRA drivers
// follow: a DNS subdomain of at most 63 characters.
func validateDriverName(name string, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if name == "" {
		return field.ErrorList{field.Required(fldPath, "")}
	}
	if len(name) > 63 {
		allErrs = append(allErrs, field.TooLong(fldPath, name, 63))
	}
	for _, msg := range validation.IsDNS1123Subdomain(strings.ToLower(name)) {
		allErrs = append(allErrs, field.Invalid(fldPath, name, msg))
	}
	return allErrs
}

// validatePoolName accepts DNS subdomains joined by slashes.
func validatePoolName(name string, fldPath *field.Path) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(fldPath, "")}
	}
	var allErrs field.ErrorList
	if len(name) > poolNameMaxLength {
		allErrs = append(allErrs, field.TooLong(fldPath, "", poolNameMaxLength).WithOrigin("format=k8s-resource-pool-name"))
	}
	for _, part := range strings.Split(name, "/") {
		for _, msg := range validation.IsDNS1123Subdomain(part) {
			allErrs = append(allErrs, field.Invalid(fldPath, part, msg).WithOrigin("format=k8s-resource-pool-name"))
		}
	}
	return allErrs
}
