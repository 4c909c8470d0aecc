package schemas

import (
	"encoding/json"
	"slices"
	"sort"

	"k8s.io/kube-openapi/pkg/validation/spec"
)

// Definitions looks an OpenAPI definition up by its $ref.
type Definitions func(ref string) (*spec.Schema, bool)

// OpenAPI returns a kube-openapi schema as a Schema, its $refs (plain or
// wrapped in allOf, as kube-openapi writes a reference with a
// description) resolved in defs as kube-apiserver resolves them: a
// reference replaces the whole schema, and a reference back to a schema
// being resolved (a recursive type) is an object without properties. A
// reference defs lacks is no schema at all.
func OpenAPI(s *spec.Schema, defs Definitions) Schema {
	return openAPISchema(s, defs, nil)
}

type openAPI struct {
	s    *spec.Schema
	defs Definitions
	// resolving are the references being resolved on the way down.
	resolving []string
}

func openAPISchema(s *spec.Schema, defs Definitions, resolving []string) Schema {
	if s == nil {
		return nil
	}
	if ref, ok := refOf(s); ok {
		if slices.Contains(resolving, ref) {
			return &openAPI{s: &spec.Schema{SchemaProps: spec.SchemaProps{Type: spec.StringOrArray{"object"}}}, defs: defs}
		}
		resolved, ok := defs(ref)
		if !ok {
			return nil
		}
		resolving = append(slices.Clip(resolving), ref)
		// The definition may itself be a reference.
		return openAPISchema(resolved, defs, resolving)
	}
	return &openAPI{s: s, defs: defs, resolving: resolving}
}

func refOf(s *spec.Schema) (string, bool) {
	if s.Ref.GetURL() != nil {
		return s.Ref.String(), true
	}
	for i := range s.AllOf {
		if ref, ok := refOf(&s.AllOf[i]); ok {
			return ref, true
		}
	}
	return "", false
}

func (o *openAPI) child(s *spec.Schema) Schema { return openAPISchema(s, o.defs, o.resolving) }

func (o *openAPI) Type() string {
	if len(o.s.Type) == 0 {
		return ""
	}
	return o.s.Type[0]
}

func (o *openAPI) Format() string { return o.s.Format }

// IntOrString: built-in definitions have the format, CRDs the extension.
func (o *openAPI) IntOrString() bool {
	return o.s.Format == "int-or-string" || extension(o.s, "x-kubernetes-int-or-string")
}

func (o *openAPI) Embedded() bool { return extension(o.s, "x-kubernetes-embedded-resource") }

func extension(s *spec.Schema, key string) bool {
	v, ok := s.Extensions.GetBool(key)
	return v && ok
}

func (o *openAPI) MaxLength() *int64     { return o.s.MaxLength }
func (o *openAPI) MaxItems() *int64      { return o.s.MaxItems }
func (o *openAPI) MaxProperties() *int64 { return o.s.MaxProperties }
func (o *openAPI) HasEnum() bool         { return len(o.s.Enum) > 0 }

func (o *openAPI) Enum() []string {
	var out []string
	for _, e := range o.s.Enum {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func (o *openAPI) Required(name string) bool { return slices.Contains(o.s.Required, name) }

func (o *openAPI) Defaulted() bool {
	if o.s.Default == nil {
		return false
	}
	b, err := json.Marshal(o.s.Default)
	return err != nil || string(b) != "null"
}

func (o *openAPI) PropertyNames() []string {
	names := make([]string, 0, len(o.s.Properties))
	for name := range o.s.Properties {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

func (o *openAPI) Property(name string) Schema {
	p, ok := o.s.Properties[name]
	if !ok {
		return nil
	}
	return o.child(&p)
}

func (o *openAPI) Items() Schema {
	if o.s.Items == nil {
		return nil
	}
	return o.child(o.s.Items.Schema)
}

func (o *openAPI) AdditionalProperties() Schema {
	if o.s.AdditionalProperties == nil {
		return nil
	}
	return o.child(o.s.AdditionalProperties.Schema)
}

// ResourceRoot declares apiVersion and kind as strings and metadata as
// an object of name and generateName, unless the schema declares them.
func (o *openAPI) ResourceRoot() Schema {
	isString := func(s Schema) bool { return s != nil && s.Type() == "string" }
	if meta := o.Property("metadata"); isString(o.Property("kind")) && isString(o.Property("apiVersion")) &&
		meta != nil && meta.Type() == "object" && isString(meta.Property("name")) && isString(meta.Property("generateName")) {
		return o
	}
	str := spec.Schema{SchemaProps: spec.SchemaProps{Type: spec.StringOrArray{"string"}}}
	copied := *o.s
	copied.Properties = make(map[string]spec.Schema, len(o.s.Properties)+3)
	for name, p := range o.s.Properties {
		copied.Properties[name] = p
	}
	copied.Properties["kind"] = str
	copied.Properties["apiVersion"] = str
	copied.Properties["metadata"] = spec.Schema{SchemaProps: spec.SchemaProps{
		Type:       spec.StringOrArray{"object"},
		Properties: map[string]spec.Schema{"name": str, "generateName": str},
	}}
	return &openAPI{s: &copied, defs: o.defs, resolving: o.resolving}
}
