package openapi

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/kapi-dev/kapi/pkg/openapi/internal/apidocs"
)

// The definitions are built from the Go types by reflection, following the
// rules of kube-openapi's openapi-gen, which generates kube-apiserver's
// definitions from the same types:
//
//   - a struct is an object; its properties are its fields, named by their
//     json tags; embedded structs tagged `json:",inline"` add their fields;
//   - a field without omitempty is required, unless its comment says
//     +optional (and one with omitempty is when it says +required);
//   - a non-pointer field gets the zero value of its type as default ({} for
//     structs), unless the type decodes itself (UnmarshalJSON);
//   - named struct types are references to their own definitions; named
//     string or number types are inlined as their underlying type;
//   - types with OpenAPISchemaType/OpenAPISchemaFormat methods (Time,
//     Quantity, IntOrString, ...) are defined by those, and in v3 by
//     OpenAPIV3OneOfTypes when they have it;
//   - descriptions are the SwaggerDoc of the types, extended with the values
//     of enum types.
//
// Definitions are the same for every document of a dialect, since the Go
// types never change: each is built once per process and shared. Only
// x-kubernetes-group-version-kind, which depends on the scheme and on the
// document, is added when a document is assembled.

// dialect is the OpenAPI version a definition is written for.
type dialect int

const (
	v2 dialect = iota
	v3
)

func (d dialect) refPrefix() string {
	if d == v3 {
		return "#/components/schemas/"
	}
	return "#/definitions/"
}

// definition is a built definition and the Go types it refers to.
type definition struct {
	typ    reflect.Type
	name   string
	schema *spec.Schema
	deps   []reflect.Type
}

// withKinds returns the schema of d with an x-kubernetes-group-version-kind
// extension listing gvks. The cached schema is left untouched.
func withKinds(d *definition, gvks []schema.GroupVersionKind) spec.Schema {
	s := *d.schema
	if len(gvks) == 0 {
		return s
	}
	ext := make(spec.Extensions, len(s.Extensions)+1)
	for k, v := range s.Extensions {
		ext[k] = v
	}
	ext["x-kubernetes-group-version-kind"] = gvkExtension(gvks)
	s.Extensions = ext
	return s
}

// definitions caches the definitions of one dialect.
type definitions struct {
	dialect dialect

	mu     sync.Mutex
	byType map[reflect.Type]*definition
	// byName catches two Go types claiming the same definition name.
	byName map[string]reflect.Type
}

// The definitions of the process: Go types do not change while it runs.
var (
	v2Definitions = newDefinitions(v2)
	v3Definitions = newDefinitions(v3)
)

func newDefinitions(d dialect) *definitions {
	return &definitions{dialect: d, byType: map[reflect.Type]*definition{}, byName: map[string]reflect.Type{}}
}

// closure returns the definitions of roots and of every type they refer to,
// by name.
func (defs *definitions) closure(roots []reflect.Type) (map[string]*definition, error) {
	defs.mu.Lock()
	defer defs.mu.Unlock()
	out := map[string]*definition{}
	seen := map[reflect.Type]bool{}
	queue := append([]reflect.Type(nil), roots...)
	for len(queue) > 0 {
		t := queue[0]
		queue = queue[1:]
		if seen[t] {
			continue
		}
		seen[t] = true
		d, err := defs.get(t)
		if err != nil {
			return nil, err
		}
		out[d.name] = d
		queue = append(queue, d.deps...)
	}
	return out, nil
}

// get returns the definition of a named struct type, building it if needed.
// Callers hold mu.
func (defs *definitions) get(t reflect.Type) (*definition, error) {
	if d, ok := defs.byType[t]; ok {
		return d, nil
	}
	name := definitionName(t)
	if other, ok := defs.byName[name]; ok && other != t {
		return nil, fmt.Errorf("types %v and %v have the same definition name %q", other, t, name)
	}
	b := &typeBuilder{dialect: defs.dialect, deps: map[reflect.Type]bool{}}
	s, err := b.definition(t)
	if err != nil {
		return nil, fmt.Errorf("building the definition of %v: %w", t, err)
	}
	d := &definition{typ: t, name: name, schema: s}
	for dep := range b.deps {
		d.deps = append(d.deps, dep)
	}
	defs.byType[t] = d
	defs.byName[name] = t
	return d, nil
}

// typeBuilder builds the definition of one type.
type typeBuilder struct {
	dialect dialect
	deps    map[reflect.Type]bool
}

type documented interface {
	SwaggerDoc() map[string]string
}

var documentedType = reflect.TypeFor[documented]()

// goName is the name the generated tables use for a Go type.
func goName(t reflect.Type) string { return t.PkgPath() + "." + t.Name() }

// typeDocs returns the documentation of a type: "" is the type, other keys
// are json field names. It is the type's SwaggerDoc, corrected where
// openapi-gen reads the comments differently.
func typeDocs(t reflect.Type) map[string]string {
	var docs map[string]string
	if t.Implements(documentedType) {
		docs = reflect.Zero(t).Interface().(documented).SwaggerDoc()
	}
	fixes := apidocs.Types[goName(t)].Docs
	if len(fixes) == 0 {
		return docs
	}
	merged := make(map[string]string, len(docs)+len(fixes))
	for k, v := range docs {
		merged[k] = v
	}
	for k, v := range fixes {
		merged[k] = v
	}
	return merged
}

// schemaTyper is implemented by types that are not objects on the wire.
type schemaTyper interface {
	OpenAPISchemaType() []string
	OpenAPISchemaFormat() string
}

type v3OneOfTyper interface {
	OpenAPIV3OneOfTypes() []string
}

var (
	schemaTyperType  = reflect.TypeFor[schemaTyper]()
	v3OneOfTyperType = reflect.TypeFor[v3OneOfTyper]()
)

func (b *typeBuilder) definition(t reflect.Type) (*spec.Schema, error) {
	s := &spec.Schema{}
	s.Description = typeDocs(t)[""]

	if t.Implements(schemaTyperType) {
		typer := reflect.Zero(t).Interface().(schemaTyper)
		s.Format = typer.OpenAPISchemaFormat()
		if b.dialect == v3 && t.Implements(v3OneOfTyperType) {
			for _, typ := range reflect.Zero(t).Interface().(v3OneOfTyper).OpenAPIV3OneOfTypes() {
				s.OneOf = append(s.OneOf, spec.Schema{SchemaProps: spec.SchemaProps{Type: spec.StringOrArray{typ}}})
			}
			return s, nil
		}
		s.Type = typer.OpenAPISchemaType()
		return s, nil
	}

	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("only structs have definitions, %v is a %v", t, t.Kind())
	}
	s.Type = spec.StringOrArray{"object"}
	if err := b.addFields(s, t); err != nil {
		return nil, err
	}
	facts := apidocs.Types[goName(t)]
	if facts.StructType != "" {
		s.AddExtension("x-kubernetes-map-type", facts.StructType)
	}
	if len(facts.Unions) > 0 {
		s.AddExtension("x-kubernetes-unions", unionsExtension(facts.Unions))
	}
	return s, nil
}

// addFields adds the properties of the fields of t to s. Inline embedded
// structs add their own fields, with their own documentation and markers.
func (b *typeBuilder) addFields(s *spec.Schema, t reflect.Type) error {
	docs := typeDocs(t)
	fields := apidocs.Types[goName(t)].Fields
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag, hasTag := f.Tag.Lookup("json")
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && hasTag && name == "" {
			if err := b.addFields(s, indirect(f.Type)); err != nil {
				return err
			}
			continue
		}
		switch name {
		case "-":
			continue
		case "":
			name = f.Name
		}
		facts := fields[name]
		if facts.Hidden {
			continue
		}
		if required(opts, facts) {
			s.Required = append(s.Required, name)
		}
		prop, err := b.property(f, opts, docs[name], facts)
		if err != nil {
			return fmt.Errorf("field %s: %w", f.Name, err)
		}
		if s.Properties == nil {
			s.Properties = map[string]spec.Schema{}
		}
		s.Properties[name] = *prop
	}
	return nil
}

// required tells whether a field is required: when it is always serialized,
// unless its comment says otherwise.
func required(opts string, facts apidocs.Field) bool {
	switch facts.Required {
	case "required":
		return true
	case "optional":
		return false
	}
	return !hasOption(opts, "omitempty")
}

func unionsExtension(unions []apidocs.Union) []any {
	out := make([]any, 0, len(unions))
	for _, u := range unions {
		ext := map[string]any{}
		if u.Discriminator != "" {
			ext["discriminator"] = u.Discriminator
		}
		members := make(map[string]any, len(u.Members))
		for field, value := range u.Members {
			members[field] = value
		}
		ext["fields-to-discriminateBy"] = members
		out = append(out, ext)
	}
	return out
}

func hasOption(opts, option string) bool {
	for o := range strings.SplitSeq(opts, ",") {
		if o == option {
			return true
		}
	}
	return false
}

func indirect(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// property builds the schema of one field.
func (b *typeBuilder) property(f reflect.StructField, opts string, doc string, facts apidocs.Field) (*spec.Schema, error) {
	s := &spec.Schema{}
	s.Description = withEnumValues(doc, f.Type, facts.OpenEnded)
	if hasOption(opts, "string") {
		s.Type = spec.StringOrArray{"string"}
		return s, nil
	}
	// kube-apiserver prunes the defaults from its v2 document.
	if b.dialect == v3 {
		if facts.Default != "" {
			if err := json.Unmarshal([]byte(facts.Default), &s.Default); err != nil {
				return nil, fmt.Errorf("default %s: %w", facts.Default, err)
			}
		} else {
			s.Default = zeroDefault(f.Type, hasOption(opts, "omitempty"))
		}
	}
	if err := b.typeSchema(s, f.Type); err != nil {
		return nil, err
	}

	if strategy := f.Tag.Get("patchStrategy"); strategy != "" {
		s.AddExtension("x-kubernetes-patch-strategy", strategy)
	}
	if key := f.Tag.Get("patchMergeKey"); key != "" {
		s.AddExtension("x-kubernetes-patch-merge-key", key)
	}
	if facts.ListType != "" {
		s.AddExtension("x-kubernetes-list-type", facts.ListType)
	}
	if len(facts.ListMapKeys) > 0 {
		keys := make([]any, len(facts.ListMapKeys))
		for i, k := range facts.ListMapKeys {
			keys[i] = k
		}
		s.AddExtension("x-kubernetes-list-map-keys", keys)
	}
	if facts.MapType != "" {
		s.AddExtension("x-kubernetes-map-type", facts.MapType)
	}

	if b.dialect == v3 && s.Ref.String() != "" && !reflect.DeepEqual(*s, spec.Schema{SchemaProps: spec.SchemaProps{Ref: s.Ref}}) {
		// OpenAPI v3 ignores the siblings of a $ref: wrap it when it has
		// some (a field without description or default has none).
		s.AllOf = []spec.Schema{{SchemaProps: spec.SchemaProps{Ref: s.Ref}}}
		s.Ref = spec.Ref{}
	}
	return s, nil
}

// typeSchema sets the type of s from the Go type t: a simple type, a
// reference, an array or a map.
func (b *typeBuilder) typeSchema(s *spec.Schema, t reflect.Type) error {
	t = indirect(t)
	if typ, format := simpleType(t); typ != "" {
		s.Type = spec.StringOrArray{typ}
		s.Format = format
		s.Enum = enumValues(t)
		return nil
	}
	switch t.Kind() {
	case reflect.Struct:
		b.deps[t] = true
		s.Ref = spec.MustCreateRef(b.dialect.refPrefix() + definitionName(t))
	case reflect.Slice, reflect.Array:
		items := &spec.Schema{}
		if err := b.typeSchema(items, t.Elem()); err != nil {
			return err
		}
		s.Type = spec.StringOrArray{"array"}
		s.Items = &spec.SchemaOrArray{Schema: items}
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return fmt.Errorf("map keys must be strings, %v has %v", t, t.Key())
		}
		values := &spec.Schema{}
		if err := b.typeSchema(values, t.Elem()); err != nil {
			return err
		}
		s.Type = spec.StringOrArray{"object"}
		s.AdditionalProperties = &spec.SchemaOrBool{Allows: true, Schema: values}
	case reflect.Interface:
		// Anything goes; openapi-gen leaves such fields untyped too.
	default:
		return fmt.Errorf("no OpenAPI type for %v", t)
	}
	return nil
}

// simpleType returns the OpenAPI type and format of a Go type that is a
// string, a number, a boolean or []byte, named or not.
func simpleType(t reflect.Type) (string, string) {
	if t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8 {
		return common.OpenAPITypeFormat("[]byte")
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Slice, reflect.Array, reflect.Map, reflect.Interface, reflect.Pointer:
		return "", ""
	}
	return common.OpenAPITypeFormat(t.Kind().String())
}

// zeroDefault is the default openapi-gen gives a field: the zero value of
// its type when the field is always serialized. Structs always are, as {}.
func zeroDefault(t reflect.Type, omitEmpty bool) any {
	if t.Kind() == reflect.Struct && reflect.PointerTo(t).Implements(jsonUnmarshalerType) {
		// Custom decoders (Time, Quantity, IntOrString) turn null into
		// their zero value: there is nothing to default.
		return nil
	}
	switch t.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Array, reflect.Interface:
		return nil
	case reflect.Struct:
		if t.NumField() == 1 && t.Field(0).Anonymous {
			return zeroDefault(t.Field(0).Type, omitEmpty)
		}
		return map[string]any{}
	}
	if omitEmpty {
		return nil
	}
	zero, _ := common.OpenAPIZeroValue(t.Kind().String())
	return zero
}

var jsonUnmarshalerType = reflect.TypeFor[json.Unmarshaler]()

// enumValues returns the values of an enum type, in the order of their Go
// literals, as openapi-gen sorts them.
func enumValues(t reflect.Type) []any {
	values := apidocs.Enums[goName(t)]
	if len(values) == 0 {
		return nil
	}
	out := make([]any, len(values))
	for i, v := range values {
		out[i] = v.Value
	}
	sort.Slice(out, func(i, j int) bool { return strconv.Quote(out[i].(string)) < strconv.Quote(out[j].(string)) })
	return out
}

// withEnumValues appends to the description of a field of an enum type a
// paragraph listing the values and what they mean, as openapi-gen does:
//
//	Possible enum values:
//	 - `"Always"` means that ...
//
// openEnded is set when the field's comment ends with a blank line, which
// openapi-gen keeps: three newlines then separate the paragraphs.
func withEnumValues(doc string, t reflect.Type, openEnded bool) string {
	values := apidocs.Enums[goName(indirect(t))]
	if len(values) == 0 {
		return doc
	}
	lines := make([]string, len(values))
	for i, v := range values {
		comment := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(v.Comment), v.Name))
		comment = strings.Join(strings.Fields(comment), " ")
		lines[i] = strings.TrimRight(fmt.Sprintf(" - `%q` %s", v.Value, comment), " ")
	}
	sort.Strings(lines)
	paragraph := "Possible enum values:\n" + strings.Join(lines, "\n")
	switch {
	case doc == "":
		return paragraph
	case openEnded:
		return doc + "\n\n\n" + paragraph
	}
	return doc + "\n\n" + paragraph
}
