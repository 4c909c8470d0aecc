package schemavalidation

import (
	"fmt"
	"maps"
	"reflect"
	"slices"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/kube-openapi/pkg/validation/strfmt"
	"k8s.io/kube-openapi/pkg/validation/validate"

	"github.com/kapi-dev/kapi/pkg/apiextensions/schema"
	"github.com/kapi-dev/kapi/pkg/apiextensions/schema/defaulting"
	"github.com/kapi-dev/kapi/pkg/apiextensions/schema/objectmeta"
	"github.com/kapi-dev/kapi/pkg/apiextensions/schema/pruning"
	"github.com/kapi-dev/kapi/pkg/apiextensions/schema/valuevalidation"
)

// Default values inside TypeMeta or ObjectMeta are checked in a resource
// built around them, with this TypeMeta.
const (
	defaultCheckAPIVersion = "validation/v1"
	defaultCheckKind       = "Validation"
)

// validateDefaults checks every default value of the schema rooted at s
// (which sits at fldPath and describes a resource):
//
//   - outside TypeMeta/ObjectMeta, the default must survive pruning
//     unchanged (if requirePruned), have well-formed embedded resources,
//     and validate against its own schema;
//   - inside TypeMeta/ObjectMeta (e.g. a default for metadata.labels of an
//     embedded resource), the resource built around the default must have
//     valid metadata, and the default must validate against its schema.
//
// defaultRules, if set, then checks the default against CEL rules. The
// error is an internal one, which a validated schema never causes.
func validateDefaults(fldPath *field.Path, s *schema.Structural, requirePruned bool, defaultRules func(*field.Path, *schema.Structural, bool, interface{}) field.ErrorList) (field.ErrorList, error) {
	d := defaultsValidator{requirePruned: requirePruned, rules: defaultRules}
	surround := defaulting.SurroundingRoot().WithTypeMeta(defaultCheckAPIVersion, defaultCheckKind)
	root := objectmeta.AsResourceRoot(s)
	return d.validate(fldPath, root, root, surround, false)
}

type defaultsValidator struct {
	requirePruned bool
	rules         func(*field.Path, *schema.Structural, bool, interface{}) field.ErrorList
}

// validate checks the defaults of s and below. resource is the schema of
// the innermost resource around s, surround builds that resource around a
// value of s, and insideMeta is set below its apiVersion, kind or metadata.
func (d defaultsValidator) validate(fldPath *field.Path, s, resource *schema.Structural, surround defaulting.Surrounding, insideMeta bool) (field.ErrorList, error) {
	if s == nil {
		return nil, nil
	}
	if s.XEmbeddedResource {
		insideMeta = false
		surround = defaulting.SurroundingRoot().WithTypeMeta(defaultCheckAPIVersion, defaultCheckKind)
		resource = s
	}

	var allErrs field.ErrorList
	if s.Default != nil {
		errs, err := d.validateDefault(fldPath, s, resource, surround, insideMeta)
		if err != nil {
			return nil, err
		}
		allErrs = append(allErrs, errs...)
	}

	// additionalProperties is not followed: defaults are forbidden there.

	if s.Items != nil {
		errs, err := d.validate(fldPath.Child("items"), s.Items, resource, surround.Index(), insideMeta)
		if err != nil {
			return nil, err
		}
		allErrs = append(allErrs, errs...)
	}
	for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
		propInsideMeta := insideMeta || (s.XEmbeddedResource && objectmeta.IsTypeOrObjectMetaField(name))
		errs, err := d.validate(fldPath.Child("properties").Key(name), s.Properties[name], resource, surround.Child(name), propInsideMeta)
		if err != nil {
			return nil, err
		}
		allErrs = append(allErrs, errs...)
	}
	return allErrs, nil
}

func (d defaultsValidator) validateDefault(fldPath *field.Path, s, resource *schema.Structural, surround defaulting.Surrounding, insideMeta bool) (field.ErrorList, error) {
	defaultPath := fldPath.Child("default")
	valueErrs := func() field.ErrorList {
		result := validate.NewSchemaValidator(s.ToKubeOpenAPI(), nil, "", strfmt.Default).Validate(s.Default)
		if result.IsValid() {
			return nil
		}
		return valuevalidation.ToFieldErrors(defaultPath, result)
	}
	ruleErrs := func() field.ErrorList {
		if d.rules == nil {
			return nil
		}
		return d.rules(defaultPath, s, s == resource, s.Default)
	}

	if insideMeta {
		obj, _, err := surround(runtime.DeepCopyJSONValue(s.Default))
		if err != nil {
			// only the root surrounding fails, for a non-object default,
			// which cannot be inside metadata
			return nil, fmt.Errorf("failed to validate default value inside metadata: %v", err)
		}
		if err, _ := objectmeta.Coerce(nil, obj, resource, true, objectmeta.CoerceOptions{}); err != nil {
			return field.ErrorList{field.Invalid(defaultPath, s.Default, fmt.Sprintf("must result in valid metadata: %v", err))}, nil
		}
		if errs := objectmeta.ValidateEmbeddedResources(nil, obj, resource, true); len(errs) > 0 {
			return field.ErrorList{field.Invalid(defaultPath, s.Default, fmt.Sprintf("must result in valid metadata: %v", errs.ToAggregate()))}, nil
		}
		if errs := valueErrs(); len(errs) > 0 {
			return errs, nil
		}
		return ruleErrs(), nil
	}

	var allErrs field.ErrorList
	if d.requirePruned {
		pruned := runtime.DeepCopyJSONValue(s.Default)
		pruning.Prune(pruned, s, s.XEmbeddedResource)
		if !reflect.DeepEqual(pruned, s.Default) {
			allErrs = append(allErrs, field.Invalid(defaultPath, s.Default, "must not have unknown fields"))
		}
	}
	if err, _ := objectmeta.Coerce(defaultPath, s.Default, s, s.XEmbeddedResource, objectmeta.CoerceOptions{}); err != nil {
		return append(allErrs, err), nil
	}
	if errs := objectmeta.ValidateEmbeddedResources(defaultPath, s.Default, s, s.XEmbeddedResource); len(errs) > 0 {
		return append(allErrs, errs...), nil
	}
	if errs := valueErrs(); len(errs) > 0 {
		return append(allErrs, errs...), nil
	}
	return append(allErrs, ruleErrs()...), nil
}
