package openapi

import (
	"reflect"
	"regexp"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// isStructural tells whether kube-apiserver would publish a schema: one
// that has only the types and fields a structural schema may have, and
// meets the invariants of structural schemas. Those of
// apiextensions.k8s.io/v1 always do (the API refuses others); only
// CustomResourceDefinitions written in v1beta1 days can have another, and
// their resources are then published as bare objects. The check answers
// yes or no: the reasons are the business of the CRD's
// NonStructuralSchema condition, not of the documents.
func isStructural(s *apiextensionsv1.JSONSchemaProps) bool {
	return hasOnlySupportedFields(s) && structuralInvariants(s, rootLevel) && complete(s)
}

// level is where a structural node is: some invariants differ at the root.
type level int

const (
	rootLevel level = iota
	itemLevel
	fieldLevel
)

var schemaTypes = map[string]bool{"": true, "object": true, "array": true, "string": true, "integer": true, "number": true, "boolean": true}

// hasOnlySupportedFields checks, in the whole schema, the fields and types a
// structural schema cannot have.
func hasOnlySupportedFields(s *apiextensionsv1.JSONSchemaProps) bool {
	if s == nil {
		return true
	}
	switch {
	case !schemaTypes[s.Type],
		s.ID != "", s.Schema != "", s.Ref != nil && *s.Ref != "",
		len(s.PatternProperties) > 0, len(s.Dependencies) > 0, s.AdditionalItems != nil, len(s.Definitions) > 0,
		s.Items != nil && len(s.Items.JSONSchemas) > 0,
		s.XPreserveUnknownFields != nil && !*s.XPreserveUnknownFields:
		return false
	}
	var below []*apiextensionsv1.JSONSchemaProps
	if s.Items != nil {
		below = append(below, s.Items.Schema)
	}
	for name := range s.Properties {
		p := s.Properties[name]
		below = append(below, &p)
	}
	if s.AdditionalProperties != nil {
		below = append(below, s.AdditionalProperties.Schema)
	}
	for i := range s.AllOf {
		below = append(below, &s.AllOf[i])
	}
	for i := range s.AnyOf {
		below = append(below, &s.AnyOf[i])
	}
	for i := range s.OneOf {
		below = append(below, &s.OneOf[i])
	}
	below = append(below, s.Not)
	for _, b := range below {
		if !hasOnlySupportedFields(b) {
			return false
		}
	}
	return true
}

// structuralInvariants checks a structural node and the nodes below it:
// every node has a type unless it preserves unknown fields or is an int or
// a string, the value validations say nothing of structure, and metadata
// is only restricted in its name.
func structuralInvariants(s *apiextensionsv1.JSONSchemaProps, lvl level) bool {
	if s == nil {
		return true
	}
	items := itemsOf(s)
	preserves := s.XPreserveUnknownFields != nil && *s.XPreserveUnknownFields
	switch {
	case s.Type == "array" && items == nil,
		s.AdditionalProperties != nil && lvl == rootLevel,
		s.AdditionalProperties != nil && s.XEmbeddedResource,
		s.XIntOrString && (preserves || s.XEmbeddedResource),
		s.XEmbeddedResource && s.Type != "object",
		s.Type == "" && !s.XIntOrString && !preserves,
		lvl == rootLevel && s.Type != "" && s.Type != "object",
		s.XEmbeddedResource && !preserves && len(s.Properties) == 0:
		return false
	}
	if !structuralInvariants(items, itemLevel) {
		return false
	}
	for name := range s.Properties {
		p := s.Properties[name]
		if !structuralInvariants(&p, fieldLevel) {
			return false
		}
	}
	if s.AdditionalProperties != nil && !structuralInvariants(s.AdditionalProperties.Schema, fieldLevel) {
		return false
	}

	skipAnyOf := isIntOrStringAnyOf(s.AnyOf)
	skipFirstAllOfAnyOf := len(s.AllOf) > 0 && isIntOrStringAnyOf(s.AllOf[0].AnyOf)
	if !valueValidationInvariants(s, skipAnyOf, skipFirstAllOfAnyOf) {
		return false
	}

	typeMeta := lvl == rootLevel || s.XEmbeddedResource
	for _, name := range []string{"kind", "apiVersion"} {
		if p, ok := s.Properties[name]; ok && typeMeta && p.Type != "string" {
			return false
		}
	}
	if metadata, ok := s.Properties["metadata"]; ok {
		if typeMeta && metadata.Type != "object" {
			return false
		}
		if lvl == rootLevel && !onlyRestrictsName(metadata) {
			return false
		}
	}
	return true
}

// onlyRestrictsName tells whether the metadata of the root only says it is
// an object, and maybe something of name and generateName: the rest of
// ObjectMeta is the API server's.
func onlyRestrictsName(m apiextensionsv1.JSONSchemaProps) bool {
	_, name := m.Properties["name"]
	_, generateName := m.Properties["generateName"]
	if (name && generateName && len(m.Properties) == 2) || ((name || generateName) && len(m.Properties) == 1) {
		m.Properties = nil
	}
	m.Type, m.Default = "", nil
	return isEmpty(&m)
}

// isEmpty tells whether a schema says nothing, as the structural form sees
// it (empty lists of schemas or values, and no properties, are nothing).
func isEmpty(s *apiextensionsv1.JSONSchemaProps) bool {
	c := *s
	if len(c.Properties) == 0 {
		c.Properties = nil
	}
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
	if c.Example != nil && len(c.Example.Raw) == 0 {
		c.Example = nil
	}
	return reflect.DeepEqual(c, apiextensionsv1.JSONSchemaProps{})
}

// valueValidationInvariants checks the value validations of a node: the
// schemas under allOf, anyOf, oneOf and not. The anyOf of
// x-kubernetes-int-or-string is the exception to their rules.
func valueValidationInvariants(s *apiextensionsv1.JSONSchemaProps, skipAnyOf, skipFirstAllOfAnyOf bool) bool {
	if !skipAnyOf {
		for i := range s.AnyOf {
			if !nestedInvariants(&s.AnyOf[i], false) {
				return false
			}
		}
	}
	for i := range s.AllOf {
		if !nestedInvariants(&s.AllOf[i], skipFirstAllOfAnyOf && i == 0) {
			return false
		}
	}
	for i := range s.OneOf {
		if !nestedInvariants(&s.OneOf[i], false) {
			return false
		}
	}
	if s.Not != nil && !nestedInvariants(s.Not, false) {
		return false
	}
	if s.Pattern != "" {
		if _, err := regexp.Compile(s.Pattern); err != nil {
			return false
		}
	}
	return true
}

// nestedInvariants checks a schema below allOf, anyOf, oneOf or not: it
// restricts values and must not say anything the structural nodes say,
// nor have CEL rules.
func nestedInvariants(s *apiextensionsv1.JSONSchemaProps, skipAnyOf bool) bool {
	if s == nil {
		return true
	}
	_, metadata := s.Properties["metadata"]
	switch {
	case s.Type != "", s.AdditionalProperties != nil && (s.AdditionalProperties.Schema != nil || s.AdditionalProperties.Allows),
		jsonValue(s.Default) != nil, s.Title != "", s.Description != "", s.Nullable,
		s.XPreserveUnknownFields != nil && *s.XPreserveUnknownFields, s.XEmbeddedResource, s.XIntOrString,
		len(s.XListMapKeys) > 0, s.XListType != nil, s.XMapType != nil,
		len(s.XValidations) > 0,
		metadata:
		return false
	}
	if !valueValidationInvariants(s, skipAnyOf, false) || !nestedInvariants(itemsOf(s), false) {
		return false
	}
	for name := range s.Properties {
		p := s.Properties[name]
		if !nestedInvariants(&p, false) {
			return false
		}
	}
	return true
}

// complete tells whether every property and items the value validations
// of the root name is specified by the structural nodes too.
func complete(s *apiextensionsv1.JSONSchemaProps) bool {
	return junctorsComplete(s, s)
}

func junctorsComplete(v, s *apiextensionsv1.JSONSchemaProps) bool {
	junctors := []*apiextensionsv1.JSONSchemaProps{v.Not}
	for _, list := range [][]apiextensionsv1.JSONSchemaProps{v.AllOf, v.AnyOf, v.OneOf} {
		for i := range list {
			junctors = append(junctors, &list[i])
		}
	}
	for _, j := range junctors {
		if !nestedComplete(j, s) {
			return false
		}
	}
	return true
}

func nestedComplete(v, s *apiextensionsv1.JSONSchemaProps) bool {
	if v == nil {
		return true
	}
	if s == nil || !junctorsComplete(v, s) || !nestedComplete(itemsOf(v), itemsOf(s)) {
		return false
	}
	for name := range v.Properties {
		sp, ok := s.Properties[name]
		if !ok {
			return false
		}
		vp := v.Properties[name]
		if !nestedComplete(&vp, &sp) {
			return false
		}
	}
	return true
}

func itemsOf(s *apiextensionsv1.JSONSchemaProps) *apiextensionsv1.JSONSchemaProps {
	if s == nil || s.Items == nil {
		return nil
	}
	return s.Items.Schema
}
