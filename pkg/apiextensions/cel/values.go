package cel

import (
	"encoding/base64"
	"fmt"
	"reflect"
	"time"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/kube-openapi/pkg/validation/strfmt"

	"github.com/kapi-dev/kapi/pkg/cel/schemas"
)

// newVal returns the CEL value of the unstructured value v (as decoded from
// JSON: map[string]interface{}, []interface{}, string, int64, float64, bool
// or nil) typed by its schema n. Objects and lists are wrapped, not copied:
// their members are converted when CEL reaches them. Data that does not
// match the schema becomes a CEL error value, which fails the rule that
// touches it.
func newVal(v interface{}, n *node) ref.Val {
	if v == nil {
		if n.nullable {
			return types.NullValue
		}
		return types.NewErr("invalid data, got null for schema with nullable=false")
	}
	if n.intOrString {
		switch v := v.(type) {
		case string:
			return types.String(v)
		case int64:
			return types.Int(v)
		case int:
			return types.Int(v)
		case int32:
			return types.Int(v)
		}
		return types.NewErr("invalid data, expected XIntOrString value to be either a string or integer")
	}
	switch n.typ {
	case "object":
		m, ok := v.(map[string]interface{})
		if !ok {
			return types.NewErr("invalid data, expected a map for the provided schema with type=object")
		}
		return newObjectVal(m, n)
	case "array":
		l, ok := v.([]interface{})
		if !ok {
			return types.NewErr("invalid data, expected an array for the provided schema with type=array")
		}
		if n.items == nil {
			return types.NewErr("invalid array type, expected Items with a non-empty Schema")
		}
		list := &listVal{raw: l, items: n.items}
		switch n.listType {
		case "", "atomic":
			return list
		case "set":
			return &setListVal{listVal: list}
		case "map":
			return &mapListVal{listVal: list, keys: escapedKeys(n.listMapKeys)}
		}
		return types.NewErr("invalid x-kubernetes-list-type, expected 'map', 'set' or 'atomic' but got %s", n.listType)
	case "string":
		s, ok := v.(string)
		if !ok {
			return types.NewErr("invalid data, expected string, got %T", v)
		}
		return stringVal(s, n.format)
	case "number":
		switch v := v.(type) {
		case float64:
			return types.Double(v)
		case int64:
			return types.Double(v)
		case int:
			return types.Double(v)
		case int32:
			return types.Double(v)
		case float32:
			return types.Double(v)
		}
		return types.NewErr("invalid data, expected float, got %T", v)
	case "integer":
		switch v := v.(type) {
		case int64:
			return types.Int(v)
		case int:
			return types.Int(v)
		case int32:
			return types.Int(v)
		}
		return types.NewErr("invalid data, expected int, got %T", v)
	case "boolean":
		b, ok := v.(bool)
		if !ok {
			return types.NewErr("invalid data, expected bool, got %T", v)
		}
		return types.Bool(b)
	}
	if n.preserveUnknown {
		return &unknownVal{raw: v}
	}
	return types.NewErr("invalid type, expected object, array, number, integer, boolean or string, or no type with x-kubernetes-int-or-string or x-kubernetes-preserve-unknown-fields is true, got %s", n.typ)
}

// stringVal types a string by its format: durations, dates and date-times
// are CEL durations and timestamps, byte is CEL bytes.
func stringVal(s, format string) ref.Val {
	switch format {
	case "duration":
		d, err := strfmt.ParseDuration(s)
		if err != nil {
			return types.NewErr("Invalid duration %s: %v", s, err)
		}
		return types.Duration{Duration: d}
	case "date":
		d, err := time.Parse(strfmt.RFC3339FullDate, s)
		if err != nil {
			return types.NewErr("Invalid date formatted string %s: %v", s, err)
		}
		return types.Timestamp{Time: d}
	case "date-time":
		d, err := strfmt.ParseDateTime(s)
		if err != nil {
			return types.NewErr("Invalid date-time formatted string %s: %v", s, err)
		}
		return types.Timestamp{Time: time.Time(d)}
	case "byte":
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return types.NewErr("Invalid byte formatted string %s: %v", s, err)
		}
		return types.Bytes(b)
	}
	return types.String(s)
}

// objectVal is a JSON object seen through its schema. It is a CEL map:
// the interpreter selects fields (self.f), tests presence (has(self.f))
// and looks up keys (self[k]) with Find.
//
//   - An object with properties (or an embedded resource) exposes its
//     declared properties, by escaped name; null properties are absent.
//   - An object with additionalProperties exposes every key, unescaped.
//   - Any other object exposes nothing.
type objectVal struct {
	raw map[string]interface{}
	n   *node
	// fields is set for objects with properties, whose keys are escaped.
	fields bool
}

func newObjectVal(m map[string]interface{}, n *node) *objectVal {
	if n.embedded {
		n = n.resourceRoot()
	}
	return &objectVal{raw: m, n: n, fields: n.properties != nil}
}

// schemaOf returns the schema of the member named key, or nil if the key
// is not visible to CEL.
func (o *objectVal) schemaOf(key string) *node {
	if o.fields {
		return o.n.properties[key]
	}
	return o.n.additionalProperties
}

func (o *objectVal) Find(key ref.Val) (ref.Val, bool) {
	k, ok := key.(types.String)
	if !ok {
		return types.MaybeNoSuchOverloadErr(key), true
	}
	name := string(k)
	if o.fields {
		if name, ok = schemas.Unescape(name); !ok {
			return nil, false
		}
	}
	v, ok := o.raw[name]
	if !ok || (o.fields && v == nil) {
		return nil, false
	}
	s := o.schemaOf(name)
	if s == nil {
		return nil, false
	}
	return newVal(v, s), true
}

func (o *objectVal) Get(key ref.Val) ref.Val {
	if v, found := o.Find(key); found {
		return v
	}
	return types.ValOrErr(key, "no such key: %v", key)
}

func (o *objectVal) Contains(key ref.Val) ref.Val {
	v, found := o.Find(key)
	if v != nil && types.IsUnknownOrError(v) {
		return v
	}
	return types.Bool(found)
}

// Size counts every key of the object, visible or not.
func (o *objectVal) Size() ref.Val { return types.Int(len(o.raw)) }

func (o *objectVal) Iterator() traits.Iterator {
	keys := make([]ref.Val, 0, len(o.raw))
	for k := range o.raw {
		if o.schemaOf(k) == nil {
			continue
		}
		if o.fields {
			if escaped, ok := schemas.Escape(k); ok {
				k = escaped
			}
		}
		keys = append(keys, types.String(k))
	}
	return &sliceIterator{vals: keys}
}

// Equal compares visible members as CEL values and other members, which
// only a preserve-unknown-fields object holds, as JSON.
func (o *objectVal) Equal(other ref.Val) ref.Val {
	om, ok := other.(traits.Mapper)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	if o.Size() != om.Size() {
		return types.False
	}
	for k, raw := range o.raw {
		if o.schemaOf(k) == nil {
			ov, ok := other.(*objectVal)
			if !ok {
				return types.MaybeNoSuchOverloadErr(other)
			}
			if oraw, ok := ov.raw[k]; ok && !equality.Semantic.DeepEqual(raw, oraw) {
				return types.False
			}
			continue
		}
		key := k
		if o.fields {
			if escaped, ok := schemas.Escape(k); ok {
				key = escaped
			}
		}
		v, found := o.Find(types.String(key))
		ov, oFound := om.Find(types.String(key))
		if found != oFound {
			return types.False
		}
		if !found {
			continue
		}
		if eq := v.Equal(ov); eq != types.True {
			return eq
		}
	}
	return types.True
}

func (o *objectVal) ConvertToNative(t reflect.Type) (any, error) {
	if t.Kind() == reflect.Map {
		return o.raw, nil
	}
	return nil, fmt.Errorf("type conversion error from '%s' to '%s'", o.Type(), t)
}

func (o *objectVal) ConvertToType(t ref.Type) ref.Val {
	switch t {
	case types.MapType:
		return o
	case types.TypeType:
		return types.MapType
	}
	return types.NewErr("type conversion error from '%s' to '%s'", o.Type(), t.TypeName())
}

func (o *objectVal) Type() ref.Type { return types.MapType }
func (o *objectVal) Value() any     { return o.raw }

// listVal is a JSON array with x-kubernetes-list-type atomic (or none):
// equality is ordered and + concatenates.
type listVal struct {
	raw   []interface{}
	items *node
}

func (l *listVal) Get(index ref.Val) ref.Val {
	i, ok := index.(types.Int)
	if !ok {
		return types.ValOrErr(index, "unsupported index: %v", index)
	}
	if i < 0 || int(i) >= len(l.raw) {
		return types.NewErr("index out of bounds: %v", index)
	}
	return newVal(l.raw[i], l.items)
}

func (l *listVal) Size() ref.Val { return types.Int(len(l.raw)) }

func (l *listVal) Iterator() traits.Iterator {
	return &listIterator{list: l}
}

func (l *listVal) Contains(v ref.Val) ref.Val {
	if types.IsUnknownOrError(v) {
		return v
	}
	var err ref.Val
	for _, e := range l.raw {
		eq := newVal(e, l.items).Equal(v)
		if eq == types.True {
			return types.True
		}
		if _, isBool := eq.(types.Bool); !isBool && err == nil {
			err = types.MaybeNoSuchOverloadErr(eq)
		}
	}
	if err != nil {
		return err
	}
	return types.False
}

func (l *listVal) Equal(other ref.Val) ref.Val {
	ol, ok := other.(traits.Lister)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	if types.Int(len(l.raw)) != ol.Size() {
		return types.False
	}
	for i := range l.raw {
		if eq := l.Get(types.Int(i)).Equal(ol.Get(types.Int(i))); eq != types.True {
			return eq
		}
	}
	return types.True
}

func (l *listVal) Add(other ref.Val) ref.Val {
	ol, ok := other.(traits.Lister)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	elems := l.elements()
	for it := ol.Iterator(); it.HasNext() == types.True; {
		elems = append(elems, it.Next())
	}
	return types.NewRefValList(types.DefaultTypeAdapter, elems)
}

// elements converts every item.
func (l *listVal) elements() []ref.Val {
	elems := make([]ref.Val, len(l.raw))
	for i, e := range l.raw {
		elems[i] = newVal(e, l.items)
	}
	return elems
}

func (l *listVal) ConvertToNative(t reflect.Type) (any, error) {
	if t.Kind() == reflect.Slice {
		if l.items.typ != "string" {
			return l.raw, nil
		}
		strs := make([]string, 0, len(l.raw))
		for _, e := range l.raw {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("expected all elements to be of type string, but got %T", e)
			}
			strs = append(strs, s)
		}
		return strs, nil
	}
	return nil, fmt.Errorf("type conversion error from '%s' to '%s'", l.Type(), t)
}

func (l *listVal) ConvertToType(t ref.Type) ref.Val {
	switch t {
	case types.ListType:
		return l
	case types.TypeType:
		return types.ListType
	}
	return types.NewErr("type conversion error from '%s' to '%s'", l.Type(), t.TypeName())
}

func (l *listVal) Type() ref.Type { return types.ListType }
func (l *listVal) Value() any     { return l.raw }

type listIterator struct {
	list *listVal
	next int
}

func (it *listIterator) HasNext() ref.Val { return types.Bool(it.next < len(it.list.raw)) }
func (it *listIterator) Next() ref.Val {
	v := newVal(it.list.raw[it.next], it.list.items)
	it.next++
	return v
}
func (it *listIterator) ConvertToNative(reflect.Type) (any, error) {
	return nil, fmt.Errorf("type conversion on iterators not supported")
}
func (it *listIterator) ConvertToType(ref.Type) ref.Val { return types.NewErr("no such overload") }
func (it *listIterator) Equal(ref.Val) ref.Val          { return types.NewErr("no such overload") }
func (it *listIterator) Type() ref.Type                 { return types.IteratorType }
func (it *listIterator) Value() any                     { return nil }

type sliceIterator struct {
	vals []ref.Val
	next int
}

func (it *sliceIterator) HasNext() ref.Val { return types.Bool(it.next < len(it.vals)) }
func (it *sliceIterator) Next() ref.Val {
	v := it.vals[it.next]
	it.next++
	return v
}
func (it *sliceIterator) ConvertToNative(reflect.Type) (any, error) {
	return nil, fmt.Errorf("type conversion on iterators not supported")
}
func (it *sliceIterator) ConvertToType(ref.Type) ref.Val { return types.NewErr("no such overload") }
func (it *sliceIterator) Equal(ref.Val) ref.Val          { return types.NewErr("no such overload") }
func (it *sliceIterator) Type() ref.Type                 { return types.IteratorType }
func (it *sliceIterator) Value() any                     { return nil }

// unknownVal is a value of a schema without a type that preserves unknown
// fields; CEL can only compare it.
type unknownVal struct {
	raw interface{}
}

func (u *unknownVal) ConvertToNative(t reflect.Type) (any, error) {
	return nil, fmt.Errorf("type conversion to '%s' not supported for values preserved by x-kubernetes-preserve-unknown-fields", t)
}
func (u *unknownVal) ConvertToType(t ref.Type) ref.Val {
	return types.NewErr("type conversion to '%s' not supported for values preserved by x-kubernetes-preserve-unknown-fields", t.TypeName())
}
func (u *unknownVal) Equal(other ref.Val) ref.Val {
	return types.Bool(equality.Semantic.DeepEqual(u.raw, other.Value()))
}
func (u *unknownVal) Type() ref.Type { return types.UnknownType }
func (u *unknownVal) Value() any     { return u.raw }
