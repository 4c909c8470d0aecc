// Package badvalue renders structs as kube-apiserver renders them when
// they are the bad value of a validation error. kube-apiserver validates
// its internal types, which have no JSON tags, and field.Error prints a
// bad value as its JSON: the Go field names, every field present, nil as
// null ({"Type":"ByHat"} where the API says {"type":"ByHat"}). Types
// shared by internal and versioned objects (those of apimachinery, such
// as metav1.GroupResource or resource.Quantity) keep their JSON form.
// kapi validates the versioned types, so it renders their values this way
// to give the same messages.
package badvalue

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
)

// Internal returns v as JSON with Go field names, to be used as the bad
// value of a field.Error. The versioned type must have the internal
// type's fields in the same order, which is the case for the API types
// that differ only by their tags.
func Internal(v any) json.RawMessage {
	var b bytes.Buffer
	write(&b, reflect.ValueOf(v))
	return json.RawMessage(b.Bytes())
}

func write(b *bytes.Buffer, v reflect.Value) {
	switch v.Kind() {
	case reflect.Invalid:
		b.WriteString("null")
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			b.WriteString("null")
			return
		}
		write(b, v.Elem())
	case reflect.Struct:
		if !strings.HasPrefix(v.Type().PkgPath(), "k8s.io/api/") {
			writeJSON(b, v)
			return
		}
		b.WriteByte('{')
		t := v.Type()
		first := true
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			if f.Anonymous && !strings.HasPrefix(f.Type.PkgPath(), "k8s.io/api/") {
				// An embedded apimachinery struct (ObjectMeta) has its
				// JSON fields inlined.
				data, err := json.Marshal(v.Field(i).Interface())
				if err != nil || len(data) <= 2 || data[0] != '{' {
					continue
				}
				if !first {
					b.WriteByte(',')
				}
				first = false
				b.Write(data[1 : len(data)-1])
				continue
			}
			if !first {
				b.WriteByte(',')
			}
			first = false
			name, _ := json.Marshal(f.Name)
			b.Write(name)
			b.WriteByte(':')
			write(b, v.Field(i))
		}
		b.WriteByte('}')
	case reflect.Slice:
		if v.IsNil() {
			b.WriteString("null")
			return
		}
		fallthrough
	case reflect.Array:
		b.WriteByte('[')
		for i := 0; i < v.Len(); i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			write(b, v.Index(i))
		}
		b.WriteByte(']')
	default:
		// Scalars and maps print as encoding/json prints them.
		writeJSON(b, v)
	}
}

func writeJSON(b *bytes.Buffer, v reflect.Value) {
	data, err := json.Marshal(v.Interface())
	if err != nil {
		b.WriteString("null")
		return
	}
	b.Write(data)
}
