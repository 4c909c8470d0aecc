// Package goname renders API values the way kube-apiserver shows them in
// field errors.
//
// kube-apiserver validates its internal types, which have no JSON tags,
// and a field error quotes the bad value as JSON: the internal structs of
// k8s.io/api's kinds come out with their Go field names and without
// omitempty ({"Name":"c","Image":"busybox","Command":null,...}), while the
// types of apimachinery (ObjectMeta, LabelSelector, Time, Quantity), which
// are the same in both forms, keep their JSON tags, and an embedded
// ObjectMeta is inlined. Value wraps a v1 value so that it marshals the
// same way; the internal types mirror the v1 ones field for field and in
// the same order, so the output is kube-apiserver's.
package goname

import (
	"bytes"
	"encoding"
	"encoding/json"
	"reflect"
	"sort"
	"strings"
)

// Value returns v wrapped so that field.Invalid renders it as
// kube-apiserver renders the internal form of v.
func Value(v any) any {
	if v == nil {
		return nil
	}
	return shown{v}
}

type shown struct{ v any }

func (s shown) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	if err := write(&buf, reflect.ValueOf(s.v)); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

var (
	marshalerType     = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
)

// tagged reports whether values of t marshal with their own JSON: types
// that marshal themselves and the apimachinery types, tagged in the
// internal form too.
func tagged(t reflect.Type) bool {
	if t.Implements(marshalerType) || t.Implements(textMarshalerType) {
		return true
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return strings.HasPrefix(t.PkgPath(), "k8s.io/apimachinery/")
}

func write(buf *bytes.Buffer, v reflect.Value) error {
	if !v.IsValid() {
		buf.WriteString("null")
		return nil
	}
	if (v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface || v.Kind() == reflect.Map || v.Kind() == reflect.Slice) && v.IsNil() {
		buf.WriteString("null")
		return nil
	}
	if tagged(v.Type()) {
		return marshal(buf, v.Interface())
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		return write(buf, v.Elem())
	case reflect.Struct:
		return writeStruct(buf, v)
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return marshal(buf, v.Interface())
		}
		buf.WriteByte('[')
		for i := range v.Len() {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := write(buf, v.Index(i)); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
		return nil
	case reflect.Map:
		keys := v.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
		buf.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := marshal(buf, k.String()); err != nil {
				return err
			}
			buf.WriteByte(':')
			if err := write(buf, v.MapIndex(k)); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
		return nil
	default:
		return marshal(buf, v.Interface())
	}
}

// writeStruct writes the exported fields by their Go names; ObjectMeta
// and TypeMeta, embedded in the internal types, are inlined.
func writeStruct(buf *bytes.Buffer, v reflect.Value) error {
	t := v.Type()
	buf.WriteByte('{')
	first := true
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		if f.Anonymous || f.Name == "ObjectMeta" || f.Name == "TypeMeta" {
			inner, err := json.Marshal(v.Field(i).Interface())
			if err != nil {
				return err
			}
			inner = bytes.TrimSpace(inner)
			if len(inner) > 2 && inner[0] == '{' {
				if !first {
					buf.WriteByte(',')
				}
				buf.Write(inner[1 : len(inner)-1])
				first = false
			}
			continue
		}
		if !first {
			buf.WriteByte(',')
		}
		first = false
		if err := marshal(buf, f.Name); err != nil {
			return err
		}
		buf.WriteByte(':')
		if err := write(buf, v.Field(i)); err != nil {
			return err
		}
	}
	buf.WriteByte('}')
	return nil
}

func marshal(buf *bytes.Buffer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	buf.Write(b)
	return nil
}
