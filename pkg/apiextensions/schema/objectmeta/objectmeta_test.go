package objectmeta

import (
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/apiextensions/schema/internal/schematest"
)

func TestCoerce(t *testing.T) {
	tests := []struct {
		name        string
		root        bool
		dropInvalid bool
		schema      string
		object      string
		wantErr     string
		wantUnknown []string
		wantObject  string
	}{
		{
			name: "embedded metadata is normalised",
			schema: `
			type: object
			properties:
			  e:
			    type: object
			    x-kubernetes-embedded-resource: true
			    x-kubernetes-preserve-unknown-fields: true
			`,
			object:  `{e: {apiVersion: v1, kind: Foo, metadata: {name: a, bogus: 1, creationTimestamp: null, labels: {a: b}}}}`,
			wantErr: "",
			wantUnknown: []string{
				"e.metadata.bogus",
			},
			wantObject: `{"e":{"apiVersion":"v1","kind":"Foo","metadata":{"labels":{"a":"b"},"name":"a"}}}`,
		},
		{
			name:        "embedded metadata is normalised, dropping invalid fields",
			dropInvalid: true,
			schema: `
			type: object
			properties:
			  e:
			    type: object
			    x-kubernetes-embedded-resource: true
			    x-kubernetes-preserve-unknown-fields: true
			`,
			object:  `{e: {apiVersion: v1, kind: Foo, metadata: {name: a, bogus: 1, creationTimestamp: null, labels: {a: b}}}}`,
			wantErr: "",
			wantUnknown: []string{
				"e.metadata.bogus",
			},
			wantObject: `{"e":{"apiVersion":"v1","kind":"Foo","metadata":{"labels":{"a":"b"},"name":"a"}}}`,
		},
		{
			name: "malformed apiVersion",
			schema: `
			type: object
			properties:
			  e:
			    type: object
			    x-kubernetes-embedded-resource: true
			    x-kubernetes-preserve-unknown-fields: true
			`,
			object:      `{e: {apiVersion: 1, kind: Foo}}`,
			wantErr:     "e.apiVersion: Invalid value: 1: must be a string",
			wantUnknown: nil,
			wantObject:  `{"e":{"apiVersion":1,"kind":"Foo"}}`,
		},
		{
			name:        "malformed apiVersion, dropping invalid fields",
			dropInvalid: true,
			schema: `
			type: object
			properties:
			  e:
			    type: object
			    x-kubernetes-embedded-resource: true
			    x-kubernetes-preserve-unknown-fields: true
			`,
			object:      `{e: {apiVersion: 1, kind: Foo}}`,
			wantErr:     "",
			wantUnknown: nil,
			wantObject:  `{"e":{"kind":"Foo"}}`,
		},
		{
			name: "malformed metadata",
			schema: `
			type: object
			properties:
			  e:
			    type: object
			    x-kubernetes-embedded-resource: true
			    x-kubernetes-preserve-unknown-fields: true
			`,
			object:      `{e: {apiVersion: v1, kind: Foo, metadata: {name: 1, labels: {a: b}, bogus: 2}}}`,
			wantErr:     "e.metadata: Invalid value: {\"bogus\":2,\"labels\":{\"a\":\"b\"},\"name\":1}: json: cannot unmarshal number into Go struct field ObjectMeta.name of type string",
			wantUnknown: nil,
			wantObject:  `{"e":{"apiVersion":"v1","kind":"Foo","metadata":{"bogus":2,"labels":{"a":"b"},"name":1}}}`,
		},
		{
			name:        "malformed metadata, dropping invalid fields",
			dropInvalid: true,
			schema: `
			type: object
			properties:
			  e:
			    type: object
			    x-kubernetes-embedded-resource: true
			    x-kubernetes-preserve-unknown-fields: true
			`,
			object:  `{e: {apiVersion: v1, kind: Foo, metadata: {name: 1, labels: {a: b}, bogus: 2}}}`,
			wantErr: "",
			wantUnknown: []string{
				"e.metadata.bogus",
			},
			wantObject: `{"e":{"apiVersion":"v1","kind":"Foo","metadata":{"labels":{"a":"b"}}}}`,
		},
		{
			name:    "resource root",
			root:    true,
			schema:  `{type: object, properties: {spec: {type: object}}}`,
			object:  `{apiVersion: v1, kind: Foo, metadata: {name: a, bogus: 1, creationTimestamp: "2020-01-02T03:04:05Z"}}`,
			wantErr: "",
			wantUnknown: []string{
				"metadata.bogus",
			},
			wantObject: `{"apiVersion":"v1","kind":"Foo","metadata":{"creationTimestamp":"2020-01-02T03:04:05Z","name":"a"}}`,
		},
		{
			name:        "resource root, dropping invalid fields",
			root:        true,
			dropInvalid: true,
			schema:      `{type: object, properties: {spec: {type: object}}}`,
			object:      `{apiVersion: v1, kind: Foo, metadata: {name: a, bogus: 1, creationTimestamp: "2020-01-02T03:04:05Z"}}`,
			wantErr:     "",
			wantUnknown: []string{
				"metadata.bogus",
			},
			wantObject: `{"apiVersion":"v1","kind":"Foo","metadata":{"creationTimestamp":"2020-01-02T03:04:05Z","name":"a"}}`,
		},
		{
			name: "metadata of a list of embedded resources",
			schema: `
			type: object
			properties:
			  l:
			    type: array
			    items:
			      type: object
			      x-kubernetes-embedded-resource: true
			      x-kubernetes-preserve-unknown-fields: true
			`,
			object: `
			l: [{apiVersion: v1, kind: A, metadata: {name: a, x: 1}}, {apiVersion: v1, kind: B, metadata: {name: b, annotations: {k: v}, w: 2}}]
			`,
			wantErr: "",
			wantUnknown: []string{
				"l[0].metadata.x",
				"l[1].metadata.w",
			},
			wantObject: `{"l":[{"apiVersion":"v1","kind":"A","metadata":{"name":"a"}},{"apiVersion":"v1","kind":"B","metadata":{"annotations":{"k":"v"},"name":"b"}}]}`,
		},
		{
			name:        "metadata of a list of embedded resources, dropping invalid fields",
			dropInvalid: true,
			schema: `
			type: object
			properties:
			  l:
			    type: array
			    items:
			      type: object
			      x-kubernetes-embedded-resource: true
			      x-kubernetes-preserve-unknown-fields: true
			`,
			object: `
			l: [{apiVersion: v1, kind: A, metadata: {name: a, x: 1}}, {apiVersion: v1, kind: B, metadata: {name: b, annotations: {k: v}, w: 2}}]
			`,
			wantErr: "",
			wantUnknown: []string{
				"l[0].metadata.x",
				"l[1].metadata.w",
			},
			wantObject: `{"l":[{"apiVersion":"v1","kind":"A","metadata":{"name":"a"}},{"apiVersion":"v1","kind":"B","metadata":{"annotations":{"k":"v"},"name":"b"}}]}`,
		},
		{
			name: "metadata that is not an object",
			schema: `
			type: object
			properties:
			  e:
			    type: object
			    x-kubernetes-embedded-resource: true
			    x-kubernetes-preserve-unknown-fields: true
			`,
			object:      `{e: {apiVersion: v1, kind: Foo, metadata: nope}}`,
			wantErr:     "e.metadata: Invalid value: \"nope\": json: cannot unmarshal string into Go value of type v1.ObjectMeta",
			wantUnknown: nil,
			wantObject:  `{"e":{"apiVersion":"v1","kind":"Foo","metadata":"nope"}}`,
		},
		{
			name:        "metadata that is not an object, dropping invalid fields",
			dropInvalid: true,
			schema: `
			type: object
			properties:
			  e:
			    type: object
			    x-kubernetes-embedded-resource: true
			    x-kubernetes-preserve-unknown-fields: true
			`,
			object:      `{e: {apiVersion: v1, kind: Foo, metadata: nope}}`,
			wantErr:     "",
			wantUnknown: nil,
			wantObject:  `{"e":{"apiVersion":"v1","kind":"Foo","metadata":"nope"}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj := schematest.Object(t, tt.object)
			err, unknown := Coerce(nil, obj, schematest.Structural(t, tt.schema), tt.root, CoerceOptions{DropInvalidFields: tt.dropInvalid, ReturnUnknownFieldPaths: true})
			gotErr := ""
			if err != nil {
				gotErr = err.Error()
			}
			if gotErr != tt.wantErr {
				t.Errorf("got error %q, want %q", gotErr, tt.wantErr)
			}
			if err == nil {
				schematest.DiffStrings(t, tt.wantUnknown, unknown)
			}
			if got := schematest.JSON(t, obj); got != tt.wantObject {
				t.Errorf("got object %s, want %s", got, tt.wantObject)
			}
		})
	}
}

func TestGetObjectMeta(t *testing.T) {
	obj := schematest.Object(t, `{metadata: {name: a, labels: {k: v}, bogus: 1, generation: "x"}}`).(map[string]interface{})

	if _, _, _, err := GetObjectMeta(obj, ObjectMetaOptions{}); err == nil {
		t.Errorf("expected an error for a malformed generation")
	}
	meta, found, unknown, err := GetObjectMeta(obj, ObjectMetaOptions{DropMalformedFields: true, ReturnUnknownFieldPaths: true, ParentPath: field.NewPath("spec", "template")})
	if err != nil || !found {
		t.Fatalf("got %v, %v", found, err)
	}
	if got := fmt.Sprintf("%s %v %d", meta.Name, meta.Labels, meta.Generation); got != "a map[k:v] 0" {
		t.Errorf("got %s", got)
	}
	schematest.DiffStrings(t, []string{"spec.template.metadata.bogus"}, unknown)

	if _, found, _, _ := GetObjectMeta(map[string]interface{}{}, ObjectMetaOptions{}); found {
		t.Errorf("found metadata where there is none")
	}
}
