package schemavalidation

import (
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/apiextensions/schema"
	"github.com/kapi-dev/kapi/pkg/apiextensions/schema/objectmeta"
	"github.com/kapi-dev/kapi/pkg/apiextensions/schema/valuevalidation"
)

// SchemaValidationOptions tunes ValidateCustomResourceDefinitionSchema.
// The zero value is what a new CRD gets. The Allow* fields relax rules on
// update, so that a schema stored by an older server stays acceptable: set
// each one when the old CRD already breaks the rule (see the Schema*
// predicates below), as kube-apiserver does.
type SchemaValidationOptions struct {
	// StatusSubresource is set when the version has the status subresource:
	// the root may then only hold fields that still apply once status is
	// split off (type object, properties, ...).
	StatusSubresource bool

	// AllowNonStructural skips the structural-schema rules and default
	// validation. kube-apiserver only does so for CRDs with
	// spec.preserveUnknownFields true whose schemas use no defaults and no
	// x-kubernetes-* extension, or when the old CRD was already
	// non-structural (SchemaIsNonStructural).
	AllowNonStructural bool
	// AllowUnprunedDefaults accepts defaults with unknown fields
	// (SchemaHasUnprunedDefaults on the old CRD).
	AllowUnprunedDefaults bool
	// AllowNonAtomicSetItems accepts x-kubernetes-list-type: set over
	// granular maps or lists (SchemaHasNonAtomicSetItems on the old CRD).
	AllowNonAtomicSetItems bool
	// AllowInvalidListMapKeys accepts nullable set/map items and map keys
	// that are neither required nor defaulted (SchemaHasInvalidListMapKeys
	// on the old CRD).
	AllowInvalidListMapKeys bool
	// AllowInvalidTypes accepts types that are not OpenAPI v3 types
	// (SchemaHasInvalidTypes on the old CRD).
	AllowInvalidTypes bool

	// ValidateDefaultRules, if set, checks a default value against the
	// x-kubernetes-validations rules of s (the CEL package's job). It is
	// called where kube-apiserver runs them: only for defaults that passed
	// every other check. isResourceRoot says whether s describes a resource
	// (the root or an embedded resource).
	ValidateDefaultRules func(fldPath *field.Path, s *schema.Structural, isResourceRoot bool, value interface{}) field.ErrorList
}

var openAPIV3Types = sets.New("string", "number", "integer", "boolean", "array", "object")

// allowedAtRootWithStatus are the JSONSchemaProps fields a root schema may
// set when the status subresource is enabled.
var allowedAtRootWithStatus = []string{"Description", "Type", "Format", "Title", "Maximum", "ExclusiveMaximum", "Minimum", "ExclusiveMinimum", "MaxLength", "MinLength", "Pattern", "MaxItems", "MinItems", "UniqueItems", "MultipleOf", "Required", "Items", "Properties", "ExternalDocs", "Example", "XPreserveUnknownFields", "XValidations"}

var supportedRuleReasons = []string{
	string(apiextensionsv1.FieldValueDuplicate),
	string(apiextensionsv1.FieldValueForbidden),
	string(apiextensionsv1.FieldValueInvalid),
	string(apiextensionsv1.FieldValueRequired),
}

// ValidateCustomResourceDefinitionSchema checks the openAPIV3Schema of one
// CRD version, found at fldPath (e.g.
// spec.versions[0].schema.openAPIV3Schema), as kube-apiserver's CRD
// validation does, in the same order and with the same messages:
//
//   - with the status subresource, only some fields at the root; the root
//     is not nullable;
//   - the structural-schema rules (ValidateStructuralInvariants);
//   - default values validate against their schema, are pruned, and
//     produce valid metadata (ObjectMeta defaults only below metadata of
//     embedded resources; no defaults in the root's apiVersion, kind and
//     metadata);
//   - the OpenAPI subset: no $ref, id, patternProperties, definitions,
//     dependencies, additionalItems, item arrays, type null,
//     uniqueItems: true, additionalProperties together with properties;
//   - the x-kubernetes-* extensions: list types and map keys, map types,
//     preserve-unknown-fields true, embedded resources outside metadata,
//     the static parts of x-kubernetes-validations (rule, message, reason,
//     fieldPath).
//
// Compiling the x-kubernetes-validations rules and estimating their cost is
// left to the CEL package.
func ValidateCustomResourceDefinitionSchema(fldPath *field.Path, s *apiextensionsv1.JSONSchemaProps, opts SchemaValidationOptions) field.ErrorList {
	allErrs := field.ErrorList{}
	if s == nil {
		return allErrs
	}

	if opts.StatusSubresource {
		allErrs = append(allErrs, validateRootWithStatus(fldPath, s)...)
	}
	if s.Nullable {
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("nullable"), "nullable cannot be true at the root"))
	}

	// The conversion errors overlap with the OpenAPI errors below; they are
	// only reported when there is nothing else to say.
	var conversionErrs field.ErrorList
	if !opts.AllowNonStructural {
		if ss, err := schema.NewStructural(s); err != nil {
			conversionErrs = append(conversionErrs, field.Invalid(fldPath, "", err.Error()))
		} else if errs := ValidateStructuralInvariants(fldPath, ss); len(errs) > 0 {
			allErrs = append(allErrs, errs...)
		} else if errs, err := validateDefaults(fldPath, ss, !opts.AllowUnprunedDefaults, opts.ValidateDefaultRules); err != nil {
			allErrs = append(allErrs, field.Invalid(fldPath, "", err.Error()))
		} else {
			allErrs = append(allErrs, errs...)
		}
	}

	v := openAPISchemaValidator{opts: opts}
	allErrs = append(allErrs, v.validate(s, fldPath, schemaContext{}, true)...)

	if len(allErrs) == 0 && len(conversionErrs) > 0 {
		allErrs = append(allErrs, conversionErrs...)
	}

	// The value validator must be buildable from whatever passed.
	if len(allErrs) == 0 {
		if _, err := valuevalidation.NewValidator(s); err != nil {
			allErrs = append(allErrs, field.Invalid(fldPath, "", fmt.Sprintf("error building validator: %v", err)))
		}
	}
	return allErrs
}

// validateRootWithStatus checks that, with the status subresource enabled,
// the root only sets fields that keep their meaning once status is split
// off. Like kube-apiserver it stops at the first offending field.
func validateRootWithStatus(fldPath *field.Path, s *apiextensionsv1.JSONSchemaProps) field.ErrorList {
	internal := toInternal(s)
	v := reflect.ValueOf(internal).Elem()
	for i := 0; i < v.NumField(); i++ {
		value := v.Field(i)
		if value.IsZero() {
			continue
		}
		name := v.Type().Field(i).Name
		if name == "Type" {
			if s.Type != "object" {
				return field.ErrorList{field.Invalid(fldPath.Child("type"), s.Type, `only "object" is allowed as the type at the root of the schema if the status subresource is enabled`)}
			}
			continue
		}
		if !sets.New(allowedAtRootWithStatus...).Has(name) {
			return field.ErrorList{field.Invalid(fldPath, *internal, fmt.Sprintf(`only %v fields are allowed at the root of the schema if the status subresource is enabled`, allowedAtRootWithStatus))}
		}
	}
	return nil
}

// toInternal converts s to the internal apiextensions type. Some error
// values kube-apiserver reports are internal schema objects, which render
// differently (Go field names) from the v1 type; converting keeps the
// messages identical.
func toInternal(s *apiextensionsv1.JSONSchemaProps) *apiextensions.JSONSchemaProps {
	out := &apiextensions.JSONSchemaProps{}
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(s, out, nil); err != nil {
		// Only malformed raw JSON can fail; fall back to an empty value
		// rather than failing validation of something already reported.
		return &apiextensions.JSONSchemaProps{}
	}
	return out
}

func toInternalItems(items *apiextensionsv1.JSONSchemaPropsOrArray) *apiextensions.JSONSchemaPropsOrArray {
	out := &apiextensions.JSONSchemaPropsOrArray{}
	if err := apiextensionsv1.Convert_v1_JSONSchemaPropsOrArray_To_apiextensions_JSONSchemaPropsOrArray(items, out, nil); err != nil {
		return &apiextensions.JSONSchemaPropsOrArray{}
	}
	return out
}

// schemaContext is what the walk knows about where a schema node sits.
type schemaContext struct {
	// defaultsForbidden gives the reason defaults are not allowed here,
	// empty if they are.
	defaultsForbidden string
	// insideResourceMeta is set below apiVersion, kind and metadata of the
	// root or of an embedded resource.
	insideResourceMeta bool
}

func (c schemaContext) withDefaultsForbidden(reason string) schemaContext {
	c.defaultsForbidden = reason
	return c
}

func (c schemaContext) withInsideResourceMeta() schemaContext {
	c.insideResourceMeta = true
	return c
}

type openAPISchemaValidator struct {
	opts SchemaValidationOptions
}

// validate walks the schema: first the node's own fields, then its
// children, then its Kubernetes extensions, like kube-apiserver (which
// walks properties in random order; this walk sorts them).
func (v openAPISchemaValidator) validate(s *apiextensionsv1.JSONSchemaProps, fldPath *field.Path, ctx schemaContext, isRoot bool) field.ErrorList {
	allErrs := field.ErrorList{}
	if s == nil {
		return allErrs
	}
	allErrs = append(allErrs, v.validateSupportedFields(s, fldPath, ctx)...)

	if s.UniqueItems {
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("uniqueItems"), "uniqueItems cannot be set to true since the runtime complexity becomes quadratic"))
	}

	// additionalProperties is for maps, properties for structs; both at
	// once would contradict the convention of ignoring unknown fields.
	if ap := s.AdditionalProperties; ap != nil {
		if len(s.Properties) != 0 && (!ap.Allows || ap.Schema != nil) {
			allErrs = append(allErrs, field.Forbidden(fldPath.Child("additionalProperties"), "additionalProperties and properties are mutual exclusive"))
		}
		apCtx := ctx
		if ctx.insideResourceMeta {
			// pruning a default without an actual key is ambiguous
			apCtx = ctx.withDefaultsForbidden("inside additionalProperties applying to object metadata")
		}
		allErrs = append(allErrs, v.validate(ap.Schema, fldPath.Child("additionalProperties"), apCtx, false)...)
	}

	for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
		prop := s.Properties[name]
		propCtx := ctx
		if (isRoot || s.XEmbeddedResource) && objectmeta.IsTypeOrObjectMetaField(name) {
			propCtx = propCtx.withInsideResourceMeta()
			if isRoot {
				propCtx = propCtx.withDefaultsForbidden(fmt.Sprintf("in top-level %s", name))
			}
		}
		allErrs = append(allErrs, v.validate(&prop, fldPath.Child("properties").Key(name), propCtx, false)...)
	}

	allErrs = append(allErrs, v.validate(s.Not, fldPath.Child("not"), ctx, false)...)
	for i := range s.AllOf {
		allErrs = append(allErrs, v.validate(&s.AllOf[i], fldPath.Child("allOf").Index(i), ctx, false)...)
	}
	for i := range s.OneOf {
		allErrs = append(allErrs, v.validate(&s.OneOf[i], fldPath.Child("oneOf").Index(i), ctx, false)...)
	}
	for i := range s.AnyOf {
		allErrs = append(allErrs, v.validate(&s.AnyOf[i], fldPath.Child("anyOf").Index(i), ctx, false)...)
	}
	for _, name := range slices.Sorted(maps.Keys(s.Definitions)) {
		def := s.Definitions[name]
		allErrs = append(allErrs, v.validate(&def, fldPath.Child("definitions").Key(name), ctx, false)...)
	}
	if s.Items != nil {
		allErrs = append(allErrs, v.validate(s.Items.Schema, fldPath.Child("items"), ctx, false)...)
		for i := range s.Items.JSONSchemas {
			allErrs = append(allErrs, v.validate(&s.Items.JSONSchemas[i], fldPath.Child("items").Index(i), ctx, false)...)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(s.Dependencies)) {
		allErrs = append(allErrs, v.validate(s.Dependencies[name].Schema, fldPath.Child("dependencies").Key(name), ctx, false)...)
	}

	allErrs = append(allErrs, v.validateExtensions(s, fldPath)...)
	allErrs = append(allErrs, validateRuleDeclarations(s, fldPath)...)
	return allErrs
}

// validateSupportedFields rejects the parts of OpenAPI v3 that CRDs do not
// support.
func (v openAPISchemaValidator) validateSupportedFields(s *apiextensionsv1.JSONSchemaProps, fldPath *field.Path, ctx schemaContext) field.ErrorList {
	allErrs := field.ErrorList{}

	if !v.opts.AllowInvalidTypes && len(s.Type) > 0 && !openAPIV3Types.Has(s.Type) {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("type"), s.Type, sets.List(openAPIV3Types)))
	}
	if s.Default != nil && ctx.defaultsForbidden != "" {
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("default"), "must not be set "+ctx.defaultsForbidden))
	}
	if s.ID != "" {
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("id"), "id is not supported"))
	}
	if s.AdditionalItems != nil {
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("additionalItems"), "additionalItems is not supported"))
	}
	if len(s.PatternProperties) != 0 {
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("patternProperties"), "patternProperties is not supported"))
	}
	if len(s.Definitions) != 0 {
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("definitions"), "definitions is not supported"))
	}
	if s.Dependencies != nil {
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("dependencies"), "dependencies is not supported"))
	}
	if s.Ref != nil {
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("$ref"), "$ref is not supported"))
	}
	if s.Type == "null" {
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("type"), "type cannot be set to null, use nullable as an alternative"))
	}
	if s.Items != nil && len(s.Items.JSONSchemas) != 0 {
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("items"), "items must be a schema object and not an array"))
	}
	if ctx.insideResourceMeta && s.XEmbeddedResource {
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("x-kubernetes-embedded-resource"), "must not be used inside of resource meta"))
	}
	return allErrs
}

// validateExtensions checks the x-kubernetes-* extensions of one node.
func (v openAPISchemaValidator) validateExtensions(s *apiextensionsv1.JSONSchemaProps, fldPath *field.Path) field.ErrorList {
	allErrs := field.ErrorList{}

	if s.XPreserveUnknownFields != nil && !*s.XPreserveUnknownFields {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("x-kubernetes-preserve-unknown-fields"), *s.XPreserveUnknownFields, "must be true or undefined"))
	}

	if s.XMapType != nil && s.Type != "object" {
		if len(s.Type) == 0 {
			allErrs = append(allErrs, field.Required(fldPath.Child("type"), "must be object if x-kubernetes-map-type is specified"))
		} else {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("type"), s.Type, "must be object if x-kubernetes-map-type is specified"))
		}
	}
	if s.XMapType != nil && *s.XMapType != "atomic" && *s.XMapType != "granular" {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("x-kubernetes-map-type"), *s.XMapType, []string{"atomic", "granular"}))
	}

	if s.XListType != nil && s.Type != "array" {
		if len(s.Type) == 0 {
			allErrs = append(allErrs, field.Required(fldPath.Child("type"), "must be array if x-kubernetes-list-type is specified"))
		} else {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("type"), s.Type, "must be array if x-kubernetes-list-type is specified"))
		}
	} else if !v.opts.AllowNonAtomicSetItems && isListType(s, "set") && s.Items != nil && s.Items.Schema != nil {
		// Set items are compared as wholes, so they must be atomic.
		items := s.Items.Schema
		switch items.Type {
		case "array":
			if items.XListType != nil && *items.XListType != "atomic" {
				allErrs = append(allErrs, field.Invalid(fldPath.Child("items").Child("x-kubernetes-list-type"), items.XListType, "must be atomic as item of a list with x-kubernetes-list-type=set"))
			}
		case "object":
			if items.XMapType == nil || *items.XMapType != "atomic" {
				// kube-apiserver reports the items' list type here.
				allErrs = append(allErrs, field.Invalid(fldPath.Child("items").Child("x-kubernetes-map-type"), items.XListType, "must be atomic as item of a list with x-kubernetes-list-type=set"))
			}
		}
	}

	if s.XListType != nil && *s.XListType != "atomic" && *s.XListType != "set" && *s.XListType != "map" {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("x-kubernetes-list-type"), *s.XListType, []string{"atomic", "set", "map"}))
	}

	if len(s.XListMapKeys) > 0 {
		if s.XListType == nil {
			allErrs = append(allErrs, field.Required(fldPath.Child("x-kubernetes-list-type"), "must be map if x-kubernetes-list-map-keys is non-empty"))
		} else if *s.XListType != "map" {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("x-kubernetes-list-type"), *s.XListType, "must be map if x-kubernetes-list-map-keys is non-empty"))
		}
	}

	if isListType(s, "map") {
		allErrs = append(allErrs, validateListMapDeclaration(s, fldPath)...)
	}

	if !v.opts.AllowInvalidListMapKeys {
		allErrs = append(allErrs, validateListMapKeysAndSetItems(s, fldPath)...)
	}
	return allErrs
}

func isListType(s *apiextensionsv1.JSONSchemaProps, listType string) bool {
	return s.XListType != nil && *s.XListType == listType
}

// validateListMapDeclaration checks x-kubernetes-list-type: map: keys are
// given, and are scalar properties of object items.
func validateListMapDeclaration(s *apiextensionsv1.JSONSchemaProps, fldPath *field.Path) field.ErrorList {
	allErrs := field.ErrorList{}
	if len(s.XListMapKeys) == 0 {
		allErrs = append(allErrs, field.Required(fldPath.Child("x-kubernetes-list-map-keys"), "must not be empty if x-kubernetes-list-type is map"))
	}
	if s.Items == nil {
		allErrs = append(allErrs, field.Required(fldPath.Child("items"), "must have a schema if x-kubernetes-list-type is map"))
		return allErrs
	}
	if s.Items.Schema == nil {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("items"), toInternalItems(s.Items), "must only have a single schema if x-kubernetes-list-type is map"))
		return allErrs
	}
	items := s.Items.Schema
	if items.Type != "object" {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("items").Child("type"), items.Type, "must be object if parent array's x-kubernetes-list-type is map"))
		return allErrs
	}
	seen := map[string]bool{}
	for _, key := range s.XListMapKeys {
		if prop, found := items.Properties[key]; found {
			if prop.Type == "array" || prop.Type == "object" {
				// kube-apiserver reports the items' type here.
				allErrs = append(allErrs, field.Invalid(fldPath.Child("items").Child("properties").Key(key).Child("type"), items.Type, "must be a scalar type if parent array's x-kubernetes-list-type is map"))
			}
		} else {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("x-kubernetes-list-map-keys"), s.XListMapKeys, "entries must all be names of item properties"))
		}
		if seen[key] {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("x-kubernetes-list-map-keys"), s.XListMapKeys, "must not contain duplicate entries"))
		}
		seen[key] = true
	}
	return allErrs
}

// validateListMapKeysAndSetItems checks that set and map items are not
// nullable, and that map keys are not nullable and always present
// (required or defaulted).
func validateListMapKeysAndSetItems(s *apiextensionsv1.JSONSchemaProps, fldPath *field.Path) field.ErrorList {
	allErrs := field.ErrorList{}
	if s.Items == nil || s.Items.Schema == nil || s.XListType == nil {
		return allErrs
	}
	listType := *s.XListType
	if listType != "set" && listType != "map" {
		return allErrs
	}
	items := s.Items.Schema
	if items.Nullable {
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("items").Child("nullable"), "cannot be nullable when x-kubernetes-list-type is "+listType))
	}
	if listType != "map" {
		return allErrs
	}
	required := sets.New(items.Required...)
	for _, key := range s.XListMapKeys {
		prop, found := items.Properties[key]
		if !found {
			continue // reported by validateListMapDeclaration
		}
		if !required.Has(key) && prop.Default == nil {
			allErrs = append(allErrs, field.Required(fldPath.Child("items").Child("properties").Key(key).Child("default"), "this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property"))
		}
		if prop.Nullable {
			allErrs = append(allErrs, field.Forbidden(fldPath.Child("items").Child("properties").Key(key).Child("nullable"), "this property is in x-kubernetes-list-map-keys, so it cannot be nullable"))
		}
	}
	return allErrs
}

var lineBreaks = regexp.MustCompile(`[\n\r]+`)

// validateRuleDeclarations checks what can be checked of the
// x-kubernetes-validations rules without compiling them.
func validateRuleDeclarations(s *apiextensionsv1.JSONSchemaProps, fldPath *field.Path) field.ErrorList {
	allErrs := field.ErrorList{}
	if len(s.XValidations) == 0 {
		return allErrs
	}
	var structural *schema.Structural // converted on demand, for fieldPath
	for i, rule := range s.XValidations {
		rulePath := fldPath.Child("x-kubernetes-validations").Index(i)
		trimmedRule := strings.TrimSpace(rule.Rule)
		trimmedMsg := strings.TrimSpace(rule.Message)
		trimmedMsgExpr := strings.TrimSpace(rule.MessageExpression)
		switch {
		case len(trimmedRule) == 0:
			allErrs = append(allErrs, field.Required(rulePath.Child("rule"), "rule is not specified"))
		case len(rule.Message) > 0 && len(trimmedMsg) == 0:
			allErrs = append(allErrs, field.Invalid(rulePath.Child("message"), rule.Message, "must be non-empty if specified"))
		case lineBreaks.MatchString(trimmedMsg):
			allErrs = append(allErrs, field.Invalid(rulePath.Child("message"), rule.Message, "must not contain line breaks"))
		case lineBreaks.MatchString(trimmedRule) && len(trimmedMsg) == 0:
			allErrs = append(allErrs, field.Required(rulePath.Child("message"), "message must be specified if rule contains line breaks"))
		}
		if len(rule.MessageExpression) > 0 && len(trimmedMsgExpr) == 0 {
			allErrs = append(allErrs, field.Required(rulePath.Child("messageExpression"), "messageExpression must be non-empty if specified"))
		}
		if rule.Reason != nil && !sets.New(supportedRuleReasons...).Has(string(*rule.Reason)) {
			allErrs = append(allErrs, field.NotSupported(rulePath.Child("reason"), *rule.Reason, supportedRuleReasons))
		}
		if len(rule.FieldPath) > 0 && len(strings.TrimSpace(rule.FieldPath)) == 0 {
			allErrs = append(allErrs, field.Invalid(rulePath.Child("fieldPath"), rule.FieldPath, "must be non-empty if specified"))
		}
		if lineBreaks.MatchString(rule.FieldPath) {
			allErrs = append(allErrs, field.Invalid(rulePath.Child("fieldPath"), rule.FieldPath, "must not contain line breaks"))
		}
		if len(rule.FieldPath) > 0 {
			if structural == nil {
				var err error
				if structural, err = schema.NewStructural(s); err != nil {
					// the schema's own errors are reported elsewhere
					continue
				}
			}
			if _, _, err := schema.ResolveFieldPath(rule.FieldPath, structural, true); err != nil {
				allErrs = append(allErrs, field.Invalid(rulePath.Child("fieldPath"), rule.FieldPath, "must be a valid path"))
			}
		}
	}
	return allErrs
}
