package schemavalidation

import (
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"sort"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/apiextensions/schema"
)

// level says where a schema node sits; some rules differ between the root,
// array items and object fields.
type level int

const (
	rootLevel level = iota
	itemLevel
	fieldLevel
)

// ValidateStructural converts s and checks that it is a structural schema,
// reporting violations as kube-apiserver does (this list becomes the
// message of a CRD's NonStructuralSchema condition, and CRD validation
// errors). If s cannot even be converted, the conversion error is reported
// as an Invalid error on fldPath.
func ValidateStructural(fldPath *field.Path, s *apiextensionsv1.JSONSchemaProps) field.ErrorList {
	ss, err := schema.NewStructural(s)
	if err != nil {
		return field.ErrorList{field.Invalid(fldPath, "", err.Error())}
	}
	return ValidateStructuralInvariants(fldPath, ss)
}

// ValidateStructuralInvariants checks that a converted schema is
// structural:
//
//   - every node has a type, except under x-kubernetes-int-or-string and
//     x-kubernetes-preserve-unknown-fields; arrays have items;
//   - schemas under allOf, anyOf, oneOf and not only restrict values: they
//     set no type, default, description, title, nullable, additionalProperties
//     or Kubernetes extension (with two exceptions for int-or-string);
//   - whatever those nested schemas mention is also specified outside of
//     them (checked for the junctors at the root, as kube-apiserver does);
//   - the root is an object without additionalProperties, and its metadata
//     may only restrict name and generateName;
//   - embedded resources are objects.
//
// The errors are sorted by their text, so the result does not depend on map
// iteration order.
func ValidateStructuralInvariants(fldPath *field.Path, s *schema.Structural) field.ErrorList {
	var allErrs field.ErrorList
	allErrs = append(allErrs, validateStructuralNode(s, rootLevel, fldPath)...)
	allErrs = append(allErrs, validateCompleteness(&s.ValueValidation, s, fldPath, fldPath)...)
	sort.SliceStable(allErrs, func(i, j int) bool {
		return allErrs[i].Error() < allErrs[j].Error()
	})
	return allErrs
}

func validateStructuralNode(s *schema.Structural, lvl level, fldPath *field.Path) field.ErrorList {
	if s == nil {
		return nil
	}
	var allErrs field.ErrorList

	if s.Type == "array" && s.Items == nil {
		allErrs = append(allErrs, field.Required(fldPath.Child("items"), "must be specified"))
	}
	allErrs = append(allErrs, validateStructuralNode(s.Items, itemLevel, fldPath.Child("items"))...)

	for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
		allErrs = append(allErrs, validateStructuralNode(s.Properties[name], fieldLevel, fldPath.Child("properties").Key(name))...)
	}

	if s.AdditionalProperties != nil {
		if lvl == rootLevel {
			allErrs = append(allErrs, field.Forbidden(fldPath.Child("additionalProperties"), "must not be used at the root"))
		}
		allErrs = append(allErrs, validateStructuralNode(s.AdditionalProperties.Schema, fieldLevel, fldPath.Child("additionalProperties"))...)
	}

	if s.XIntOrString && s.XPreserveUnknownFields {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("x-kubernetes-preserve-unknown-fields"), true, "must be false if x-kubernetes-int-or-string is true"))
	}
	if s.XIntOrString && s.XEmbeddedResource {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("x-kubernetes-embedded-resource"), true, "must be false if x-kubernetes-int-or-string is true"))
	}

	// The two int-or-string spellings put a type under anyOf; they are the
	// only nested types allowed.
	allErrs = append(allErrs, validateJunctors(&s.ValueValidation, schema.IsIntOrStringAnyOf(s), schema.IsIntOrStringAllOf(s), fldPath)...)

	describesResource := lvl == rootLevel || s.XEmbeddedResource

	if s.XEmbeddedResource && s.Type != "object" {
		if len(s.Type) == 0 {
			allErrs = append(allErrs, field.Required(fldPath.Child("type"), "must be object if x-kubernetes-embedded-resource is true"))
		} else {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("type"), s.Type, "must be object if x-kubernetes-embedded-resource is true"))
		}
	} else if len(s.Type) == 0 && !s.XIntOrString && !s.XPreserveUnknownFields {
		switch lvl {
		case rootLevel:
			allErrs = append(allErrs, field.Required(fldPath.Child("type"), "must not be empty at the root"))
		case itemLevel:
			allErrs = append(allErrs, field.Required(fldPath.Child("type"), "must not be empty for specified array items"))
		case fieldLevel:
			allErrs = append(allErrs, field.Required(fldPath.Child("type"), "must not be empty for specified object fields"))
		}
	}
	if s.XEmbeddedResource && s.AdditionalProperties != nil {
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("additionalProperties"), "must not be used if x-kubernetes-embedded-resource is set"))
	}

	if lvl == rootLevel && len(s.Type) > 0 && s.Type != "object" {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("type"), s.Type, "must be object at the root"))
	}

	if describesResource {
		for _, typeMetaField := range []string{"kind", "apiVersion"} {
			if prop, found := s.Properties[typeMetaField]; found && prop.Type != "string" {
				allErrs = append(allErrs, field.Invalid(fldPath.Child("properties").Key(typeMetaField).Child("type"), prop.Type, "must be string"))
			}
		}
	}
	if metadata, found := s.Properties["metadata"]; found {
		allErrs = append(allErrs, validateMetadataSchema(metadata, describesResource, lvl == rootLevel, fldPath.Child("properties").Key("metadata"))...)
	}

	if s.XEmbeddedResource && !s.XPreserveUnknownFields && len(s.Properties) == 0 {
		allErrs = append(allErrs, field.Required(fldPath.Child("properties"), "must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields"))
	}

	return allErrs
}

// validateMetadataSchema checks the schema of a metadata property. ObjectMeta
// is the server's business: at the root a schema may only narrow name and
// generateName.
func validateMetadataSchema(metadata *schema.Structural, describesResource, atRoot bool, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if describesResource && metadata.Type != "object" {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("type"), metadata.Type, "must be object"))
	}
	if !atRoot {
		return allErrs
	}

	rest := *metadata
	rest.Type = ""
	rest.Default = nil // defaults under metadata are checked by CRD validation
	_, hasName := rest.Properties["name"]
	_, hasGenerateName := rest.Properties["generateName"]
	if (hasName && hasGenerateName && len(rest.Properties) == 2) || ((hasName || hasGenerateName) && len(rest.Properties) == 1) {
		rest.Properties = nil
	}
	if !reflect.DeepEqual(rest, schema.Structural{}) {
		allErrs = append(allErrs, field.Forbidden(fldPath, "must not specify anything other than name and generateName, but metadata is implicitly specified"))
	}
	return allErrs
}

// validateJunctors checks the schemas under allOf, anyOf, oneOf and not.
func validateJunctors(v *schema.ValueValidation, skipAnyOf, skipFirstAllOfAnyOf bool, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if !skipAnyOf {
		for i, n := range v.AnyOf {
			allErrs = append(allErrs, validateNestedNode(n, false, fldPath.Child("anyOf").Index(i))...)
		}
	}
	for i, n := range v.AllOf {
		allErrs = append(allErrs, validateNestedNode(n, skipFirstAllOfAnyOf && i == 0, fldPath.Child("allOf").Index(i))...)
	}
	for i, n := range v.OneOf {
		allErrs = append(allErrs, validateNestedNode(n, false, fldPath.Child("oneOf").Index(i))...)
	}
	allErrs = append(allErrs, validateNestedNode(v.Not, false, fldPath.Child("not"))...)

	if len(v.Pattern) > 0 {
		if _, err := regexp.Compile(v.Pattern); err != nil {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("pattern"), v.Pattern, fmt.Sprintf("must be a valid regular expression, but isn't: %v", err)))
		}
	}
	return allErrs
}

// validateNestedNode checks a schema below a junctor: it may restrict
// values, but not add structure, defaults, documentation or extensions.
func validateNestedNode(n *schema.Structural, skipAnyOf bool, fldPath *field.Path) field.ErrorList {
	if n == nil {
		return nil
	}
	var allErrs field.ErrorList

	allErrs = append(allErrs, validateJunctors(&n.ValueValidation, skipAnyOf, false, fldPath)...)
	allErrs = append(allErrs, validateNestedNode(n.Items, false, fldPath.Child("items"))...)
	for _, name := range slices.Sorted(maps.Keys(n.Properties)) {
		allErrs = append(allErrs, validateNestedNode(n.Properties[name], false, fldPath.Child("properties").Key(name))...)
	}

	if len(n.Type) > 0 {
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("type"), "must be empty to be structural"))
	}
	if n.AdditionalProperties != nil {
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("additionalProperties"), "must be undefined to be structural"))
	}
	if n.Default != nil {
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("default"), "must be undefined to be structural"))
	}
	if len(n.Title) > 0 {
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("title"), "must be empty to be structural"))
	}
	if len(n.Description) > 0 {
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("description"), "must be empty to be structural"))
	}
	if n.Nullable {
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("nullable"), "must be false to be structural"))
	}
	if n.XPreserveUnknownFields {
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("x-kubernetes-preserve-unknown-fields"), "must be false to be structural"))
	}
	if n.XEmbeddedResource {
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("x-kubernetes-embedded-resource"), "must be false to be structural"))
	}
	if n.XIntOrString {
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("x-kubernetes-int-or-string"), "must be false to be structural"))
	}
	if len(n.XListMapKeys) > 0 {
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("x-kubernetes-list-map-keys"), "must be empty to be structural"))
	}
	if n.XListType != nil {
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("x-kubernetes-list-type"), "must be undefined to be structural"))
	}
	if n.XMapType != nil {
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("x-kubernetes-map-type"), "must be undefined to be structural"))
	}
	if len(n.XValidations) > 0 {
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("x-kubernetes-validations"), "must be empty to be structural"))
	}
	// Reasoning about metadata in a nested context could restrict it in
	// ways the server does not want.
	if _, found := n.Properties["metadata"]; found {
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("properties").Key("metadata"), "must not be specified in a nested context"))
	}
	return allErrs
}

// validateCompleteness checks that every property and items that a nested
// schema under v mentions is also specified by the structural schema s.
// sPath is where s sits, vPath where the nested schema sits.
func validateCompleteness(v *schema.ValueValidation, s *schema.Structural, sPath, vPath *field.Path) field.ErrorList {
	if s == nil {
		return field.ErrorList{field.Required(sPath, fmt.Sprintf("because it is defined in %s", vPath.String()))}
	}
	var allErrs field.ErrorList
	allErrs = append(allErrs, validateNestedCompleteness(v.Not, s, sPath, vPath.Child("not"))...)
	for i, n := range v.AllOf {
		allErrs = append(allErrs, validateNestedCompleteness(n, s, sPath, vPath.Child("allOf").Index(i))...)
	}
	for i, n := range v.AnyOf {
		allErrs = append(allErrs, validateNestedCompleteness(n, s, sPath, vPath.Child("anyOf").Index(i))...)
	}
	for i, n := range v.OneOf {
		allErrs = append(allErrs, validateNestedCompleteness(n, s, sPath, vPath.Child("oneOf").Index(i))...)
	}
	return allErrs
}

func validateNestedCompleteness(n *schema.Structural, s *schema.Structural, sPath, vPath *field.Path) field.ErrorList {
	if n == nil {
		return nil
	}
	if s == nil {
		return field.ErrorList{field.Required(sPath, fmt.Sprintf("because it is defined in %s", vPath.String()))}
	}
	var allErrs field.ErrorList
	allErrs = append(allErrs, validateCompleteness(&n.ValueValidation, s, sPath, vPath)...)
	allErrs = append(allErrs, validateNestedCompleteness(n.Items, s.Items, sPath.Child("items"), vPath.Child("items"))...)
	for _, name := range slices.Sorted(maps.Keys(n.Properties)) {
		sProp, found := s.Properties[name]
		if !found {
			allErrs = append(allErrs, field.Required(sPath.Child("properties").Key(name), fmt.Sprintf("because it is defined in %s", vPath.Child("properties").Key(name))))
			continue
		}
		allErrs = append(allErrs, validateNestedCompleteness(n.Properties[name], sProp, sPath.Child("properties").Key(name), vPath.Child("properties").Key(name))...)
	}
	return allErrs
}
