package openapi

import (
	"reflect"
	"slices"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// The schema of a CRD is published in its structural form. A structural
// schema has two kinds of nodes: the structural ones (the root, and the
// schemas of properties, items and additionalProperties below them), which
// say what the object is made of, and the value validations under allOf,
// anyOf, oneOf and not, which only restrict values. kube-apiserver converts
// the schema into that form and back, and what the round trip keeps is what
// it publishes; toStructural and toValueValidation do the same in one step.

// Extensions kube-apiserver reads and writes on published schemas.
const (
	preserveUnknownFields = "x-kubernetes-preserve-unknown-fields"
	embeddedResource      = "x-kubernetes-embedded-resource"
	intOrString           = "x-kubernetes-int-or-string"
)

// toStructural converts a structural node and what is below it. The
// schema must have been checked by isStructural.
func toStructural(s *apiextensionsv1.JSONSchemaProps) *spec.Schema {
	out := &spec.Schema{}
	setGenerics(out, s)
	setExtensions(out, s)
	setValueValidation(out, s)
	if s.Items != nil && s.Items.Schema != nil {
		out.Items = &spec.SchemaOrArray{Schema: toStructural(s.Items.Schema)}
	}
	if len(s.Properties) > 0 {
		out.Properties = make(map[string]spec.Schema, len(s.Properties))
		for name, p := range s.Properties {
			out.Properties[name] = *toStructural(&p)
		}
	}
	if ap := s.AdditionalProperties; ap != nil {
		if ap.Schema != nil {
			out.AdditionalProperties = &spec.SchemaOrBool{Allows: true, Schema: toStructural(ap.Schema)}
		} else {
			out.AdditionalProperties = &spec.SchemaOrBool{Allows: ap.Allows}
		}
	}
	unfoldIntOrString(out, s)
	return out
}

// toValueValidation converts a node below allOf, anyOf, oneOf or not. The
// structural form keeps no additionalProperties there.
func toValueValidation(s *apiextensionsv1.JSONSchemaProps) *spec.Schema {
	out := &spec.Schema{}
	setGenerics(out, s)
	setExtensions(out, s)
	setValueValidation(out, s)
	if s.Items != nil && s.Items.Schema != nil {
		out.Items = &spec.SchemaOrArray{Schema: toValueValidation(s.Items.Schema)}
	}
	if s.Properties != nil {
		out.Properties = make(map[string]spec.Schema, len(s.Properties))
		for name, p := range s.Properties {
			out.Properties[name] = *toValueValidation(&p)
		}
	}
	return out
}

// setGenerics sets what describes a node rather than validates it.
func setGenerics(out *spec.Schema, s *apiextensionsv1.JSONSchemaProps) {
	if s.Type != "" {
		out.Type = spec.StringOrArray{s.Type}
	}
	out.Nullable = s.Nullable
	out.Description = s.Description
	out.Title = s.Title
	out.Default = jsonValue(s.Default)
	out.Example = jsonValue(s.Example)
	if s.ExternalDocs != nil {
		out.ExternalDocs = &spec.ExternalDocumentation{Description: s.ExternalDocs.Description, URL: s.ExternalDocs.URL}
	}
}

func setExtensions(out *spec.Schema, s *apiextensionsv1.JSONSchemaProps) {
	if s.XPreserveUnknownFields != nil && *s.XPreserveUnknownFields {
		out.AddExtension(preserveUnknownFields, true)
	}
	if s.XEmbeddedResource {
		out.AddExtension(embeddedResource, true)
	}
	if s.XIntOrString {
		out.AddExtension(intOrString, true)
	}
	// The values are copied: the schemas are the caller's, the CRD is not.
	if len(s.XListMapKeys) > 0 {
		out.AddExtension("x-kubernetes-list-map-keys", slices.Clone(s.XListMapKeys))
	}
	if s.XListType != nil {
		out.AddExtension("x-kubernetes-list-type", *s.XListType)
	}
	if s.XMapType != nil {
		out.AddExtension("x-kubernetes-map-type", *s.XMapType)
	}
	if len(s.XValidations) > 0 {
		out.AddExtension("x-kubernetes-validations", s.XValidations.DeepCopy())
	}
}

func setValueValidation(out *spec.Schema, s *apiextensionsv1.JSONSchemaProps) {
	out.Format = s.Format
	out.Maximum = clonePtr(s.Maximum)
	out.ExclusiveMaximum = s.ExclusiveMaximum
	out.Minimum = clonePtr(s.Minimum)
	out.ExclusiveMinimum = s.ExclusiveMinimum
	out.MaxLength = clonePtr(s.MaxLength)
	out.MinLength = clonePtr(s.MinLength)
	out.Pattern = s.Pattern
	out.MaxItems = clonePtr(s.MaxItems)
	out.MinItems = clonePtr(s.MinItems)
	out.UniqueItems = s.UniqueItems
	out.MultipleOf = clonePtr(s.MultipleOf)
	for i := range s.Enum {
		out.Enum = append(out.Enum, jsonValue(&s.Enum[i]))
	}
	out.MaxProperties = clonePtr(s.MaxProperties)
	out.MinProperties = clonePtr(s.MinProperties)
	out.Required = slices.Clone(s.Required) // embedded resources add to it
	for i := range s.AllOf {
		out.AllOf = append(out.AllOf, *toValueValidation(&s.AllOf[i]))
	}
	for i := range s.AnyOf {
		out.AnyOf = append(out.AnyOf, *toValueValidation(&s.AnyOf[i]))
	}
	for i := range s.OneOf {
		out.OneOf = append(out.OneOf, *toValueValidation(&s.OneOf[i]))
	}
	if s.Not != nil {
		out.Not = toValueValidation(s.Not)
	}
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// jsonValue decodes a JSON value as kube-apiserver does: integers as int64;
// null and nothing as nil.
func jsonValue(j *apiextensionsv1.JSON) any {
	if j == nil || len(j.Raw) == 0 {
		return nil
	}
	var v any
	if err := utiljson.Unmarshal(j.Raw, &v); err != nil {
		// The API server decoded it from JSON: it is valid JSON.
		return nil
	}
	return v
}

// unfoldIntOrString spells out x-kubernetes-int-or-string as the anyOf it
// stands for, unless the schema says it already.
func unfoldIntOrString(out *spec.Schema, s *apiextensionsv1.JSONSchemaProps) {
	if !s.XIntOrString || isIntOrStringAnyOf(s.AnyOf) || (len(s.AllOf) > 0 && isIntOrStringAnyOf(s.AllOf[0].AnyOf)) {
		return
	}
	anyOf := []spec.Schema{
		{SchemaProps: spec.SchemaProps{Type: spec.StringOrArray{"integer"}}},
		{SchemaProps: spec.SchemaProps{Type: spec.StringOrArray{"string"}}},
	}
	if len(out.AnyOf) == 0 {
		out.AnyOf = anyOf
		return
	}
	out.AllOf = append([]spec.Schema{{SchemaProps: spec.SchemaProps{AnyOf: anyOf}}}, out.AllOf...)
}

// isIntOrStringAnyOf tells whether anyOf is exactly the int-or-string
// pattern: one schema of type integer, one of type string, nothing else.
func isIntOrStringAnyOf(anyOf []apiextensionsv1.JSONSchemaProps) bool {
	return len(anyOf) == 2 && isOnlyType(&anyOf[0], "integer") && isOnlyType(&anyOf[1], "string")
}

// isOnlyType tells whether s has a type and nothing else, as the structural
// form sees it: empty lists of enum values or of schemas are none.
func isOnlyType(s *apiextensionsv1.JSONSchemaProps, typ string) bool {
	c := *s
	if len(c.Enum) == 0 {
		c.Enum = nil
	}
	if len(c.AllOf) == 0 {
		c.AllOf = nil
	}
	if len(c.AnyOf) == 0 {
		c.AnyOf = nil
	}
	if len(c.OneOf) == 0 {
		c.OneOf = nil
	}
	if c.Default != nil && len(c.Default.Raw) == 0 {
		c.Default = nil
	}
	if c.Example != nil && len(c.Example.Raw) == 0 {
		c.Example = nil
	}
	return reflect.DeepEqual(c, apiextensionsv1.JSONSchemaProps{Type: typ})
}

// toV2 turns a published v3 schema into what Swagger 2.0, and kubectl's
// reading of it, can take. It walks the structural nodes only: the value
// validations below them are dropped.
func toV2(s *spec.Schema) {
	s.AllOf, s.AnyOf, s.OneOf, s.Not = nil, nil, nil, nil
	if s.Nullable {
		// Swagger 2.0 has no null: the value may be anything. kubectl
		// cannot take properties or items without a type.
		s.Type, s.Nullable, s.Items, s.Properties = nil, false, nil, nil
	}
	preserves := hasExtension(s, preserveUnknownFields)
	if preserves {
		// kubectl would refuse the fields and items it does not see.
		s.Items, s.Properties = nil, nil
	}
	if s.Items == nil && isType(s, "array") {
		s.Type = nil // kubectl cannot take an array without items
	}
	if preserves && isType(s, "object") {
		s.Type = nil // nor an object that keeps unknown fields
	}
	// A field that may be null may also be missing.
	for name, p := range s.Properties {
		if p.Nullable {
			s.Required = withoutName(s.Required, name)
		}
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil && s.AdditionalProperties.Schema.Nullable {
		s.Required = nil
	}

	if s.Items != nil && s.Items.Schema != nil {
		toV2(s.Items.Schema)
	}
	for name, p := range s.Properties {
		toV2(&p)
		s.Properties[name] = p
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		toV2(s.AdditionalProperties.Schema)
	}
}

// withoutName returns names without name; nil when none is left.
func withoutName(names []string, name string) []string {
	if !slices.Contains(names, name) {
		return names
	}
	var kept []string
	for _, n := range names {
		if n != name {
			kept = append(kept, n)
		}
	}
	return kept
}

func hasExtension(s *spec.Schema, name string) bool {
	v, ok := s.Extensions.GetBool(name)
	return ok && v
}

func isType(s *spec.Schema, typ string) bool {
	return len(s.Type) == 1 && s.Type[0] == typ
}
