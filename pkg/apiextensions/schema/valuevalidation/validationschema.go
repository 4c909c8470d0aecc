package valuevalidation

import (
	"fmt"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/kapi-dev/kapi/pkg/apiextensions/schema"
)

// supportedStringFormats are the formats kube-apiserver 1.37 validates on
// strings, in go-openapi's normalised spelling (dashes removed). Any other
// format is ignored when validating custom resources.
var supportedStringFormats = sets.New(
	"bsonobjectid", "uri", "email", "hostname", "ipv4", "ipv6", "cidr", "mac",
	"uuid", "uuid3", "uuid4", "uuid5", "isbn", "isbn10", "isbn13", "creditcard",
	"ssn", "hexcolor", "rgbcolor", "byte", "password", "date", "duration",
	"datetime",
	// since 1.34
	"k8sshortname", "k8slongname",
)

// SupportedFormat returns the format the value validator should check for
// a schema of the given type: the format itself if kube-apiserver supports
// it on that type, "" otherwise.
func SupportedFormat(schemaType, format string) string {
	switch schemaType {
	case "", "string":
		if supportedStringFormats.Has(strings.ReplaceAll(format, "-", "")) {
			return format
		}
	case "integer":
		if format == "int32" || format == "int64" {
			return format
		}
	case "number":
		if format == "float" || format == "double" {
			return format
		}
	}
	return ""
}

// toValidationSchema converts a CRD schema into the go-openapi schema that
// kube-apiserver hands to the value validator: unsupported formats are
// dropped and x-kubernetes-int-or-string becomes the type [integer, string].
// Unlike the structural form it keeps everything a legacy (non-structural)
// schema may hold, except $ref, which the validator cannot follow.
func toValidationSchema(in *apiextensionsv1.JSONSchemaProps) (*spec.Schema, error) {
	if in == nil {
		return nil, nil
	}
	if in.Ref != nil {
		return nil, fmt.Errorf("$ref is not supported")
	}
	out := &spec.Schema{}
	out.ID = in.ID
	out.Schema = spec.SchemaURL(in.Schema)
	out.Description = in.Description
	if in.Type != "" {
		out.Type = spec.StringOrArray{in.Type}
	}
	if in.XIntOrString {
		out.AddExtension("x-kubernetes-int-or-string", true)
		out.Type = spec.StringOrArray{"integer", "string"}
	}
	out.Nullable = in.Nullable
	if in.Format != "" {
		// Like kube-apiserver, an int-or-string (two types) is treated as
		// a string here.
		schemaType := ""
		if len(out.Type) == 1 {
			schemaType = out.Type[0]
		}
		out.Format = SupportedFormat(schemaType, in.Format)
	}
	out.Title = in.Title
	out.Maximum = in.Maximum
	out.ExclusiveMaximum = in.ExclusiveMaximum
	out.Minimum = in.Minimum
	out.ExclusiveMinimum = in.ExclusiveMinimum
	out.MaxLength = in.MaxLength
	out.MinLength = in.MinLength
	out.Pattern = in.Pattern
	out.MaxItems = in.MaxItems
	out.MinItems = in.MinItems
	out.UniqueItems = in.UniqueItems
	out.MultipleOf = in.MultipleOf
	out.MaxProperties = in.MaxProperties
	out.MinProperties = in.MinProperties
	out.Required = in.Required

	var err error
	if out.Default, err = schema.DecodeJSON(in.Default); err != nil {
		return nil, err
	}
	if out.Example, err = schema.DecodeJSON(in.Example); err != nil {
		return nil, err
	}
	if in.Enum != nil {
		out.Enum = make([]interface{}, len(in.Enum))
		for i := range in.Enum {
			if out.Enum[i], err = schema.DecodeJSON(&in.Enum[i]); err != nil {
				return nil, err
			}
		}
	}

	if out.AllOf, err = toValidationSchemaList(in.AllOf); err != nil {
		return nil, err
	}
	if out.OneOf, err = toValidationSchemaList(in.OneOf); err != nil {
		return nil, err
	}
	if out.AnyOf, err = toValidationSchemaList(in.AnyOf); err != nil {
		return nil, err
	}
	if out.Not, err = toValidationSchema(in.Not); err != nil {
		return nil, err
	}
	if out.Properties, err = toValidationSchemaMap(in.Properties); err != nil {
		return nil, err
	}
	if out.PatternProperties, err = toValidationSchemaMap(in.PatternProperties); err != nil {
		return nil, err
	}
	if out.Definitions, err = toValidationSchemaMap(in.Definitions); err != nil {
		return nil, err
	}
	if in.AdditionalProperties != nil {
		if out.AdditionalProperties, err = toValidationSchemaOrBool(in.AdditionalProperties); err != nil {
			return nil, err
		}
	}
	if in.AdditionalItems != nil {
		if out.AdditionalItems, err = toValidationSchemaOrBool(in.AdditionalItems); err != nil {
			return nil, err
		}
	}
	if in.Items != nil {
		out.Items = &spec.SchemaOrArray{}
		if out.Items.Schema, err = toValidationSchema(in.Items.Schema); err != nil {
			return nil, err
		}
		if in.Items.JSONSchemas != nil {
			if out.Items.Schemas, err = toValidationSchemaList(in.Items.JSONSchemas); err != nil {
				return nil, err
			}
		}
	}
	if in.Dependencies != nil {
		out.Dependencies = make(spec.Dependencies, len(in.Dependencies))
		for key, dep := range in.Dependencies {
			converted := spec.SchemaOrStringArray{Property: dep.Property}
			if converted.Schema, err = toValidationSchema(dep.Schema); err != nil {
				return nil, err
			}
			out.Dependencies[key] = converted
		}
	}
	if in.ExternalDocs != nil {
		out.ExternalDocs = &spec.ExternalDocumentation{Description: in.ExternalDocs.Description, URL: in.ExternalDocs.URL}
	}

	if in.XPreserveUnknownFields != nil {
		out.AddExtension("x-kubernetes-preserve-unknown-fields", *in.XPreserveUnknownFields)
	}
	if in.XEmbeddedResource {
		out.AddExtension("x-kubernetes-embedded-resource", true)
	}
	if len(in.XListMapKeys) != 0 {
		out.AddExtension("x-kubernetes-list-map-keys", in.XListMapKeys)
	}
	if in.XListType != nil {
		out.AddExtension("x-kubernetes-list-type", *in.XListType)
	}
	if in.XMapType != nil {
		out.AddExtension("x-kubernetes-map-type", *in.XMapType)
	}
	if len(in.XValidations) != 0 {
		out.AddExtension("x-kubernetes-validations", in.XValidations)
	}
	return out, nil
}

func toValidationSchemaList(in []apiextensionsv1.JSONSchemaProps) ([]spec.Schema, error) {
	if in == nil {
		return nil, nil
	}
	out := make([]spec.Schema, 0, len(in))
	for i := range in {
		s, err := toValidationSchema(&in[i])
		if err != nil {
			return nil, err
		}
		out = append(out, *s)
	}
	return out, nil
}

func toValidationSchemaMap(in map[string]apiextensionsv1.JSONSchemaProps) (map[string]spec.Schema, error) {
	if in == nil {
		return nil, nil
	}
	out := make(map[string]spec.Schema, len(in))
	for name, props := range in {
		s, err := toValidationSchema(&props)
		if err != nil {
			return nil, err
		}
		out[name] = *s
	}
	return out, nil
}

func toValidationSchemaOrBool(in *apiextensionsv1.JSONSchemaPropsOrBool) (*spec.SchemaOrBool, error) {
	s, err := toValidationSchema(in.Schema)
	if err != nil {
		return nil, err
	}
	return &spec.SchemaOrBool{Allows: in.Allows, Schema: s}, nil
}
