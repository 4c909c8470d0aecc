package apiextensions

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// A few kube-apiserver errors carry a whole struct of the internal CRD form
// as their value (spec.versions, the root schema). field.Error renders such
// values as JSON, and the internal types have no json tags, so clients see
// Go field names: [{"Name":"v1","Served":true,...}]. The types below mirror
// the internal types field for field, in the same order, so that our errors
// render the same bytes. They exist only to be marshalled.

type internalVersion struct {
	Name                     string
	Served                   bool
	Storage                  bool
	Deprecated               bool
	DeprecationWarning       *string
	Schema                   *internalValidation
	Subresources             *internalSubresources
	AdditionalPrinterColumns []internalColumn
	SelectableFields         []internalSelectableField
}

type internalValidation struct {
	OpenAPIV3Schema *internalSchema
}

type internalSubresources struct {
	Status *struct{}
	Scale  *internalScale
}

type internalScale struct {
	SpecReplicasPath   string
	StatusReplicasPath string
	LabelSelectorPath  *string
}

type internalColumn struct {
	Name        string
	Type        string
	Format      string
	Description string
	Priority    int32
	JSONPath    string
}

type internalSelectableField struct {
	JSONPath string
}

type internalSchema struct {
	ID                     string
	Schema                 string
	Ref                    *string
	Description            string
	Type                   string
	Nullable               bool
	Format                 string
	Title                  string
	Default                *any
	Maximum                *float64
	ExclusiveMaximum       bool
	Minimum                *float64
	ExclusiveMinimum       bool
	MaxLength              *int64
	MinLength              *int64
	Pattern                string
	MaxItems               *int64
	MinItems               *int64
	UniqueItems            bool
	MultipleOf             *float64
	Enum                   []any
	MaxProperties          *int64
	MinProperties          *int64
	Required               []string
	Items                  *internalSchemaOrArray
	AllOf                  []internalSchema
	OneOf                  []internalSchema
	AnyOf                  []internalSchema
	Not                    *internalSchema
	Properties             map[string]internalSchema
	AdditionalProperties   *internalSchemaOrBool
	PatternProperties      map[string]internalSchema
	Dependencies           map[string]internalSchemaOrStringArray
	AdditionalItems        *internalSchemaOrBool
	Definitions            map[string]internalSchema
	ExternalDocs           *internalExternalDocs
	Example                *any
	XPreserveUnknownFields *bool
	XEmbeddedResource      bool
	XIntOrString           bool
	XListMapKeys           []string
	XListType              *string
	XMapType               *string
	XValidations           []internalValidationRule
}

type internalSchemaOrArray struct {
	Schema      *internalSchema
	JSONSchemas []internalSchema
}

type internalSchemaOrBool struct {
	Allows bool
	Schema *internalSchema
}

type internalSchemaOrStringArray struct {
	Schema   *internalSchema
	Property []string
}

type internalExternalDocs struct {
	Description string
	URL         string
}

type internalValidationRule struct {
	Rule              string
	Message           string
	MessageExpression string
	Reason            *string
	FieldPath         string
	OptionalOldSelf   *bool
}

// internalVersionsValue renders spec.versions as the internal form holds
// them: hoisted fields are cleared from every version.
func internalVersionsValue(versions []apiextensionsv1.CustomResourceDefinitionVersion) []internalVersion {
	if versions == nil {
		return nil
	}
	h := hoistedFields(versions)
	out := make([]internalVersion, len(versions))
	for i := range versions {
		v := &versions[i]
		iv := internalVersion{
			Name:               v.Name,
			Served:             v.Served,
			Storage:            v.Storage,
			Deprecated:         v.Deprecated,
			DeprecationWarning: v.DeprecationWarning,
		}
		if !h.schema && v.Schema != nil {
			iv.Schema = &internalValidation{OpenAPIV3Schema: internalSchemaPtr(v.Schema.OpenAPIV3Schema)}
		}
		if !h.subresources && v.Subresources != nil {
			iv.Subresources = &internalSubresources{}
			if v.Subresources.Status != nil {
				iv.Subresources.Status = &struct{}{}
			}
			if s := v.Subresources.Scale; s != nil {
				iv.Subresources.Scale = &internalScale{s.SpecReplicasPath, s.StatusReplicasPath, s.LabelSelectorPath}
			}
		}
		if !h.columns && v.AdditionalPrinterColumns != nil {
			iv.AdditionalPrinterColumns = make([]internalColumn, len(v.AdditionalPrinterColumns))
			for j, c := range v.AdditionalPrinterColumns {
				iv.AdditionalPrinterColumns[j] = internalColumn{c.Name, c.Type, c.Format, c.Description, c.Priority, c.JSONPath}
			}
		}
		if !h.selectableFields && v.SelectableFields != nil {
			iv.SelectableFields = make([]internalSelectableField, len(v.SelectableFields))
			for j, f := range v.SelectableFields {
				iv.SelectableFields[j] = internalSelectableField{f.JSONPath}
			}
		}
		out[i] = iv
	}
	return out
}

func internalSchemaPtr(s *apiextensionsv1.JSONSchemaProps) *internalSchema {
	if s == nil {
		return nil
	}
	is := internalSchemaValue(s)
	return &is
}

// internalSchemaValue converts a schema like kube-apiserver's v1-to-internal
// conversion does: JSON values are decoded, nil and empty collections keep
// their difference.
func internalSchemaValue(s *apiextensionsv1.JSONSchemaProps) internalSchema {
	out := internalSchema{
		ID:                     s.ID,
		Schema:                 string(s.Schema),
		Ref:                    s.Ref,
		Description:            s.Description,
		Type:                   s.Type,
		Nullable:               s.Nullable,
		Format:                 s.Format,
		Title:                  s.Title,
		Default:                internalJSONPtr(s.Default),
		Maximum:                s.Maximum,
		ExclusiveMaximum:       s.ExclusiveMaximum,
		Minimum:                s.Minimum,
		ExclusiveMinimum:       s.ExclusiveMinimum,
		MaxLength:              s.MaxLength,
		MinLength:              s.MinLength,
		Pattern:                s.Pattern,
		MaxItems:               s.MaxItems,
		MinItems:               s.MinItems,
		UniqueItems:            s.UniqueItems,
		MultipleOf:             s.MultipleOf,
		MaxProperties:          s.MaxProperties,
		MinProperties:          s.MinProperties,
		Required:               s.Required,
		AllOf:                  internalSchemaSlice(s.AllOf),
		OneOf:                  internalSchemaSlice(s.OneOf),
		AnyOf:                  internalSchemaSlice(s.AnyOf),
		Not:                    internalSchemaPtr(s.Not),
		Properties:             internalSchemaMap(s.Properties),
		AdditionalProperties:   internalSchemaOrBoolPtr(s.AdditionalProperties),
		PatternProperties:      internalSchemaMap(s.PatternProperties),
		AdditionalItems:        internalSchemaOrBoolPtr(s.AdditionalItems),
		Definitions:            internalSchemaMap(s.Definitions),
		Example:                internalJSONPtr(s.Example),
		XPreserveUnknownFields: s.XPreserveUnknownFields,
		XEmbeddedResource:      s.XEmbeddedResource,
		XIntOrString:           s.XIntOrString,
		XListMapKeys:           s.XListMapKeys,
		XListType:              s.XListType,
		XMapType:               s.XMapType,
	}
	if s.Enum != nil {
		out.Enum = make([]any, len(s.Enum))
		for i := range s.Enum {
			out.Enum[i], _ = decodeJSON(s.Enum[i].Raw)
		}
	}
	if s.Items != nil {
		out.Items = &internalSchemaOrArray{
			Schema:      internalSchemaPtr(s.Items.Schema),
			JSONSchemas: internalSchemaSlice(s.Items.JSONSchemas),
		}
	}
	if s.Dependencies != nil {
		out.Dependencies = make(map[string]internalSchemaOrStringArray, len(s.Dependencies))
		for k, d := range s.Dependencies {
			out.Dependencies[k] = internalSchemaOrStringArray{Schema: internalSchemaPtr(d.Schema), Property: d.Property}
		}
	}
	if s.ExternalDocs != nil {
		out.ExternalDocs = &internalExternalDocs{s.ExternalDocs.Description, s.ExternalDocs.URL}
	}
	if s.XValidations != nil {
		out.XValidations = make([]internalValidationRule, len(s.XValidations))
		for i, r := range s.XValidations {
			out.XValidations[i] = internalValidationRule{
				Rule:              r.Rule,
				Message:           r.Message,
				MessageExpression: r.MessageExpression,
				Reason:            (*string)(r.Reason),
				FieldPath:         r.FieldPath,
				OptionalOldSelf:   r.OptionalOldSelf,
			}
		}
	}
	return out
}

func internalJSONPtr(j *apiextensionsv1.JSON) *any {
	if j == nil {
		return nil
	}
	v, _ := decodeJSON(j.Raw)
	return &v
}

func internalSchemaSlice(in []apiextensionsv1.JSONSchemaProps) []internalSchema {
	if in == nil {
		return nil
	}
	out := make([]internalSchema, len(in))
	for i := range in {
		out[i] = internalSchemaValue(&in[i])
	}
	return out
}

func internalSchemaMap(in map[string]apiextensionsv1.JSONSchemaProps) map[string]internalSchema {
	if in == nil {
		return nil
	}
	out := make(map[string]internalSchema, len(in))
	for k, s := range in {
		out[k] = internalSchemaValue(&s)
	}
	return out
}

func internalSchemaOrBoolPtr(in *apiextensionsv1.JSONSchemaPropsOrBool) *internalSchemaOrBool {
	if in == nil {
		return nil
	}
	return &internalSchemaOrBool{Allows: in.Allows, Schema: internalSchemaPtr(in.Schema)}
}
