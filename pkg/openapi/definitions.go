package openapi

import (
	"fmt"
	"reflect"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// Definitions returns the OpenAPI v3 definitions of the Go types of objs
// and of every type they refer to, by definition name: the models
// server-side apply reads (managedfields.NewTypeConverter). Each type the
// scheme registers carries an x-kubernetes-group-version-kind with all its
// kinds, not only those of one group version as in the per group version
// documents: the type converter finds the type of an object by its kind.
// The list and map markers (x-kubernetes-list-type, -list-map-keys,
// -map-type, and the patch strategies older types have instead) say how
// apply merges lists and maps.
//
// The definitions are the process's cached ones, each copied once with
// its kinds: the caller may keep them but must not modify them.
func Definitions(s *runtime.Scheme, objs ...runtime.Object) (map[string]*spec.Schema, error) {
	roots := make([]reflect.Type, 0, len(objs))
	for _, obj := range objs {
		t := reflect.TypeOf(obj)
		if t == nil || t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
			return nil, fmt.Errorf("%T is not a pointer to a struct", obj)
		}
		roots = append(roots, t.Elem())
	}
	defs, err := v3Definitions.closure(roots)
	if err != nil {
		return nil, err
	}
	kinds := newKindIndex(s)
	out := make(map[string]*spec.Schema, len(defs))
	for name, d := range defs {
		schema := withKinds(d, kinds[d.typ])
		out[name] = &schema
	}
	return out, nil
}
