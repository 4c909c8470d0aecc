package schema

import (
	"bytes"
	"fmt"
	"sort"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// Structural is the structural form of an OpenAPI v3 schema: the types,
// properties, items and additionalProperties that describe the shape of an
// object, the Kubernetes extensions, and the value validations that restrict
// values further without adding structure.
//
// The same type describes the schemas nested under allOf, anyOf, oneOf and
// not (see ValueValidation). Those must not contribute structure: for them
// only the value validations, properties, items and additionalProperties
// are meaningful, and ValidateStructural reports anything else.
//
// JSON values (Default, Example, Enum) are unstructured JSON as
// k8s.io/apimachinery decodes it: integral numbers are int64.
type Structural struct {
	// Type is one of object, array, string, integer, number, boolean. It
	// may be empty only under x-kubernetes-int-or-string or
	// x-kubernetes-preserve-unknown-fields.
	Type     string
	Nullable bool
	// Default is the decoded default value; nil when there is none (a
	// default of null counts as none, as in kube-apiserver).
	Default      interface{}
	Description  string
	Title        string
	Example      interface{}
	ExternalDocs *apiextensionsv1.ExternalDocumentation

	// Properties is nil when the schema specifies no properties.
	Properties           map[string]*Structural
	Items                *Structural
	AdditionalProperties *AdditionalProperties

	// XPreserveUnknownFields stops pruning below this node (until nested
	// properties or additionalProperties are specified again).
	XPreserveUnknownFields bool
	// XEmbeddedResource marks an embedded object with apiVersion, kind and
	// metadata, which pruning keeps and validation checks.
	XEmbeddedResource bool
	// XIntOrString allows an integer or a string without a type.
	XIntOrString bool
	XListType    *string
	XListMapKeys []string
	XMapType     *string
	// XValidations are the CEL rules, kept for the CEL package.
	XValidations apiextensionsv1.ValidationRules

	ValueValidation
}

// AdditionalProperties is additionalProperties: a schema (Allows is true),
// or a plain boolean (Schema is nil).
type AdditionalProperties struct {
	Allows bool
	Schema *Structural
}

// ValueValidation holds the schema fields that restrict values without
// contributing to the structure.
type ValueValidation struct {
	Format           string
	Maximum          *float64
	ExclusiveMaximum bool
	Minimum          *float64
	ExclusiveMinimum bool
	MaxLength        *int64
	MinLength        *int64
	Pattern          string
	MaxItems         *int64
	MinItems         *int64
	UniqueItems      bool
	MultipleOf       *float64
	Enum             []interface{}
	MaxProperties    *int64
	MinProperties    *int64
	Required         []string
	AllOf            []*Structural
	OneOf            []*Structural
	AnyOf            []*Structural
	Not              *Structural
}

// NewStructural converts a CRD version's schema into its structural form.
// It fails on what a structural schema can never hold (items as an array,
// $ref, id, $schema, patternProperties, dependencies, additionalItems,
// definitions, x-kubernetes-preserve-unknown-fields: false), with the
// messages kube-apiserver uses. A schema that passed
// ValidateCustomResourceDefinitionSchema always converts. A nil schema gives
// a nil Structural.
func NewStructural(s *apiextensionsv1.JSONSchemaProps) (*Structural, error) {
	return newStructural(s, false)
}

// newStructural converts s. nested is true below allOf/anyOf/oneOf/not,
// where kube-apiserver keeps an explicitly empty properties map (it makes
// the schema differ from the int-or-string patterns) and drops
// additionalProperties: false.
func newStructural(s *apiextensionsv1.JSONSchemaProps, nested bool) (*Structural, error) {
	if s == nil {
		return nil, nil
	}
	if err := checkUnsupportedFields(s); err != nil {
		return nil, err
	}

	out := &Structural{
		Type:              s.Type,
		Nullable:          s.Nullable,
		Description:       s.Description,
		Title:             s.Title,
		XEmbeddedResource: s.XEmbeddedResource,
		XIntOrString:      s.XIntOrString,
		XListType:         s.XListType,
		XListMapKeys:      s.XListMapKeys,
		XMapType:          s.XMapType,
		XValidations:      s.XValidations,
	}

	if err := out.ValueValidation.fill(s); err != nil {
		return nil, err
	}

	var err error
	if out.Default, err = DecodeJSON(s.Default); err != nil {
		return nil, err
	}
	if out.Example, err = DecodeJSON(s.Example); err != nil {
		return nil, err
	}
	if s.ExternalDocs != nil {
		docs := *s.ExternalDocs
		out.ExternalDocs = &docs
	}

	if s.XPreserveUnknownFields != nil {
		if !*s.XPreserveUnknownFields {
			return nil, fmt.Errorf("internal error: 'x-kubernetes-preserve-unknown-fields' must be true or undefined")
		}
		out.XPreserveUnknownFields = true
	}

	if s.Items != nil {
		if len(s.Items.JSONSchemas) > 0 {
			return nil, fmt.Errorf("OpenAPIV3Schema 'items' must be a schema, but is an array")
		}
		if out.Items, err = newStructural(s.Items.Schema, nested); err != nil {
			return nil, err
		}
	}

	if len(s.Properties) > 0 || (nested && s.Properties != nil) {
		out.Properties = make(map[string]*Structural, len(s.Properties))
		for _, name := range sortedKeys(s.Properties) {
			prop := s.Properties[name]
			if out.Properties[name], err = newStructural(&prop, nested); err != nil {
				return nil, err
			}
		}
	}

	if ap := s.AdditionalProperties; ap != nil {
		switch {
		case ap.Schema != nil:
			apSchema, err := newStructural(ap.Schema, nested)
			if err != nil {
				return nil, err
			}
			out.AdditionalProperties = &AdditionalProperties{Allows: true, Schema: apSchema}
		case nested && !ap.Allows:
			// Below a junctor additionalProperties: false adds nothing to
			// the structure; kube-apiserver forgets it here (the value
			// validator still enforces it).
		default:
			out.AdditionalProperties = &AdditionalProperties{Allows: ap.Allows}
		}
	}

	return out, nil
}

// fill copies the value validations of s, converting the schemas under the
// logical junctors.
func (v *ValueValidation) fill(s *apiextensionsv1.JSONSchemaProps) error {
	*v = ValueValidation{
		Format:           s.Format,
		Maximum:          s.Maximum,
		ExclusiveMaximum: s.ExclusiveMaximum,
		Minimum:          s.Minimum,
		ExclusiveMinimum: s.ExclusiveMinimum,
		MaxLength:        s.MaxLength,
		MinLength:        s.MinLength,
		Pattern:          s.Pattern,
		MaxItems:         s.MaxItems,
		MinItems:         s.MinItems,
		UniqueItems:      s.UniqueItems,
		MultipleOf:       s.MultipleOf,
		MaxProperties:    s.MaxProperties,
		MinProperties:    s.MinProperties,
		Required:         s.Required,
	}

	var err error
	if v.Not, err = newStructural(s.Not, true); err != nil {
		return err
	}
	for i := range s.Enum {
		value, err := DecodeJSON(&s.Enum[i])
		if err != nil {
			return err
		}
		v.Enum = append(v.Enum, value)
	}
	if v.AllOf, err = newNestedList(s.AllOf); err != nil {
		return err
	}
	if v.AnyOf, err = newNestedList(s.AnyOf); err != nil {
		return err
	}
	if v.OneOf, err = newNestedList(s.OneOf); err != nil {
		return err
	}
	return nil
}

func newNestedList(in []apiextensionsv1.JSONSchemaProps) ([]*Structural, error) {
	var out []*Structural
	for i := range in {
		n, err := newStructural(&in[i], true)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, nil
}

// checkUnsupportedFields rejects the fields a structural schema cannot
// represent. CRD validation reports them with better messages first.
func checkUnsupportedFields(s *apiextensionsv1.JSONSchemaProps) error {
	switch {
	case len(s.ID) > 0:
		return fmt.Errorf("OpenAPIV3Schema 'id' is not supported")
	case len(s.Schema) > 0:
		return fmt.Errorf("OpenAPIV3Schema 'schema' is not supported")
	case s.Ref != nil && len(*s.Ref) > 0:
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
	return nil
}

var jsonNull = []byte("null")

// decodeJSON decodes a schema's JSON value the way kube-apiserver converts
// it to its internal type: a missing value and null both become nil,
// integral numbers become int64.
// DecodeJSON decodes a JSON value of a schema (default, enum, example);
// JSON null and no value are nil.
func DecodeJSON(j *apiextensionsv1.JSON) (interface{}, error) {
	if j == nil || len(j.Raw) == 0 || bytes.Equal(j.Raw, jsonNull) {
		return nil, nil
	}
	var v interface{}
	if err := utiljson.Unmarshal(j.Raw, &v); err != nil {
		return nil, err
	}
	return v, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
