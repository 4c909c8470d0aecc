package core

import (
	"encoding/json"
	"reflect"
	"sync"

	"k8s.io/apimachinery/pkg/util/diff"
)

// internalDiff is the diff kube-apiserver puts in the messages of some
// update errors: a unified diff of the two values as JSON, rendered from
// its internal types. Those have the versioned types' fields in the same
// order but no JSON tags, so every field appears under its Go name, empty
// ones included. The versioned values are converted to look so.
func internalDiff(a, b any) string {
	return diff.Diff(internalLooking(reflect.ValueOf(a)), internalLooking(reflect.ValueOf(b)))
}

var (
	internalTypesMu sync.Mutex
	internalTypes   = map[reflect.Type]reflect.Type{}
	marshalerType   = reflect.TypeFor[json.Marshaler]()
)

// internalType is t with its struct fields untagged, recursively; types
// that marshal themselves (quantities, times) are kept.
func internalType(t reflect.Type) reflect.Type {
	if t.Implements(marshalerType) || reflect.PointerTo(t).Implements(marshalerType) {
		return t
	}
	switch t.Kind() {
	case reflect.Pointer:
		return reflect.PointerTo(internalType(t.Elem()))
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return t
		}
		return reflect.SliceOf(internalType(t.Elem()))
	case reflect.Map:
		return reflect.MapOf(t.Key(), internalType(t.Elem()))
	case reflect.Struct:
	default:
		return t
	}
	internalTypesMu.Lock()
	if it, ok := internalTypes[t]; ok {
		internalTypesMu.Unlock()
		return it
	}
	internalTypesMu.Unlock()
	var fields []reflect.StructField
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		fields = append(fields, reflect.StructField{Name: f.Name, Type: internalType(f.Type), Anonymous: f.Anonymous})
	}
	it := reflect.StructOf(fields)
	internalTypesMu.Lock()
	internalTypes[t] = it
	internalTypesMu.Unlock()
	return it
}

// internalLooking copies v into its internal-looking type.
func internalLooking(v reflect.Value) any {
	out := reflect.New(internalType(v.Type())).Elem()
	copyInto(out, v)
	return out.Interface()
}

func copyInto(dst, src reflect.Value) {
	if dst.Type() == src.Type() {
		dst.Set(src)
		return
	}
	switch src.Kind() {
	case reflect.Pointer:
		if src.IsNil() {
			return
		}
		p := reflect.New(dst.Type().Elem())
		copyInto(p.Elem(), src.Elem())
		dst.Set(p)
	case reflect.Slice:
		if src.IsNil() {
			return
		}
		s := reflect.MakeSlice(dst.Type(), src.Len(), src.Len())
		for i := 0; i < src.Len(); i++ {
			copyInto(s.Index(i), src.Index(i))
		}
		dst.Set(s)
	case reflect.Map:
		if src.IsNil() {
			return
		}
		m := reflect.MakeMapWithSize(dst.Type(), src.Len())
		for it := src.MapRange(); it.Next(); {
			e := reflect.New(dst.Type().Elem()).Elem()
			copyInto(e, it.Value())
			m.SetMapIndex(it.Key(), e)
		}
		dst.Set(m)
	case reflect.Struct:
		j := 0
		for i := 0; i < src.NumField(); i++ {
			if !src.Type().Field(i).IsExported() {
				continue
			}
			copyInto(dst.Field(j), src.Field(i))
			j++
		}
	}
}
