package valuevalidation

import (
	"reflect"
	"regexp"
	"unicode/utf8"

	"k8s.io/kube-openapi/pkg/validation/spec"
	"k8s.io/kube-openapi/pkg/validation/strfmt"
	"k8s.io/kube-openapi/pkg/validation/validate"
)

// validityChecker answers one question fast: would the value validator
// (k8s.io/kube-openapi's, which kube-apiserver uses and whose errors we
// report) find no error in a value? Almost every request is valid, and
// that validator is slow: it builds its validators anew for every node of
// every object. The checker is compiled once per schema and allocates
// nothing on the way.
//
// It is conservative: it may answer "invalid" where the value validator
// would not (then the value validator runs and decides), but it never
// answers "valid" where the value validator would report an error. Where
// mirroring the value validator exactly is not worth it (oneOf, not,
// patternProperties, uniqueItems...), the node is handed to the value
// validator itself.
type validityChecker struct {
	schema *spec.Schema
	// delegate hands every non-null value of this node to the value
	// validator.
	delegate bool

	types    spec.StringOrArray
	nullable bool
	// typeFormat is the format the type check considers.
	typeFormat string
	// stringFormat is the format checked on strings, "" if none is known.
	stringFormat string

	enum []interface{}

	maxLength, minLength *int64
	pattern              *regexp.Regexp

	// numberType and numberFormat are what bounds are checked against.
	numberType, numberFormat string
	multipleOf               *float64
	maximum, minimum         *float64
	exclusiveMaximum         bool
	exclusiveMinimum         bool

	items              *validityChecker
	maxItems, minItems *int64

	properties           map[string]*validityChecker
	additionalProperties *validityChecker
	// closed is additionalProperties: false.
	closed                       bool
	required                     []string
	maxProperties, minProperties *int64

	allOf, anyOf []*validityChecker
}

func newValidityChecker(s *spec.Schema) *validityChecker {
	if s == nil {
		return nil
	}
	c := &validityChecker{
		schema:     s,
		types:      s.Type,
		nullable:   s.Nullable,
		typeFormat: s.Format,
		enum:       s.Enum,
		maxLength:  s.MaxLength,
		minLength:  s.MinLength,

		multipleOf:       s.MultipleOf,
		maximum:          s.Maximum,
		minimum:          s.Minimum,
		exclusiveMaximum: s.ExclusiveMaximum,
		exclusiveMinimum: s.ExclusiveMinimum,

		maxItems: s.MaxItems,
		minItems: s.MinItems,

		required:      s.Required,
		maxProperties: s.MaxProperties,
		minProperties: s.MinProperties,
	}

	// The parts not mirrored here: oneOf and not (their outcome depends on
	// exact answers), and what CRD schemas cannot contain anyway.
	c.delegate = len(s.OneOf) > 0 || s.Not != nil || len(s.Dependencies) > 0 ||
		len(s.PatternProperties) > 0 || s.AdditionalItems != nil || s.UniqueItems ||
		(s.Items != nil && len(s.Items.Schemas) > 0)

	if s.Format != "" && strfmt.Default.ContainsName(s.Format) {
		c.stringFormat = s.Format
	}
	if s.Pattern != "" {
		re, err := regexp.Compile(s.Pattern)
		if err != nil {
			c.delegate = true // the value validator reports the bad pattern
		}
		c.pattern = re
	}

	// Bounds are checked against the type only if it is unambiguous, and
	// against the format only if it fits the type.
	if len(s.Type) == 1 {
		switch s.Type[0] {
		case "integer":
			c.numberType = "integer"
			if s.Format == "int32" || s.Format == "int64" {
				c.numberFormat = s.Format
			}
		case "number":
			c.numberType = "number"
			if s.Format == "float" || s.Format == "double" {
				c.numberFormat = s.Format
			}
		}
	}

	if s.Items != nil {
		c.items = newValidityChecker(s.Items.Schema)
	}
	if len(s.Properties) > 0 {
		c.properties = make(map[string]*validityChecker, len(s.Properties))
		for name := range s.Properties {
			prop := s.Properties[name]
			c.properties[name] = newValidityChecker(&prop)
		}
	}
	if ap := s.AdditionalProperties; ap != nil {
		c.closed = !ap.Allows
		c.additionalProperties = newValidityChecker(ap.Schema)
	}
	for i := range s.AllOf {
		c.allOf = append(c.allOf, newValidityChecker(&s.AllOf[i]))
	}
	for i := range s.AnyOf {
		c.anyOf = append(c.anyOf, newValidityChecker(&s.AnyOf[i]))
	}
	return c
}

// valid reports whether x certainly passes the value validator.
func (c *validityChecker) valid(x interface{}) bool {
	if c == nil {
		return true
	}
	if x == nil {
		// Only the type and the enum are checked on null.
		if len(c.types) > 0 && !c.types.Contains("null") && !c.nullable {
			return false
		}
		return len(c.enum) == 0
	}
	if c.delegate {
		return validate.NewSchemaValidator(c.schema, nil, "", strfmt.Default).Validate(x).IsValid()
	}
	if !c.typeValid(x) {
		return false
	}
	for _, n := range c.allOf {
		if !n.valid(x) {
			return false
		}
	}
	if len(c.anyOf) > 0 {
		matched := false
		for _, n := range c.anyOf {
			if n.valid(x) {
				matched = true
				break
			}
		}
		if !matched {
			return false
		}
	}

	switch x := x.(type) {
	case string:
		if !c.stringValid(x) {
			return false
		}
	case int64, float64:
		if !c.numberValid(x) {
			return false
		}
	case []interface{}:
		if !c.listValid(x) {
			return false
		}
	case map[string]interface{}:
		if !c.objectValid(x) {
			return false
		}
	case bool:
	default:
		return false // not unstructured JSON; let the value validator say
	}

	return len(c.enum) == 0 || c.inEnum(x)
}

// typeValid mirrors the value validator's type check for unstructured
// JSON values, including its quirks: a format may stand in for a type, and
// a string-typed node with a format accepts any string or list.
func (c *validityChecker) typeValid(x interface{}) bool {
	if len(c.types) == 0 && c.typeFormat == "" {
		return true
	}
	var jsonType, impliedFormat string
	stringOrList := false
	switch x.(type) {
	case string:
		jsonType, stringOrList = "string", true
	case []interface{}:
		jsonType, stringOrList = "array", true
	case int64:
		jsonType, impliedFormat = "integer", "int64"
	case float64:
		jsonType, impliedFormat = "number", "float64"
		if !c.types.Contains("number") && c.types.Contains("integer") {
			// whether the float is integral enough is not decided here
			return false
		}
	case bool:
		jsonType = "boolean"
	case map[string]interface{}:
		jsonType = "object"
	default:
		return false
	}
	intAsNumber := jsonType == "integer" && c.types.Contains("number")

	if !stringOrList && c.typeFormat != "" && !(c.types.Contains(jsonType) || impliedFormat == c.typeFormat || intAsNumber) {
		return false
	}
	if !(c.types.Contains("number") || c.types.Contains("integer")) && c.typeFormat != "" && stringOrList {
		return true
	}
	return c.types.Contains(jsonType) || intAsNumber
}

func (c *validityChecker) stringValid(s string) bool {
	if c.maxLength != nil || c.minLength != nil {
		n := int64(utf8.RuneCountInString(s))
		if c.maxLength != nil && n > *c.maxLength {
			return false
		}
		if c.minLength != nil && n < *c.minLength {
			return false
		}
	}
	if c.pattern != nil && !c.pattern.MatchString(s) {
		return false
	}
	if c.stringFormat != "" && !strfmt.Default.Validates(c.stringFormat, s) {
		return false
	}
	return true
}

// numberValid checks the value against its type's range and the bounds,
// with the value validator's own functions so that the semantics (integer
// truncation of float bounds, float32 ranges...) are the same. A bound
// that does not fit the type is itself reported by the value validator.
func (c *validityChecker) numberValid(x interface{}) bool {
	if !c.fitsType(x) {
		return false
	}
	if c.multipleOf != nil {
		if validate.IsValueValidAgainstRange(*c.multipleOf, c.numberType, c.numberFormat, "", "") != nil ||
			validate.MultipleOfNativeType("", "", x, *c.multipleOf) != nil {
			return false
		}
	}
	if c.maximum != nil {
		if validate.IsValueValidAgainstRange(*c.maximum, c.numberType, c.numberFormat, "", "") != nil ||
			validate.MaximumNativeType("", "", x, *c.maximum, c.exclusiveMaximum) != nil {
			return false
		}
	}
	if c.minimum != nil {
		if validate.IsValueValidAgainstRange(*c.minimum, c.numberType, c.numberFormat, "", "") != nil ||
			validate.MinimumNativeType("", "", x, *c.minimum, c.exclusiveMinimum) != nil {
			return false
		}
	}
	return true
}

// fitsType is the value validator's range check of the value itself,
// skipped where it trivially passes.
func (c *validityChecker) fitsType(x interface{}) bool {
	_, isInt := x.(int64)
	switch {
	case c.numberType == "integer" && isInt && c.numberFormat != "int32":
		return true
	case c.numberType != "integer" && c.numberFormat != "float":
		return true
	}
	return validate.IsValueValidAgainstRange(x, c.numberType, c.numberFormat, "", "") == nil
}

func (c *validityChecker) listValid(l []interface{}) bool {
	if c.maxItems != nil && int64(len(l)) > *c.maxItems {
		return false
	}
	if c.minItems != nil && int64(len(l)) < *c.minItems {
		return false
	}
	if c.items != nil {
		for _, item := range l {
			if !c.items.valid(item) {
				return false
			}
		}
	}
	return true
}

func (c *validityChecker) objectValid(m map[string]interface{}) bool {
	if c.maxProperties != nil && int64(len(m)) > *c.maxProperties {
		return false
	}
	if c.minProperties != nil && int64(len(m)) < *c.minProperties {
		return false
	}
	for name, v := range m {
		if prop, found := c.properties[name]; found {
			if !prop.valid(v) {
				return false
			}
			continue
		}
		if c.closed {
			return false
		}
		if c.additionalProperties != nil && !c.additionalProperties.valid(v) {
			return false
		}
	}
	for _, name := range c.required {
		if _, found := m[name]; !found {
			return false
		}
	}
	return true
}

// inEnum mirrors the value validator's enum check: the value, converted
// to the Go type of an enum entry where Go allows it, must equal that
// entry.
func (c *validityChecker) inEnum(x interface{}) bool {
	value := reflect.ValueOf(x)
	for _, e := range c.enum {
		if s, ok := x.(string); ok {
			if es, ok := e.(string); ok {
				if s == es {
					return true
				}
				continue
			}
		}
		enumType := reflect.TypeOf(e)
		if enumType == nil || !value.Type().ConvertibleTo(enumType) {
			continue
		}
		if reflect.DeepEqual(value.Convert(enumType).Interface(), e) {
			return true
		}
	}
	return false
}
