package schema

import (
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// ToKubeOpenAPI converts s to a go-openapi schema, faithfully: formats are
// kept and x-kubernetes-int-or-string stays an extension without a type.
// This is the form kube-apiserver validates default values against and
// publishes in its OpenAPI documents.
func (s *Structural) ToKubeOpenAPI() *spec.Schema {
	return s.toKubeOpenAPI(false)
}

// toKubeOpenAPI converts s; nested is set below a junctor, where
// kube-apiserver leaves additionalProperties out (it is not structural
// there anyway).
func (s *Structural) toKubeOpenAPI(nested bool) *spec.Schema {
	if s == nil {
		return nil
	}
	out := &spec.Schema{}
	if s.Items != nil {
		out.Items = &spec.SchemaOrArray{Schema: s.Items.toKubeOpenAPI(nested)}
	}
	if s.Properties != nil {
		out.Properties = make(map[string]spec.Schema, len(s.Properties))
		for name, prop := range s.Properties {
			out.Properties[name] = *prop.toKubeOpenAPI(nested)
		}
	}
	if s.AdditionalProperties != nil && !nested {
		out.AdditionalProperties = &spec.SchemaOrBool{
			Allows: s.AdditionalProperties.Allows,
			Schema: s.AdditionalProperties.Schema.toKubeOpenAPI(nested),
		}
	}

	if len(s.Type) != 0 {
		out.Type = spec.StringOrArray{s.Type}
	}
	out.Nullable = s.Nullable
	out.Description = s.Description
	out.Title = s.Title
	out.Default = s.Default
	out.Example = s.Example
	if s.ExternalDocs != nil {
		out.ExternalDocs = &spec.ExternalDocumentation{Description: s.ExternalDocs.Description, URL: s.ExternalDocs.URL}
	}

	if s.XPreserveUnknownFields {
		out.AddExtension("x-kubernetes-preserve-unknown-fields", true)
	}
	if s.XEmbeddedResource {
		out.AddExtension("x-kubernetes-embedded-resource", true)
	}
	if s.XIntOrString {
		out.AddExtension("x-kubernetes-int-or-string", true)
	}
	if len(s.XListMapKeys) > 0 {
		out.AddExtension("x-kubernetes-list-map-keys", s.XListMapKeys)
	}
	if s.XListType != nil {
		out.AddExtension("x-kubernetes-list-type", *s.XListType)
	}
	if s.XMapType != nil {
		out.AddExtension("x-kubernetes-map-type", *s.XMapType)
	}
	if len(s.XValidations) > 0 {
		out.AddExtension("x-kubernetes-validations", s.XValidations)
	}

	v := &s.ValueValidation
	out.Format = v.Format
	out.Maximum = v.Maximum
	out.ExclusiveMaximum = v.ExclusiveMaximum
	out.Minimum = v.Minimum
	out.ExclusiveMinimum = v.ExclusiveMinimum
	out.MaxLength = v.MaxLength
	out.MinLength = v.MinLength
	out.Pattern = v.Pattern
	out.MaxItems = v.MaxItems
	out.MinItems = v.MinItems
	out.UniqueItems = v.UniqueItems
	out.MultipleOf = v.MultipleOf
	if v.Enum != nil {
		out.Enum = append([]interface{}{}, v.Enum...)
	}
	out.MaxProperties = v.MaxProperties
	out.MinProperties = v.MinProperties
	out.Required = v.Required
	for _, n := range v.AllOf {
		out.AllOf = append(out.AllOf, *n.toKubeOpenAPI(true))
	}
	for _, n := range v.AnyOf {
		out.AnyOf = append(out.AnyOf, *n.toKubeOpenAPI(true))
	}
	for _, n := range v.OneOf {
		out.OneOf = append(out.OneOf, *n.toKubeOpenAPI(true))
	}
	out.Not = v.Not.toKubeOpenAPI(true)
	return out
}
