package pruning

import (
	"testing"

	"github.com/kapi-dev/kapi/pkg/apiextensions/schema/internal/schematest"
)

func TestPrune(t *testing.T) {
	tests := []struct {
		name       string
		notRoot    bool
		schema     string
		object     string
		wantObject string
		wantPruned []string
	}{
		{
			name: "drops unknown fields",
			schema: `
			type: object
			properties:
			  spec:
			    type: object
			    properties:
			      a: {type: string}
			      l: {type: array, items: {type: object, properties: {x: {type: integer}}}}
			`,
			object: `
			apiVersion: v1
			kind: Foo
			metadata: {name: a, bogus: b}
			spec: {a: x, b: yy, l: [{x: 1, yy: 2}, {z: 3}]}
			status: {c: 1}
			`,
			wantObject: `{"apiVersion":"v1","kind":"Foo","metadata":{"bogus":"b","name":"a"},"spec":{"a":"x","l":[{"x":1},{}]}}`,
			wantPruned: []string{
				"spec.b",
				"spec.l[0].yy",
				"spec.l[1].z",
				"status",
			},
		},
		{
			name:       "not a resource root",
			notRoot:    true,
			schema:     `{type: object, properties: {spec: {type: object}}}`,
			object:     `{apiVersion: v1, kind: Foo, metadata: {name: a}, spec: {a: 1}, other: 2}`,
			wantObject: `{"spec":{}}`,
			wantPruned: []string{
				"other",
				"spec.a",
			},
		},
		{
			name: "preserve unknown fields",
			schema: `
			type: object
			properties:
			  spec:
			    type: object
			    x-kubernetes-preserve-unknown-fields: true
			    properties: {known: {type: object, properties: {a: {type: string}}}}
			`,
			object:     `{spec: {free: {anything: [1, {b: 2}]}, known: {a: x, b: yy}}}`,
			wantObject: `{"spec":{"free":{"anything":[1,{"b":2}]},"known":{"a":"x"}}}`,
			wantPruned: []string{
				"spec.known.b",
			},
		},
		{
			name: "additionalProperties",
			schema: `
			type: object
			properties:
			  m: {type: object, additionalProperties: {type: object, properties: {a: {type: string}}}}
			  t: {type: object, additionalProperties: true}
			  f: {type: object, additionalProperties: false}
			`,
			object:     `{m: {x: {a: yy, b: z}}, t: {k: v, o: {nn: 1}}, f: {k: v, o: {nn: 1}}}`,
			wantObject: `{"f":{"k":"v","o":{}},"m":{"x":{"a":"yy"}},"t":{"k":"v","o":{}}}`,
			wantPruned: []string{
				"f.o.nn",
				"m.x.b",
				"t.o.nn",
			},
		},
		{
			name: "embedded resources keep type and object meta",
			schema: `
			type: object
			properties:
			  e: {type: object, x-kubernetes-embedded-resource: true, properties: {spec: {type: object}}}
			  l:
			    type: array
			    items:
			      type: object
			      x-kubernetes-embedded-resource: true
			      x-kubernetes-preserve-unknown-fields: true
			`,
			object: `
			e: {apiVersion: v1, kind: Foo, metadata: {name: a, bogus: 1}, spec: {x: 1}, extra: 2}
			l: [{apiVersion: v1, x: {yy: 1}}]
			`,
			wantObject: `{"e":{"apiVersion":"v1","kind":"Foo","metadata":{"bogus":1,"name":"a"},"spec":{}},"l":[{"apiVersion":"v1","x":{"yy":1}}]}`,
			wantPruned: []string{
				"e.extra",
				"e.spec.x",
			},
		},
		{
			name: "preserve at root",
			schema: `
			type: object
			x-kubernetes-preserve-unknown-fields: true
			properties: {spec: {type: object, properties: {a: {type: string}}}}
			`,
			object:     `{spec: {a: x, b: yy}, other: {c: 1}}`,
			wantObject: `{"other":{"c":1},"spec":{"a":"x"}}`,
			wantPruned: []string{
				"spec.b",
			},
		},
		{
			name: "nulls are kept by prune",
			schema: `
			type: object
			properties:
			  spec:
			    type: object
			    properties:
			      a: {type: string}
			      nn: {type: string, nullable: true}
			      d: {type: string, default: x}
			`,
			object:     `{spec: {a: null, nn: null, d: null, u: null}}`,
			wantObject: `{"spec":{"a":null,"d":null,"nn":null}}`,
			wantPruned: []string{
				"spec.u",
			},
		},
		{
			name: "lists of lists",
			schema: `
			type: object
			properties:
			  l: {type: array, items: {type: array, items: {type: object, properties: {a: {type: string}}}}}
			`,
			object:     `{l: [[{a: x, b: yy}], [], [{c: 1}]]}`,
			wantObject: `{"l":[[{"a":"x"}],[],[{}]]}`,
			wantPruned: []string{
				"l[0][0].b",
				"l[2][0].c",
			},
		},
		{
			name:       "unknown fields inside metadata-named fields",
			schema:     `{type: object, properties: {spec: {type: object, properties: {a: {type: string}}}}}`,
			object:     `{spec: {metadata: {x: 1}, kind: K, a: b}}`,
			wantObject: `{"spec":{"a":"b"}}`,
			wantPruned: []string{
				"spec.kind",
				"spec.metadata",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj := schematest.Object(t, tt.object)
			pruned := Prune(obj, schematest.Structural(t, tt.schema), !tt.notRoot)
			schematest.DiffStrings(t, tt.wantPruned, pruned)
			if got := schematest.JSON(t, obj); got != tt.wantObject {
				t.Errorf("got object %s, want %s", got, tt.wantObject)
			}
		})
	}
}

func TestPruneWithoutSchema(t *testing.T) {
	obj := schematest.Object(t, `{apiVersion: v1, kind: K, metadata: {name: a}, spec: {a: 1}}`)
	schematest.DiffStrings(t, []string{"spec"}, Prune(obj, nil, true))
	if got := schematest.JSON(t, obj); got != `{"apiVersion":"v1","kind":"K","metadata":{"name":"a"}}` {
		t.Errorf("got %s", got)
	}
}
