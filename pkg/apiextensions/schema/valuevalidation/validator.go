package valuevalidation

import (
	"encoding/json"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	openapierrors "k8s.io/kube-openapi/pkg/validation/errors"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"k8s.io/kube-openapi/pkg/validation/strfmt"
	"k8s.io/kube-openapi/pkg/validation/validate"

	"github.com/kapi-dev/kapi/pkg/apiextensions/schema"
	"github.com/kapi-dev/kapi/pkg/apiextensions/schema/objectmeta"
)

// Validator checks custom resources against the schema of one CRD version.
// Build it once per version with NewValidator; it is safe for concurrent
// use.
type Validator struct {
	// openAPI is what the value validator walks.
	openAPI *spec.Schema
	// fast tells quickly whether the value validator would find nothing.
	fast *validityChecker
	// structural drives the list-type and embedded-resource checks; nil
	// for a schema that is not structural (those checks need structure).
	structural *schema.Structural
}

// NewValidator compiles s. s may be nil (no validation at all) or a legacy
// non-structural schema, for which only the value validations apply.
func NewValidator(s *apiextensionsv1.JSONSchemaProps) (*Validator, error) {
	v := &Validator{openAPI: &spec.Schema{}}
	if s == nil {
		return v, nil
	}
	openAPI, err := toValidationSchema(s)
	if err != nil {
		return nil, err
	}
	v.openAPI = openAPI
	v.fast = newValidityChecker(openAPI)
	if structural, err := schema.NewStructural(s); err == nil {
		v.structural = structural
	}
	return v, nil
}

// schema.Structural returns the structural schema the validator uses, nil if the
// schema is not structural.
func (v *Validator) Structural() *schema.Structural {
	return v.structural
}

// Validate checks obj, which sits at fldPath (nil for a whole resource):
// its values against the schema (ValidateValues), embedded resources'
// TypeMeta and ObjectMeta (objectmeta.ValidateEmbeddedResources; not the root's, which
// the resource's own validation handles), and the uniqueness of
// x-kubernetes-list-type set and map items (ValidateListSetsAndMaps). This
// is what kube-apiserver checks on create, except CEL rules.
func (v *Validator) Validate(fldPath *field.Path, obj interface{}) field.ErrorList {
	var allErrs field.ErrorList
	allErrs = append(allErrs, v.ValidateValues(fldPath, obj)...)
	if v.structural != nil {
		allErrs = append(allErrs, objectmeta.ValidateEmbeddedResources(fldPath, obj, v.structural, false)...)
		allErrs = append(allErrs, ValidateListSetsAndMaps(fldPath, obj, v.structural)...)
	}
	return allErrs
}

// ValidateUpdate is Validate for an update from old to obj. Like
// kube-apiserver it ratchets: a value validation error on a part of obj
// that is unchanged from old (matched by field name, and by key for
// x-kubernetes-list-type map items) is dropped, so that objects stored
// under an older schema can still be updated elsewhere; and list
// uniqueness is not enforced if old already broke it.
func (v *Validator) ValidateUpdate(fldPath *field.Path, obj, old interface{}) field.ErrorList {
	var allErrs field.ErrorList
	allErrs = append(allErrs, v.ValidateValuesUpdate(fldPath, obj, old)...)
	if v.structural != nil {
		allErrs = append(allErrs, objectmeta.ValidateEmbeddedResources(fldPath, obj, v.structural, false)...)
		if len(ValidateListSetsAndMaps(fldPath, old, v.structural)) == 0 {
			allErrs = append(allErrs, ValidateListSetsAndMaps(fldPath, obj, v.structural)...)
		}
	}
	return allErrs
}

// ValidateValues checks obj against the schema's types and value
// validations (formats, enum, pattern, bounds, lengths, required,
// allOf/anyOf/oneOf/not, additionalProperties...), with kube-apiserver's
// field paths and messages.
func (v *Validator) ValidateValues(fldPath *field.Path, obj interface{}) field.ErrorList {
	if v.fast.valid(obj) {
		return nil
	}
	result := validate.NewSchemaValidator(v.openAPI, nil, "", strfmt.Default).Validate(obj)
	if result.IsValid() {
		return nil
	}
	return ToFieldErrors(fldPath, result)
}

// ValidateValuesUpdate is ValidateValues with ratcheting against old.
func (v *Validator) ValidateValuesUpdate(fldPath *field.Path, obj, old interface{}) field.ErrorList {
	// Ratcheting only drops errors: a valid object needs no correlation.
	if v.fast.valid(obj) {
		return nil
	}
	result := newRatchetingValidator(v.openAPI, "", correlate(obj, old, v.openAPI)).Validate(obj)
	if result.IsValid() {
		return nil
	}
	return ToFieldErrors(fldPath, result)
}

// ToFieldErrors translates the value validator's errors into the
// field.Errors kube-apiserver returns.
func ToFieldErrors(fldPath *field.Path, result *validate.Result) field.ErrorList {
	var allErrs field.ErrorList
	for _, err := range result.Errors {
		verr, ok := err.(*openapierrors.Validation)
		if !ok {
			// composite errors (allOf, anyOf, oneOf, not) carry their path
			// in the message
			allErrs = append(allErrs, field.Invalid(fldPath, "", err.Error()))
			continue
		}

		errPath := fldPath
		if len(verr.Name) > 0 && verr.Name != "." {
			errPath = errPath.Child(strings.TrimPrefix(verr.Name, "."))
		}

		switch verr.Code() {
		case openapierrors.RequiredFailCode:
			allErrs = append(allErrs, field.Required(errPath, ""))

		case openapierrors.EnumFailCode:
			values := []string{}
			for _, allowed := range verr.Values {
				if s, ok := allowed.(string); ok {
					values = append(values, s)
				} else {
					allowedJSON, _ := json.Marshal(allowed)
					values = append(values, string(allowedJSON))
				}
			}
			allErrs = append(allErrs, field.NotSupported(errPath, verr.Value, values))

		case openapierrors.TooLongFailCode:
			allErrs = append(allErrs, field.TooLong(errPath, "", int(int64OrMinusOne(verr.Valid))))

		case openapierrors.MaxItemsFailCode, openapierrors.TooManyPropertiesCode:
			allErrs = append(allErrs, field.TooMany(errPath, int(int64OrMinusOne(verr.Value)), int(int64OrMinusOne(verr.Valid))))

		case openapierrors.InvalidTypeCode:
			allErrs = append(allErrs, field.TypeInvalid(errPath, valueOrEmpty(verr.Value), verr.Error()))

		default:
			allErrs = append(allErrs, field.Invalid(errPath, valueOrEmpty(verr.Value), verr.Error()))
		}
	}
	return allErrs
}

func int64OrMinusOne(x interface{}) int64 {
	if i, ok := x.(int64); ok {
		return i
	}
	return -1
}

func valueOrEmpty(x interface{}) interface{} {
	if x == nil {
		return ""
	}
	return x
}
