package schemas

import (
	"testing"

	"github.com/google/cel-go/cel"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

func refTo(name string) spec.Schema {
	return spec.Schema{SchemaProps: spec.SchemaProps{Ref: spec.MustCreateRef("#/components/schemas/" + name)}}
}

func wrapped(name string) spec.Schema {
	return spec.Schema{SchemaProps: spec.SchemaProps{AllOf: []spec.Schema{refTo(name)}, Default: map[string]any{}}}
}

func object(props map[string]spec.Schema) *spec.Schema {
	return &spec.Schema{SchemaProps: spec.SchemaProps{Type: spec.StringOrArray{"object"}, Properties: props}}
}

func typed(t string) spec.Schema {
	return spec.Schema{SchemaProps: spec.SchemaProps{Type: spec.StringOrArray{t}}}
}

// References are followed as kube-apiserver follows them: plain or
// wrapped in allOf, a reference back to a schema being resolved is an
// empty object, a reference to nothing is no schema, int-or-string by
// format or extension is dyn, and the root gets apiVersion, kind and
// metadata's name and generateName.
func TestOpenAPIReferences(t *testing.T) {
	defs := map[string]*spec.Schema{
		"Node": object(map[string]spec.Schema{
			"name":     typed("string"),
			"children": {SchemaProps: spec.SchemaProps{Type: spec.StringOrArray{"array"}, Items: &spec.SchemaOrArray{Schema: &spec.Schema{SchemaProps: spec.SchemaProps{AllOf: []spec.Schema{refTo("Node")}}}}}},
		}),
		"Port":  {SchemaProps: spec.SchemaProps{Format: "int-or-string"}},
		"Alias": {SchemaProps: spec.SchemaProps{Ref: spec.MustCreateRef("#/components/schemas/Port")}},
	}
	root := object(map[string]spec.Schema{
		"spec":    wrapped("Node"),
		"port":    refTo("Alias"),
		"size":    {SchemaProps: spec.SchemaProps{}, VendorExtensible: spec.VendorExtensible{Extensions: spec.Extensions{"x-kubernetes-int-or-string": true}}},
		"missing": refTo("Nothing"),
	})
	lookup := func(r string) (*spec.Schema, bool) {
		s, ok := defs[r[len("#/components/schemas/"):]]
		return s, ok
	}
	dt := SchemaDeclType(OpenAPI(root, lookup), true)
	for _, tc := range []struct {
		path []string
		want *cel.Type
	}{
		{[]string{"apiVersion"}, cel.StringType},
		{[]string{"metadata", "generateName"}, cel.StringType},
		{[]string{"spec", "name"}, cel.StringType},
		{[]string{"port"}, cel.DynType},
		{[]string{"size"}, cel.DynType},
	} {
		got := dt
		for _, p := range tc.path {
			got = got.Fields[p]
			if got == nil {
				break
			}
		}
		if got == nil || !got.CEL.IsExactType(tc.want) {
			t.Errorf("%v: %v, want %v", tc.path, got, tc.want)
		}
	}
	if _, ok := dt.Fields["missing"]; ok {
		t.Error("a reference to nothing is typed")
	}
	child := dt.Fields["spec"].Fields["children"]
	if child == nil || child.Elem == nil || !child.Elem.IsObject() || len(child.Elem.Fields) != 0 {
		t.Errorf("a recursive reference: %+v, want a list of objects without fields", child)
	}
}
