package schemas

import (
	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
)

// Schema is what typing needs of one schema of a tree. Methods that
// return a Schema return nil (untyped) when there is none.
type Schema interface {
	// Type is the schema's type: "object", "array", "string", "integer",
	// "number", "boolean", or "" when unset.
	Type() string
	Format() string
	// IntOrString is x-kubernetes-int-or-string (or, in built-in
	// definitions, format int-or-string).
	IntOrString() bool
	// Embedded is x-kubernetes-embedded-resource.
	Embedded() bool
	MaxLength() *int64
	MaxItems() *int64
	MaxProperties() *int64
	// Enum is the string values of enum; HasEnum says whether there is
	// an enum at all.
	Enum() []string
	HasEnum() bool
	// Required says whether the object requires the property.
	Required(name string) bool
	// Defaulted says whether the schema has a default (not null).
	Defaulted() bool
	// PropertyNames lists the properties in a stable order.
	PropertyNames() []string
	Property(name string) Schema
	Items() Schema
	// AdditionalProperties is the schema of map values.
	AdditionalProperties() Schema
	// ResourceRoot is how CEL sees the schema as the root of a resource
	// (or an embedded resource): apiVersion, kind, metadata.name and
	// metadata.generateName are there, declared or not.
	ResourceRoot() Schema
}

// Serialized sizes Kubernetes assumes to bound how many values of a type
// a request can hold.
const (
	// MaxRequestSizeBytes is the largest request kube-apiserver accepts.
	MaxRequestSizeBytes = int64(3 * 1024 * 1024)

	MinStringSize = 2 // ""
	minBoolSize   = 4 // true
	minNumberSize = 1 // 0
	// minDurationSizeJSON is "0" with its quotes.
	minDurationSizeJSON = 3
	// maxDurationSizeJSON and maxDatetimeSizeJSON bound RFC 3339 values
	// such as "9999-12-31T23:59:59.999999999Z" with quotes.
	maxDurationSizeJSON = 32
	maxDatetimeSizeJSON = 32
	// jsonDateSize is "YYYY-MM-DD" with quotes.
	jsonDateSize = 12
	// minDatetimeSizeJSON is "YYYY-MM-DDTHH:MM:SS" with quotes.
	minDatetimeSizeJSON = 21
)

// DeclType is the CEL type of the values of one schema, with the size
// bounds cost estimation needs.
type DeclType struct {
	CEL *types.Type
	// Name is the CEL type name of an object type.
	Name string
	// Fields of an object type, by escaped property name.
	Fields map[string]*DeclType
	// Elem is the type of list items and map values.
	Elem *DeclType
	// IsMap distinguishes a map from a list when Elem is set.
	IsMap bool
	// MaxElements bounds the size of a list, a map or a string (in
	// characters, as size() counts them); 0 for objects.
	MaxElements int64
	// MinSerializedSize is the size of the smallest JSON encoding of a
	// value; it bounds how many values a request can hold.
	MinSerializedSize int64
}

// IsObject says whether t is an object type (with fields).
func (t *DeclType) IsObject() bool { return t.Fields != nil }

// MapKeyType is the type of map keys. Kubernetes leaves their maximum
// size at 0.
var MapKeyType = &DeclType{CEL: cel.StringType, MinSerializedSize: MinStringSize}

// SchemaDeclType returns the CEL type of values of s, or nil when CEL
// cannot see them (a schema without a type and not int-or-string, an
// array without items). isResourceRoot adds apiVersion, kind and metadata.
//
// Object types are left unnamed ("object"); see Named.
func SchemaDeclType(s Schema, isResourceRoot bool) *DeclType {
	if s == nil {
		return nil
	}
	if s.IntOrString() {
		// The smallest int-or-string is 0.
		t := &DeclType{CEL: cel.DynType, MinSerializedSize: 1}
		if s.MaxLength() != nil {
			t.MaxElements = zeroIfNegative(*s.MaxLength()) * 4
		} else {
			t.MaxElements = MaxRequestSizeBytes - 2
		}
		return t
	}
	if isResourceRoot {
		s = s.ResourceRoot()
	}
	switch s.Type() {
	case "array":
		items := s.Items()
		if items == nil {
			return nil
		}
		it := SchemaDeclType(items, items.Embedded())
		if it == nil {
			return nil
		}
		// An item is at least its smallest encoding plus a comma.
		maxItems := (MaxRequestSizeBytes - 2) / (it.MinSerializedSize + 1)
		if s.MaxItems() != nil {
			maxItems = zeroIfNegative(*s.MaxItems())
		}
		return &DeclType{CEL: cel.ListType(it.CEL), Elem: it, MaxElements: maxItems, MinSerializedSize: 2}
	case "object":
		if add := s.AdditionalProperties(); add != nil {
			values := SchemaDeclType(add, add.Embedded())
			if values == nil {
				return nil
			}
			// A key-value pair is at least "":<value> plus a comma.
			maxProperties := (MaxRequestSizeBytes - 2) / (values.MinSerializedSize + 6)
			if s.MaxProperties() != nil {
				maxProperties = zeroIfNegative(*s.MaxProperties())
			}
			return &DeclType{CEL: cel.MapType(cel.StringType, values.CEL), Elem: values, IsMap: true, MaxElements: maxProperties, MinSerializedSize: 2}
		}
		names := s.PropertyNames()
		t := &DeclType{Name: "object", Fields: make(map[string]*DeclType, len(names)), MinSerializedSize: 2}
		for _, name := range names {
			prop := s.Property(name)
			if prop == nil {
				continue
			}
			ft := SchemaDeclType(prop, prop.Embedded())
			if ft == nil {
				continue
			}
			if escaped, ok := Escape(name); ok {
				t.Fields[escaped] = ft
			}
			if s.Required(name) && !prop.Defaulted() {
				// "name":<value> plus a comma
				t.MinSerializedSize += int64(len(name)) + ft.MinSerializedSize + 4
			}
		}
		t.CEL = cel.ObjectType(t.Name)
		return t
	case "string":
		return stringDeclType(s)
	case "boolean":
		return &DeclType{CEL: cel.BoolType, MinSerializedSize: minBoolSize}
	case "number":
		return &DeclType{CEL: cel.DoubleType, MinSerializedSize: minNumberSize}
	case "integer":
		return &DeclType{CEL: cel.IntType, MinSerializedSize: minNumberSize}
	}
	return nil
}

func stringDeclType(s Schema) *DeclType {
	unbounded := MaxRequestSizeBytes - 2
	switch s.Format() {
	case "byte":
		t := &DeclType{CEL: cel.BytesType, MinSerializedSize: MinStringSize, MaxElements: unbounded}
		if s.MaxLength() != nil {
			t.MaxElements = zeroIfNegative(*s.MaxLength())
		}
		return t
	case "duration":
		return &DeclType{CEL: cel.DurationType, MinSerializedSize: minDurationSizeJSON, MaxElements: maxDurationSizeJSON}
	case "date":
		return &DeclType{CEL: cel.TimestampType, MinSerializedSize: jsonDateSize, MaxElements: jsonDateSize}
	case "date-time":
		return &DeclType{CEL: cel.TimestampType, MinSerializedSize: minDatetimeSizeJSON, MaxElements: maxDatetimeSizeJSON}
	}
	t := &DeclType{CEL: cel.StringType, MinSerializedSize: MinStringSize, MaxElements: unbounded}
	switch {
	case s.MaxLength() != nil:
		// maxLength counts characters; a character is at most 4 bytes.
		t.MaxElements = zeroIfNegative(*s.MaxLength()) * 4
	case s.HasEnum():
		var longest int64
		for _, e := range s.Enum() {
			longest = max(longest, int64(len(e)))
		}
		t.MaxElements = longest
	}
	return t
}

func zeroIfNegative(v int64) int64 {
	return max(v, 0)
}

// Named returns t with its object types named after their location below
// name: the root object is name, a field f of an object N is N.f, list
// items are L.@idx and map values M.@elem. It returns t itself when t
// holds no object type.
func (t *DeclType) Named(name string) *DeclType {
	switch {
	case t.IsObject():
		n := *t
		n.Name = name
		n.CEL = cel.ObjectType(name)
		n.Fields = make(map[string]*DeclType, len(t.Fields))
		for f, ft := range t.Fields {
			n.Fields[f] = ft.Named(name + "." + f)
		}
		return &n
	case t.Elem != nil:
		suffix := ".@idx"
		if t.IsMap {
			suffix = ".@elem"
		}
		elem := t.Elem.Named(name + suffix)
		if elem == t.Elem {
			return t
		}
		n := *t
		n.Elem = elem
		if t.IsMap {
			n.CEL = cel.MapType(cel.StringType, elem.CEL)
		} else {
			n.CEL = cel.ListType(elem.CEL)
		}
		return &n
	}
	return t
}

// TypeProvider makes the object types of declType trees known to the CEL
// type checker, on top of the environment's own provider.
type TypeProvider struct {
	types.Provider
	objects map[string]*DeclType
}

// NewTypeProvider returns a provider of the object types of roots (nil
// roots are skipped), which must be named (see Named).
func NewTypeProvider(base types.Provider, roots ...*DeclType) *TypeProvider {
	p := &TypeProvider{Provider: base, objects: map[string]*DeclType{}}
	for _, r := range roots {
		p.register(r)
	}
	return p
}

func (p *TypeProvider) register(t *DeclType) {
	if t == nil {
		return
	}
	if t.IsObject() {
		p.objects[t.Name] = t
		for _, f := range t.Fields {
			p.register(f)
		}
	}
	p.register(t.Elem)
}

func (p *TypeProvider) FindStructType(name string) (*types.Type, bool) {
	if t, ok := p.objects[name]; ok {
		return types.NewTypeTypeWithParam(t.CEL), true
	}
	return p.Provider.FindStructType(name)
}

// FindStructFieldNames is not answered for schema objects, as in
// kube-apiserver.
func (p *TypeProvider) FindStructFieldNames(name string) ([]string, bool) {
	if _, ok := p.objects[name]; ok {
		return []string{}, false
	}
	return p.Provider.FindStructFieldNames(name)
}

// FindStructFieldType resolves self.f. A property named after a reserved
// word may be written either escaped (self.__namespace__) or plainly
// (self.namespace).
func (p *TypeProvider) FindStructFieldType(name, field string) (*types.FieldType, bool) {
	t, ok := p.objects[name]
	if !ok {
		return p.Provider.FindStructFieldType(name, field)
	}
	ft, ok := t.Fields[field]
	if !ok && reservedSymbols[field] {
		ft, ok = t.Fields["__"+field+"__"]
	}
	if !ok {
		return nil, false
	}
	// Neither IsSet nor GetFrom: the interpreter then selects fields on
	// the runtime value, which knows its schema.
	return &types.FieldType{Type: ft.CEL}, true
}

// NewValue: schema objects cannot be constructed in expressions.
func (p *TypeProvider) NewValue(name string, fields map[string]ref.Val) ref.Val {
	return p.Provider.NewValue(name, fields)
}
