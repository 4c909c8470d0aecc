package valuevalidation

import (
	"reflect"

	"k8s.io/kube-openapi/pkg/validation/spec"
	"k8s.io/kube-openapi/pkg/validation/strfmt"
	"k8s.io/kube-openapi/pkg/validation/validate"

	"github.com/kapi-dev/kapi/pkg/apiextensions/schema/ratchet"
)

// ratchetingValidator validates a value the way the plain value validator
// does, but drops its errors when the value is unchanged from the old
// object (package ratchet pairs them). It plugs into the value
// validator's recursion so that every property and item whose old value
// can be found gets its own ratcheting validator; below a value with no
// old counterpart plain validation resumes.
type ratchetingValidator struct {
	schema      *spec.Schema
	path        string
	correlation *ratchet.Correlation
}

func newRatchetingValidator(schema *spec.Schema, path string, c *ratchet.Correlation) *ratchetingValidator {
	return &ratchetingValidator{schema: schema, path: path, correlation: c}
}

func (r *ratchetingValidator) Validate(interface{}) *validate.Result {
	hooks := func(o *validate.SchemaValidatorOptions) {
		o.NewValidatorForField = r.validatorForField
		o.NewValidatorForIndex = r.validatorForIndex
	}
	result := validate.NewSchemaValidator(r.schema, nil, r.path, strfmt.Default, hooks).Validate(r.correlation.Value())
	if result.IsValid() {
		return result
	}
	if r.correlation.Unchanged() {
		ratcheted := &validate.Result{}
		ratcheted.MergeAsWarnings(result)
		return ratcheted
	}
	return result
}

func (r *ratchetingValidator) validatorForField(name string, schema *spec.Schema, rootSchema interface{}, path string, formats strfmt.Registry, opts ...validate.Option) validate.ValueValidator {
	child := r.correlation.Field(name)
	if child == nil || (r.path == "" && ratchet.NeverAtRoot(name)) {
		return validate.NewSchemaValidator(schema, rootSchema, path, formats, opts...)
	}
	return newRatchetingValidator(schema, path, child)
}

func (r *ratchetingValidator) validatorForIndex(index int, schema *spec.Schema, rootSchema interface{}, path string, formats strfmt.Registry, opts ...validate.Option) validate.ValueValidator {
	child := r.correlation.Index(index)
	if child == nil {
		return validate.NewSchemaValidator(schema, rootSchema, path, formats, opts...)
	}
	return newRatchetingValidator(schema, path, child)
}

func (r *ratchetingValidator) SetPath(string) {}

func (r *ratchetingValidator) Applies(interface{}, reflect.Kind) bool { return true }

// specSchema is a go-openapi schema as package ratchet sees it.
type specSchema struct{ s *spec.Schema }

func (w specSchema) Field(name string) (ratchet.Schema, bool) {
	if prop, found := w.s.Properties[name]; found {
		return specSchema{&prop}, true
	}
	if ap := w.s.AdditionalProperties; ap != nil && ap.Schema != nil {
		return specSchema{ap.Schema}, true
	}
	return nil, false
}

func (w specSchema) Items() (ratchet.Schema, bool) {
	if w.s.Items == nil || w.s.Items.Schema == nil {
		return nil, false
	}
	return specSchema{w.s.Items.Schema}, true
}

func (w specSchema) MapKeys() []string {
	if len(w.s.Type) == 0 || w.s.Type[0] != "array" {
		return nil
	}
	if t, _ := w.s.Extensions["x-kubernetes-list-type"].(string); t != "map" {
		return nil
	}
	switch keys := w.s.Extensions["x-kubernetes-list-map-keys"].(type) {
	case []string:
		return keys
	case []interface{}:
		out := make([]string, 0, len(keys))
		for _, k := range keys {
			if ks, ok := k.(string); ok {
				out = append(out, ks)
			}
		}
		return out
	}
	return nil
}

// correlate pairs obj with old, of schema s.
func correlate(obj, old interface{}, s *spec.Schema) *ratchet.Correlation {
	return ratchet.New(obj, old, specSchema{s})
}
