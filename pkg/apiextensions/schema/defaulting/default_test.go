package defaulting

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kapi-dev/kapi/pkg/apiextensions/schema"
	"github.com/kapi-dev/kapi/pkg/apiextensions/schema/internal/schematest"
	"github.com/kapi-dev/kapi/pkg/apiextensions/schema/pruning"
)

// TestDefault runs the two decoding steps: nulls without a default are
// dropped, then defaults are applied.
func TestDefault(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		object string
		want   string
	}{
		{
			name: "missing fields get defaults",
			schema: `
			type: object
			properties:
			  spec:
			    type: object
			    properties:
			      size: {type: integer, default: 3}
			      color: {type: string, default: blue}
			      name: {type: string}
			      o:
			        type: object
			        default: {a: 1}
			        properties: {a: {type: integer}, b: {type: integer, default: 2}}
			`,
			object: `{spec: {name: w1}}`,
			want:   `{"spec":{"color":"blue","name":"w1","o":{"a":1,"b":2},"size":3}}`,
		},
		{
			name: "null non-nullable fields get defaults, nullable nulls stay",
			schema: `
			type: object
			properties:
			  spec:
			    type: object
			    properties:
			      a: {type: string, default: x}
			      b: {type: string, default: yy, nullable: true}
			      c: {type: string}
			      d: {type: string, nullable: true}
			`,
			object: `{spec: {a: null, b: null, c: null, d: null}}`,
			want:   `{"spec":{"a":"x","b":null,"d":null}}`,
		},
		{
			name: "items and additionalProperties",
			schema: `
			type: object
			properties:
			  l: {type: array, items: {type: object, default: {}, properties: {a: {type: string, default: x}}}}
			  m:
			    type: object
			    additionalProperties:
			      type: object
			      default: {z: 1}
			      properties: {a: {type: string, default: x}}
			  nn: {type: array, items: {type: string}}
			`,
			object: `{l: [{}, null, {a: yy}], m: {k: null, j: {}}, nn: [null, a]}`,
			want:   `{"l":[{"a":"x"},{"a":"x"},{"a":"yy"}],"m":{"j":{"a":"x"},"k":{"a":"x","z":1}},"nn":[null,"a"]}`,
		},
		{
			name:   "no default at all for a missing object",
			schema: `{type: object, properties: {spec: {type: object, properties: {a: {type: string, default: x}}}}}`,
			object: `{}`,
			want:   `{}`,
		},
		{
			name:   "unknown fields are not defaulted",
			schema: `{type: object, properties: {spec: {type: object, properties: {a: {type: string, default: x}}}}}`,
			object: `{other: {a: null}}`,
			want:   `{"other":{"a":null}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := schematest.Structural(t, tt.schema)
			obj := schematest.Object(t, tt.object)
			PruneNonNullableNullsWithoutDefaults(obj, s)
			Default(obj, s)
			if got := schematest.JSON(t, obj); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}

func TestDefaultCopiesDefaultValues(t *testing.T) {
	s := schematest.Structural(t, `{type: object, properties: {a: {type: object, default: {l: [1]}}}}`)
	first := schematest.Object(t, `{}`)
	Default(first, s)
	first.(map[string]interface{})["a"].(map[string]interface{})["l"].([]interface{})[0] = int64(2)

	second := schematest.Object(t, `{}`)
	Default(second, s)
	if got := schematest.JSON(t, second); got != `{"a":{"l":[1]}}` {
		t.Errorf("the schema's default was changed through an object: %s", got)
	}
}

// TestDefaultMatchesKubeAPIServer replays the defaulting recorded from a
// real kube-apiserver 1.37.1 (../shared/reference).
func TestDefaultMatchesKubeAPIServer(t *testing.T) {
	s := schematest.Structural(t, `{type: object, properties: {spec: {type: object, properties: {size: {type: integer, default: 3}, color: {type: string, default: blue}, name: {type: string}}}, status: {type: object, properties: {ready: {type: boolean}}}}}`)
	obj := schematest.Object(t, `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"widget1","namespace":"defaulting"},"spec":{"name":"w1"}}`)
	pruning.Prune(obj, s, true)
	PruneNonNullableNullsWithoutDefaults(obj, s)
	Default(obj, s)
	want := schematest.Object(t, `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"widget1","namespace":"defaulting"},"spec":{"color":"blue","name":"w1","size":3}}`)
	if diff := cmp.Diff(want, obj); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestPruneDefaults(t *testing.T) {
	s := schematest.Structural(t, `
		type: object
		properties:
		  spec:
		    type: object
		    default: {a: x, unknown: 1}
		    properties:
		      a: {type: string}
		      l: {type: array, items: {type: object, properties: {b: {type: string}}, default: {b: x, c: z}}}
		  e:
		    type: object
		    x-kubernetes-embedded-resource: true
		    properties: {spec: {type: object}}
		    default: {apiVersion: v1, kind: K, metadata: {name: a, bogus: 1}, spec: {}, extra: 1}
		`)
	if err := PruneDefaults(s); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		"spec":         `{"a":"x"}`,
		"spec.l.items": `{"b":"x"}`,
		"e":            `{"apiVersion":"v1","kind":"K","metadata":{"name":"a"},"spec":{}}`,
	} {
		var n *schema.Structural
		switch path {
		case "spec":
			n = s.Properties["spec"]
		case "spec.l.items":
			n = s.Properties["spec"].Properties["l"].Items
		case "e":
			n = s.Properties["e"]
		}
		if got := schematest.JSON(t, n.Default); got != want {
			t.Errorf("%s: got default %s, want %s", path, got, want)
		}
	}
}
