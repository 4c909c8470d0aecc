package core

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/diff"
)

// corePackage is the import path of the core/v1 types.
var corePackage = reflect.TypeFor[v1.Pod]().PkgPath()

// internalJSON renders v as kube-apiserver renders the same value of its
// internal types, which have no JSON tags: structs of the core group by
// their Go field names, every field present (nil as null). Types of other
// packages (metav1, resource.Quantity) keep their own JSON. Error messages
// that show a whole struct (an "Invalid value: {...}" or an immutability
// diff) show it this way, and kube-apiserver's clients see exactly that
// text.
func internalJSON(v any) json.RawMessage {
	var buf bytes.Buffer
	writeInternalJSON(&buf, reflect.ValueOf(v))
	return buf.Bytes()
}

func writeInternalJSON(buf *bytes.Buffer, v reflect.Value) {
	if !v.IsValid() {
		buf.WriteString("null")
		return
	}
	t := v.Type()
	switch {
	case t.Kind() == reflect.Pointer:
		if v.IsNil() {
			buf.WriteString("null")
			return
		}
		writeInternalJSON(buf, v.Elem())
	case t.Kind() == reflect.Interface:
		if v.IsNil() {
			buf.WriteString("null")
			return
		}
		writeInternalJSON(buf, v.Elem())
	case t.Kind() == reflect.Struct && t.PkgPath() == corePackage:
		buf.WriteByte('{')
		writeInternalFields(buf, v, true)
		buf.WriteByte('}')
	case t.Kind() == reflect.Slice && t.Elem().Kind() != reflect.Uint8:
		if v.IsNil() {
			buf.WriteString("null")
			return
		}
		buf.WriteByte('[')
		for i := range v.Len() {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeInternalJSON(buf, v.Index(i))
		}
		buf.WriteByte(']')
	case t.Kind() == reflect.Map && t.Key().Kind() == reflect.String:
		if v.IsNil() {
			buf.WriteString("null")
			return
		}
		keys := v.MapKeys()
		slices.SortFunc(keys, func(a, b reflect.Value) int {
			switch {
			case a.String() < b.String():
				return -1
			case a.String() > b.String():
				return 1
			}
			return 0
		})
		buf.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				buf.WriteByte(',')
			}
			name, _ := json.Marshal(k.String())
			buf.Write(name)
			buf.WriteByte(':')
			writeInternalJSON(buf, v.MapIndex(k))
		}
		buf.WriteByte('}')
	default:
		b, err := json.Marshal(v.Interface())
		if err != nil {
			buf.WriteString("null")
			return
		}
		buf.Write(b)
	}
}

// writeInternalFields writes the fields of a core struct; embedded
// structs are inlined, as encoding/json inlines untagged embedded fields.
func writeInternalFields(buf *bytes.Buffer, v reflect.Value, first bool) bool {
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			first = writeInternalFields(buf, v.Field(i), first)
			continue
		}
		if !first {
			buf.WriteByte(',')
		}
		first = false
		name, _ := json.Marshal(f.Name)
		buf.Write(name)
		buf.WriteByte(':')
		writeInternalJSON(buf, v.Field(i))
	}
	return first
}

// internalDiff is the unified diff kube-apiserver appends to the message
// of an immutable field that changed: both values rendered as its internal
// types, indented.
func internalDiff(old, new any) string {
	return diff.Diff(internalJSON(old), internalJSON(new))
}
