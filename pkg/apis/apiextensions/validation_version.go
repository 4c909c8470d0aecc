package apiextensions

import (
	"fmt"
	"sort"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// maxSelectableFields bounds the field selectors a custom resource offers:
// each one costs an index in the watch cache.
const maxSelectableFields = 8

var (
	printerColumnTypes   = []string{"boolean", "date", "integer", "number", "string"}
	printerColumnFormats = []string{"byte", "date", "date-time", "double", "float", "int32", "int64", "password"}
)

// validateSchema validates a version's schema (or the shared, hoisted one
// at spec.validation). The rules that need the rest of the CRD live here;
// the schema's own rules are opts.ValidateSchema's.
func validateSchema(v *apiextensionsv1.CustomResourceValidation, statusEnabled bool, rules specRules, fldPath *field.Path) field.ErrorList {
	if v == nil || v.OpenAPIV3Schema == nil {
		return nil
	}
	schemaPath := fldPath.Child("openAPIV3Schema")
	var allErrs field.ErrorList
	if statusEnabled {
		allErrs = append(allErrs, validateRootForStatus(v.OpenAPIV3Schema, schemaPath)...)
	}
	if rules.ValidateSchema != nil {
		allErrs = append(allErrs, rules.ValidateSchema(schemaPath, v.OpenAPIV3Schema)...)
	}
	return allErrs
}

// rootField is one field of the internal JSONSchemaProps, in the internal
// struct's order, with whether a v1 schema sets it (non-zero in the
// internal form: a non-nil empty list counts as set).
type rootField struct {
	name  string
	isSet func(s *apiextensionsv1.JSONSchemaProps) bool
}

var rootFields = []rootField{
	{"ID", func(s *apiextensionsv1.JSONSchemaProps) bool { return s.ID != "" }},
	{"Schema", func(s *apiextensionsv1.JSONSchemaProps) bool { return s.Schema != "" }},
	{"Ref", func(s *apiextensionsv1.JSONSchemaProps) bool { return s.Ref != nil }},
	{"Description", func(s *apiextensionsv1.JSONSchemaProps) bool { return s.Description != "" }},
	{"Type", func(s *apiextensionsv1.JSONSchemaProps) bool { return s.Type != "" }},
	{"Nullable", func(s *apiextensionsv1.JSONSchemaProps) bool { return s.Nullable }},
	{"Format", func(s *apiextensionsv1.JSONSchemaProps) bool { return s.Format != "" }},
	{"Title", func(s *apiextensionsv1.JSONSchemaProps) bool { return s.Title != "" }},
	{"Default", func(s *apiextensionsv1.JSONSchemaProps) bool { return s.Default != nil }},
	{"Maximum", func(s *apiextensionsv1.JSONSchemaProps) bool { return s.Maximum != nil }},
	{"ExclusiveMaximum", func(s *apiextensionsv1.JSONSchemaProps) bool { return s.ExclusiveMaximum }},
	{"Minimum", func(s *apiextensionsv1.JSONSchemaProps) bool { return s.Minimum != nil }},
	{"ExclusiveMinimum", func(s *apiextensionsv1.JSONSchemaProps) bool { return s.ExclusiveMinimum }},
	{"MaxLength", func(s *apiextensionsv1.JSONSchemaProps) bool { return s.MaxLength != nil }},
	{"MinLength", func(s *apiextensionsv1.JSONSchemaProps) bool { return s.MinLength != nil }},
	{"Pattern", func(s *apiextensionsv1.JSONSchemaProps) bool { return s.Pattern != "" }},
	{"MaxItems", func(s *apiextensionsv1.JSONSchemaProps) bool { return s.MaxItems != nil }},
	{"MinItems", func(s *apiextensionsv1.JSONSchemaProps) bool { return s.MinItems != nil }},
	{"UniqueItems", func(s *apiextensionsv1.JSONSchemaProps) bool { return s.UniqueItems }},
	{"MultipleOf", func(s *apiextensionsv1.JSONSchemaProps) bool { return s.MultipleOf != nil }},
	{"Enum", func(s *apiextensionsv1.JSONSchemaProps) bool { return s.Enum != nil }},
	{"MaxProperties", func(s *apiextensionsv1.JSONSchemaProps) bool { return s.MaxProperties != nil }},
	{"MinProperties", func(s *apiextensionsv1.JSONSchemaProps) bool { return s.MinProperties != nil }},
	{"Required", func(s *apiextensionsv1.JSONSchemaProps) bool { return s.Required != nil }},
	{"Items", func(s *apiextensionsv1.JSONSchemaProps) bool { return s.Items != nil }},
	{"AllOf", func(s *apiextensionsv1.JSONSchemaProps) bool { return s.AllOf != nil }},
	{"OneOf", func(s *apiextensionsv1.JSONSchemaProps) bool { return s.OneOf != nil }},
	{"AnyOf", func(s *apiextensionsv1.JSONSchemaProps) bool { return s.AnyOf != nil }},
	{"Not", func(s *apiextensionsv1.JSONSchemaProps) bool { return s.Not != nil }},
	{"Properties", func(s *apiextensionsv1.JSONSchemaProps) bool { return s.Properties != nil }},
	{"AdditionalProperties", func(s *apiextensionsv1.JSONSchemaProps) bool { return s.AdditionalProperties != nil }},
	{"PatternProperties", func(s *apiextensionsv1.JSONSchemaProps) bool { return s.PatternProperties != nil }},
	{"Dependencies", func(s *apiextensionsv1.JSONSchemaProps) bool { return s.Dependencies != nil }},
	{"AdditionalItems", func(s *apiextensionsv1.JSONSchemaProps) bool { return s.AdditionalItems != nil }},
	{"Definitions", func(s *apiextensionsv1.JSONSchemaProps) bool { return s.Definitions != nil }},
	{"ExternalDocs", func(s *apiextensionsv1.JSONSchemaProps) bool { return s.ExternalDocs != nil }},
	{"Example", func(s *apiextensionsv1.JSONSchemaProps) bool { return s.Example != nil }},
	{"XPreserveUnknownFields", func(s *apiextensionsv1.JSONSchemaProps) bool { return s.XPreserveUnknownFields != nil }},
	{"XEmbeddedResource", func(s *apiextensionsv1.JSONSchemaProps) bool { return s.XEmbeddedResource }},
	{"XIntOrString", func(s *apiextensionsv1.JSONSchemaProps) bool { return s.XIntOrString }},
	{"XListMapKeys", func(s *apiextensionsv1.JSONSchemaProps) bool { return s.XListMapKeys != nil }},
	{"XListType", func(s *apiextensionsv1.JSONSchemaProps) bool { return s.XListType != nil }},
	{"XMapType", func(s *apiextensionsv1.JSONSchemaProps) bool { return s.XMapType != nil }},
	{"XValidations", func(s *apiextensionsv1.JSONSchemaProps) bool { return s.XValidations != nil }},
}

// allowedAtRootWithStatus are the root schema fields that survive taking
// properties["status"] out as the status subresource's schema.
var allowedAtRootWithStatus = []string{"Description", "Type", "Format", "Title", "Maximum", "ExclusiveMaximum", "Minimum", "ExclusiveMinimum", "MaxLength", "MinLength", "Pattern", "MaxItems", "MinItems", "UniqueItems", "MultipleOf", "Required", "Items", "Properties", "ExternalDocs", "Example", "XPreserveUnknownFields", "XValidations"}

// validateRootForStatus: with a status subresource, the status stanza is
// validated on its own with properties["status"], so the root may only
// hold what still means the same thing then. Like kube-apiserver, it stops
// at the first offending field.
func validateRootForStatus(s *apiextensionsv1.JSONSchemaProps, fldPath *field.Path) field.ErrorList {
	for _, f := range rootFields {
		if !f.isSet(s) {
			continue
		}
		if f.name == "Type" {
			if s.Type != "object" {
				return field.ErrorList{field.Invalid(fldPath.Child("type"), s.Type, `only "object" is allowed as the type at the root of the schema if the status subresource is enabled`)}
			}
			continue
		}
		if !contains(allowedAtRootWithStatus, f.name) {
			return field.ErrorList{field.Invalid(fldPath, internalSchemaValue(s), fmt.Sprintf("only %v fields are allowed at the root of the schema if the status subresource is enabled", allowedAtRootWithStatus))}
		}
	}
	return nil
}

// validateSubresources checks the scale subresource's JSON paths; status
// has nothing to configure.
func validateSubresources(subresources *apiextensionsv1.CustomResourceSubresources, fldPath *field.Path) field.ErrorList {
	if subresources == nil || subresources.Scale == nil {
		return nil
	}
	scale := subresources.Scale
	var allErrs field.ErrorList

	specPath := fldPath.Child("scale", "specReplicasPath")
	if scale.SpecReplicasPath == "" {
		allErrs = append(allErrs, field.Required(specPath, ""))
	} else if errs := validateSimpleJSONPath(scale.SpecReplicasPath, specPath); len(errs) > 0 {
		allErrs = append(allErrs, errs...)
	} else if !strings.HasPrefix(scale.SpecReplicasPath, ".spec.") {
		allErrs = append(allErrs, field.Invalid(specPath, scale.SpecReplicasPath, "should be a json path under .spec"))
	}

	statusPath := fldPath.Child("scale", "statusReplicasPath")
	if scale.StatusReplicasPath == "" {
		allErrs = append(allErrs, field.Required(statusPath, ""))
	} else if errs := validateSimpleJSONPath(scale.StatusReplicasPath, statusPath); len(errs) > 0 {
		allErrs = append(allErrs, errs...)
	} else if !strings.HasPrefix(scale.StatusReplicasPath, ".status.") {
		allErrs = append(allErrs, field.Invalid(statusPath, scale.StatusReplicasPath, "should be a json path under .status"))
	}

	if scale.LabelSelectorPath != nil && *scale.LabelSelectorPath != "" {
		selectorPath := fldPath.Child("scale", "labelSelectorPath")
		if errs := validateSimpleJSONPath(*scale.LabelSelectorPath, selectorPath); len(errs) > 0 {
			allErrs = append(allErrs, errs...)
		} else if !strings.HasPrefix(*scale.LabelSelectorPath, ".spec.") && !strings.HasPrefix(*scale.LabelSelectorPath, ".status.") {
			allErrs = append(allErrs, field.Invalid(selectorPath, scale.LabelSelectorPath, "should be a json path under either .spec or .status"))
		}
	}
	return allErrs
}

// validateSimpleJSONPath accepts the dotted paths kubectl's JSONPath
// printer and the scale subresource understand.
func validateSimpleJSONPath(s string, fldPath *field.Path) field.ErrorList {
	switch {
	case s == "":
		return field.ErrorList{field.Invalid(fldPath, s, "must not be empty")}
	case s[0] != '.':
		return field.ErrorList{field.Invalid(fldPath, s, "must be a simple json path starting with .")}
	}
	return nil
}

// validateColumn validates an additional printer column. Note the
// "JSONPath" path element: kube-apiserver names the field by its Go name.
func validateColumn(col *apiextensionsv1.CustomResourceColumnDefinition, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if col.Name == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("name"), ""))
	}
	typesMsg := "must be one of " + strings.Join(printerColumnTypes, ",")
	if col.Type == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("type"), typesMsg))
	} else if !contains(printerColumnTypes, col.Type) {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("type"), col.Type, typesMsg))
	}
	if col.Format != "" && !contains(printerColumnFormats, col.Format) {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("format"), col.Format, "must be one of "+strings.Join(printerColumnFormats, ",")))
	}
	if col.JSONPath == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("JSONPath"), ""))
	} else {
		allErrs = append(allErrs, validateSimpleJSONPath(col.JSONPath, fldPath.Child("JSONPath"))...)
	}
	return allErrs
}

// validateSelectableFields checks that each selectable field names a
// scalar field of the schema that field selectors can compare: a string,
// boolean or integer outside metadata. schemaPath is where a schema that
// cannot be resolved is reported.
func validateSelectableFields(fields []apiextensionsv1.SelectableField, schema *apiextensionsv1.JSONSchemaProps, schemaPath, fldPath *field.Path, allowTooMany bool) field.ErrorList {
	var allErrs field.ErrorList
	if err := structuralError(schema); err != nil {
		allErrs = append(allErrs, field.Invalid(schemaPath, "", err.Error()))
		// kube-apiserver goes on with no schema at all (and fails on the
		// first path); every path is then unresolvable.
		schema = nil
	}
	unique := map[string]bool{}
	for i, f := range fields {
		jsonPathPath := fldPath.Index(i).Child("jsonPath")
		if f.JSONPath == "" {
			allErrs = append(allErrs, field.Required(jsonPathPath, ""))
			continue
		}
		path, found, err := resolveFieldPath(f.JSONPath, schema)
		if err != nil {
			allErrs = append(allErrs, field.Invalid(jsonPathPath, f.JSONPath, fmt.Sprintf("is an invalid path: %v", err)))
			continue
		}
		if path.Root().String() == "metadata" {
			allErrs = append(allErrs, field.Invalid(jsonPathPath, f.JSONPath, "must not point to fields in metadata"))
		}
		if found == nil || (found.Type != "string" && found.Type != "boolean" && found.Type != "integer") {
			allErrs = append(allErrs, field.Invalid(jsonPathPath, f.JSONPath, "must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed."))
		}
		if unique[path.String()] {
			allErrs = append(allErrs, field.Duplicate(jsonPathPath, f.JSONPath))
		}
		unique[path.String()] = true
	}
	if len(unique) > maxSelectableFields && !allowTooMany {
		allErrs = append(allErrs, field.TooMany(fldPath, len(unique), maxSelectableFields))
	}
	return allErrs
}

// resolveFieldPath follows a selectable field's JSON path (".spec.color",
// ".spec.labels.team") through the schema as kube-apiserver resolves CEL
// field paths without array notation: a step names a property, or, in an
// object without properties but with additionalProperties, a map key.
// A quoted step ('a.b') is taken whole, quotes included.
func resolveFieldPath(jsonPath string, schema *apiextensionsv1.JSONSchemaProps) (*field.Path, *apiextensionsv1.JSONSchemaProps, error) {
	tokens := tokenizeFieldPath(jsonPath)
	var path *field.Path
	for i := 0; i < len(tokens); i++ {
		switch tokens[i] {
		case "[":
			return nil, nil, fmt.Errorf("array notation is not allowed")
		case ".":
			i++
			if i == len(tokens) {
				return nil, nil, fmt.Errorf("unexpected end of JSON path")
			}
			name := tokens[i]
			switch {
			case schema == nil:
				// kube-apiserver cannot go on either (it panics).
				return nil, nil, fmt.Errorf("does not refer to a valid field")
			case len(schema.Properties) > 0:
				child, ok := schema.Properties[name]
				if !ok {
					return nil, nil, fmt.Errorf("does not refer to a valid field")
				}
				path, schema = path.Child(name), &child
			case schema.AdditionalProperties != nil:
				path, schema = path.Key(name), schema.AdditionalProperties.Schema
			default:
				return nil, nil, fmt.Errorf("does not refer to a valid field")
			}
		default:
			return nil, nil, fmt.Errorf("expected [ or . but got: %s", tokens[i])
		}
	}
	return path, schema, nil
}

// tokenizeFieldPath splits a JSON path into the delimiters '.', '[' and
// ']' and the text between them; a token starting with a single quote runs
// to the next unescaped quote, delimiters included.
func tokenizeFieldPath(s string) []string {
	var tokens []string
	for len(s) > 0 {
		n := len(s)
		switch {
		case s[0] == '\'':
			for i := 1; i < len(s); i++ {
				if s[i] == '\'' && s[i-1] != '\\' {
					n = i + 1
					break
				}
			}
		case s[0] == '.' || s[0] == '[' || s[0] == ']':
			n = 1
		default:
			if i := strings.IndexAny(s, ".[]"); i > 0 {
				n = i
			}
		}
		tokens = append(tokens, s[:n])
		s = s[n:]
	}
	return tokens
}

// structuralError reports why kube-apiserver could not turn the schema into
// its structural form, which field paths are resolved in. The schema
// validation rejects all of these too, with better messages; properties
// are visited in name order where kube-apiserver's order is random.
func structuralError(s *apiextensionsv1.JSONSchemaProps) error {
	if s == nil {
		return nil
	}
	switch {
	case s.ID != "":
		return fmt.Errorf("OpenAPIV3Schema 'id' is not supported")
	case s.Schema != "":
		return fmt.Errorf("OpenAPIV3Schema 'schema' is not supported")
	case s.Ref != nil && *s.Ref != "":
		return fmt.Errorf("OpenAPIV3Schema '$ref' is not supported")
	case len(s.PatternProperties) > 0:
		return fmt.Errorf("OpenAPIV3Schema 'patternProperties' is not supported")
	case len(s.Dependencies) > 0:
		return fmt.Errorf("OpenAPIV3Schema 'dependencies' is not supported")
	case s.AdditionalItems != nil:
		return fmt.Errorf("OpenAPIV3Schema 'additionalItems' is not supported")
	case len(s.Definitions) > 0:
		return fmt.Errorf("OpenAPIV3Schema 'definitions' is not supported")
	}
	if err := structuralError(s.Not); err != nil {
		return err
	}
	for _, group := range [][]apiextensionsv1.JSONSchemaProps{s.AllOf, s.AnyOf, s.OneOf} {
		for i := range group {
			if err := structuralError(&group[i]); err != nil {
				return err
			}
		}
	}
	if s.XPreserveUnknownFields != nil && !*s.XPreserveUnknownFields {
		return fmt.Errorf("internal error: 'x-kubernetes-preserve-unknown-fields' must be true or undefined")
	}
	if s.Items != nil {
		if len(s.Items.JSONSchemas) > 0 {
			return fmt.Errorf("OpenAPIV3Schema 'items' must be a schema, but is an array")
		}
		if err := structuralError(s.Items.Schema); err != nil {
			return err
		}
	}
	names := make([]string, 0, len(s.Properties))
	for name := range s.Properties {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		p := s.Properties[name]
		if err := structuralError(&p); err != nil {
			return err
		}
	}
	if s.AdditionalProperties != nil {
		return structuralError(s.AdditionalProperties.Schema)
	}
	return nil
}

// anySchemaHas reports whether pred holds anywhere in any version's schema.
func anySchemaHas(versions []apiextensionsv1.CustomResourceDefinitionVersion, pred func(*apiextensionsv1.JSONSchemaProps) bool) bool {
	for _, v := range versions {
		if v.Schema != nil && schemaHas(v.Schema.OpenAPIV3Schema, pred) {
			return true
		}
	}
	return false
}

// schemaHas reports whether pred holds for s or any schema nested in it.
func schemaHas(s *apiextensionsv1.JSONSchemaProps, pred func(*apiextensionsv1.JSONSchemaProps) bool) bool {
	if s == nil {
		return false
	}
	if pred(s) {
		return true
	}
	var nested []*apiextensionsv1.JSONSchemaProps
	if s.Items != nil {
		nested = append(nested, s.Items.Schema)
		for i := range s.Items.JSONSchemas {
			nested = append(nested, &s.Items.JSONSchemas[i])
		}
	}
	for _, group := range [][]apiextensionsv1.JSONSchemaProps{s.AllOf, s.AnyOf, s.OneOf} {
		for i := range group {
			nested = append(nested, &group[i])
		}
	}
	nested = append(nested, s.Not)
	for _, m := range []map[string]apiextensionsv1.JSONSchemaProps{s.Properties, s.PatternProperties, s.Definitions} {
		for k := range m {
			p := m[k]
			nested = append(nested, &p)
		}
	}
	if s.AdditionalProperties != nil {
		nested = append(nested, s.AdditionalProperties.Schema)
	}
	if s.AdditionalItems != nil {
		nested = append(nested, s.AdditionalItems.Schema)
	}
	for _, d := range s.Dependencies {
		nested = append(nested, d.Schema)
	}
	for _, n := range nested {
		if schemaHas(n, pred) {
			return true
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, l := range list {
		if l == s {
			return true
		}
	}
	return false
}
