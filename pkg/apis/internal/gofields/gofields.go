// Package gofields renders API objects the way kube-apiserver shows them
// in the value of a validation error.
//
// kube-apiserver validates its internal types, which have no JSON tags,
// so the value of an error about a struct ("field is immutable", "must be
// 'RollingUpdate' or 'OnDelete'") is JSON with Go field names, every
// field present: {"Type":"Foo","RollingUpdate":null}. kapi validates the
// versioned types; Value turns one into what the internal type would
// print. Types of k8s.io/apimachinery (ObjectMeta, LabelSelector,
// Quantity, IntOrString, Time) have JSON tags in both, and keep them;
// embedded ones (an internal object's ObjectMeta) are inlined.
package gofields

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
)

// Value returns v as its internal type would be rendered in an error.
func Value(v any) any {
	return value(reflect.ValueOf(v))
}

func value(rv reflect.Value) any {
	switch rv.Kind() {
	case reflect.Invalid:
		return nil
	case reflect.Pointer, reflect.Interface:
		if rv.IsNil() {
			return nil
		}
		return value(rv.Elem())
	case reflect.Struct:
		if !isAPIType(rv.Type()) {
			return rv.Interface()
		}
		return structValue(rv)
	case reflect.Slice:
		if rv.IsNil() {
			return nil
		}
		if rv.Type().Elem().Kind() == reflect.Uint8 {
			return rv.Interface()
		}
		items := make([]any, rv.Len())
		for i := range items {
			items[i] = value(rv.Index(i))
		}
		return items
	case reflect.Map:
		if rv.IsNil() {
			return nil
		}
		m := make(map[string]any, rv.Len())
		for iter := rv.MapRange(); iter.Next(); {
			m[iter.Key().String()] = value(iter.Value())
		}
		return m
	}
	return rv.Interface()
}

// isAPIType is whether t is one of the versioned API types (k8s.io/api),
// whose internal twin has no JSON tags.
func isAPIType(t reflect.Type) bool {
	return strings.HasPrefix(t.PkgPath(), "k8s.io/api/")
}

// object is a JSON object whose keys keep their order.
type object struct {
	keys   []string
	values []any
	// inline are embedded structs, rendered with their own tags in place.
	inline map[int]any
}

func structValue(rv reflect.Value) object {
	var o object
	t := rv.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		if f.Anonymous && !isAPIType(f.Type) {
			if o.inline == nil {
				o.inline = map[int]any{}
			}
			o.inline[len(o.keys)] = rv.Field(i).Interface()
			o.keys = append(o.keys, "")
			o.values = append(o.values, nil)
			continue
		}
		o.keys = append(o.keys, f.Name)
		o.values = append(o.values, value(rv.Field(i)))
	}
	return o
}

func (o object) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	first := true
	for i, key := range o.keys {
		var part []byte
		if embedded, ok := o.inline[i]; ok {
			raw, err := json.Marshal(embedded)
			if err != nil {
				return nil, err
			}
			part = bytes.TrimSpace(raw)
			part = part[1 : len(part)-1] // the fields, without the braces
			if len(part) == 0 {
				continue
			}
		} else {
			k, err := json.Marshal(key)
			if err != nil {
				return nil, err
			}
			v, err := json.Marshal(o.values[i])
			if err != nil {
				return nil, err
			}
			part = append(append(k, ':'), v...)
		}
		if !first {
			buf.WriteByte(',')
		}
		first = false
		buf.Write(part)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}
