package cel

import (
	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
)

// Serialized sizes Kubernetes assumes to bound how many values of a type
// a request can hold.
const (
	// maxRequestSizeBytes is the largest request kube-apiserver accepts.
	maxRequestSizeBytes = int64(3 * 1024 * 1024)

	minStringSize = 2 // ""
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

// declType is the CEL type of the values of one schema, with the size
// bounds cost estimation needs.
type declType struct {
	cel *types.Type
	// name is the CEL type name of an object type.
	name string
	// fields of an object type, by escaped property name.
	fields map[string]*declType
	// elem is the type of list items and map values.
	elem *declType
	// isMap distinguishes a map from a list when elem is set.
	isMap bool
	// maxElements bounds the size of a list, a map or a string (in
	// characters, as size() counts them); 0 for objects.
	maxElements int64
	// minSerializedSize is the size of the smallest JSON encoding of a
	// value; it bounds how many values a request can hold.
	minSerializedSize int64
}

func (t *declType) isObject() bool { return t.fields != nil }

// schemaDeclType returns the CEL type of values of n, or nil when CEL
// cannot see them (a schema without a type and not int-or-string, an
// array without items). isResourceRoot adds apiVersion, kind and metadata.
//
// Object types are left unnamed ("object"); see named.
func schemaDeclType(n *node, isResourceRoot bool) *declType {
	if n == nil {
		return nil
	}
	if n.intOrString {
		// The smallest int-or-string is 0.
		t := &declType{cel: cel.DynType, minSerializedSize: 1}
		if n.maxLength != nil {
			t.maxElements = zeroIfNegative(*n.maxLength) * 4
		} else {
			t.maxElements = maxRequestSizeBytes - 2
		}
		return t
	}
	if isResourceRoot {
		n = n.resourceRoot()
	}
	switch n.typ {
	case "array":
		if n.items == nil {
			return nil
		}
		items := schemaDeclType(n.items, n.items.embedded)
		if items == nil {
			return nil
		}
		// An item is at least its smallest encoding plus a comma.
		maxItems := (maxRequestSizeBytes - 2) / (items.minSerializedSize + 1)
		if n.maxItems != nil {
			maxItems = zeroIfNegative(*n.maxItems)
		}
		return &declType{cel: cel.ListType(items.cel), elem: items, maxElements: maxItems, minSerializedSize: 2}
	case "object":
		if n.additionalProperties != nil {
			values := schemaDeclType(n.additionalProperties, n.additionalProperties.embedded)
			if values == nil {
				return nil
			}
			// A key-value pair is at least "":<value> plus a comma.
			maxProperties := (maxRequestSizeBytes - 2) / (values.minSerializedSize + 6)
			if n.maxProperties != nil {
				maxProperties = zeroIfNegative(*n.maxProperties)
			}
			return &declType{cel: cel.MapType(cel.StringType, values.cel), elem: values, isMap: true, maxElements: maxProperties, minSerializedSize: 2}
		}
		t := &declType{name: "object", fields: make(map[string]*declType, len(n.properties)), minSerializedSize: 2}
		for _, name := range n.propertyNames {
			prop := n.properties[name]
			ft := schemaDeclType(prop, prop.embedded)
			if ft == nil {
				continue
			}
			if escaped, ok := Escape(name); ok {
				t.fields[escaped] = ft
			}
			if n.required[name] && !prop.defaulted {
				// "name":<value> plus a comma
				t.minSerializedSize += int64(len(name)) + ft.minSerializedSize + 4
			}
		}
		t.cel = cel.ObjectType(t.name)
		return t
	case "string":
		return stringDeclType(n)
	case "boolean":
		return &declType{cel: cel.BoolType, minSerializedSize: minBoolSize}
	case "number":
		return &declType{cel: cel.DoubleType, minSerializedSize: minNumberSize}
	case "integer":
		return &declType{cel: cel.IntType, minSerializedSize: minNumberSize}
	}
	return nil
}

func stringDeclType(n *node) *declType {
	unbounded := maxRequestSizeBytes - 2
	switch n.format {
	case "byte":
		t := &declType{cel: cel.BytesType, minSerializedSize: minStringSize, maxElements: unbounded}
		if n.maxLength != nil {
			t.maxElements = zeroIfNegative(*n.maxLength)
		}
		return t
	case "duration":
		return &declType{cel: cel.DurationType, minSerializedSize: minDurationSizeJSON, maxElements: maxDurationSizeJSON}
	case "date":
		return &declType{cel: cel.TimestampType, minSerializedSize: jsonDateSize, maxElements: jsonDateSize}
	case "date-time":
		return &declType{cel: cel.TimestampType, minSerializedSize: minDatetimeSizeJSON, maxElements: maxDatetimeSizeJSON}
	}
	t := &declType{cel: cel.StringType, minSerializedSize: minStringSize, maxElements: unbounded}
	switch {
	case n.maxLength != nil:
		// maxLength counts characters; a character is at most 4 bytes.
		t.maxElements = zeroIfNegative(*n.maxLength) * 4
	case n.hasEnum:
		var longest int64
		for _, e := range n.stringEnum {
			longest = max(longest, int64(len(e)))
		}
		t.maxElements = longest
	}
	return t
}

func zeroIfNegative(v int64) int64 {
	return max(v, 0)
}

// named returns t with its object types named after their location below
// name: the root object is name, a field f of an object N is N.f, list
// items are L.@idx and map values M.@elem. It returns t itself when t
// holds no object type.
func (t *declType) named(name string) *declType {
	switch {
	case t.isObject():
		n := *t
		n.name = name
		n.cel = cel.ObjectType(name)
		n.fields = make(map[string]*declType, len(t.fields))
		for f, ft := range t.fields {
			n.fields[f] = ft.named(name + "." + f)
		}
		return &n
	case t.elem != nil:
		suffix := ".@idx"
		if t.isMap {
			suffix = ".@elem"
		}
		elem := t.elem.named(name + suffix)
		if elem == t.elem {
			return t
		}
		n := *t
		n.elem = elem
		if t.isMap {
			n.cel = cel.MapType(cel.StringType, elem.cel)
		} else {
			n.cel = cel.ListType(elem.cel)
		}
		return &n
	}
	return t
}

// typeProvider makes the object types of one declType tree known to the
// CEL type checker, on top of the environment's own provider.
type typeProvider struct {
	types.Provider
	objects map[string]*declType
}

func newTypeProvider(base types.Provider, root *declType) *typeProvider {
	p := &typeProvider{Provider: base, objects: map[string]*declType{}}
	p.register(root)
	return p
}

func (p *typeProvider) register(t *declType) {
	if t == nil {
		return
	}
	if t.isObject() {
		p.objects[t.name] = t
		for _, f := range t.fields {
			p.register(f)
		}
	}
	p.register(t.elem)
}

func (p *typeProvider) FindStructType(name string) (*types.Type, bool) {
	if t, ok := p.objects[name]; ok {
		return types.NewTypeTypeWithParam(t.cel), true
	}
	return p.Provider.FindStructType(name)
}

// FindStructFieldNames is not answered for schema objects, as in
// kube-apiserver.
func (p *typeProvider) FindStructFieldNames(name string) ([]string, bool) {
	if _, ok := p.objects[name]; ok {
		return []string{}, false
	}
	return p.Provider.FindStructFieldNames(name)
}

// FindStructFieldType resolves self.f. A property named after a reserved
// word may be written either escaped (self.__namespace__) or plainly
// (self.namespace).
func (p *typeProvider) FindStructFieldType(name, field string) (*types.FieldType, bool) {
	t, ok := p.objects[name]
	if !ok {
		return p.Provider.FindStructFieldType(name, field)
	}
	ft, ok := t.fields[field]
	if !ok && reservedSymbols[field] {
		ft, ok = t.fields["__"+field+"__"]
	}
	if !ok {
		return nil, false
	}
	// Neither IsSet nor GetFrom: the interpreter then selects fields on
	// the runtime value, which knows its schema.
	return &types.FieldType{Type: ft.cel}, true
}

// NewValue: schema objects cannot be constructed in expressions.
func (p *typeProvider) NewValue(name string, fields map[string]ref.Val) ref.Val {
	return p.Provider.NewValue(name, fields)
}
