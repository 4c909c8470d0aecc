package schema

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestNewStructural(t *testing.T) {
	s := structuralFromYAML(t, `
		type: object
		properties:
		  spec:
		    type: object
		    nullable: true
		    default: {replicas: 1, ratio: 0.5, tags: [a]}
		    properties:
		      replicas: {type: integer, minimum: 0, enum: [1, 2]}
		      ratio: {type: number}
		      tags: {type: array, x-kubernetes-list-type: set, items: {type: string}}
		      labels: {type: object, additionalProperties: {type: string}, x-kubernetes-map-type: granular}
		      closed: {type: object, additionalProperties: false}
		      open: {type: object, additionalProperties: true}
		      nothing: {type: string, default: null}
		      free: {x-kubernetes-preserve-unknown-fields: true}
		    allOf:
		    - properties: {replicas: {maximum: 5}}
		      additionalProperties: false
		`)

	spec := s.Properties["spec"]
	if !spec.Nullable || spec.Type != "object" {
		t.Errorf("spec: got type %q nullable %v", spec.Type, spec.Nullable)
	}
	// Defaults and enums are decoded as the server decodes objects: integral
	// numbers are int64.
	wantDefault := map[string]interface{}{"replicas": int64(1), "ratio": 0.5, "tags": []interface{}{"a"}}
	if diff := cmp.Diff(wantDefault, spec.Default); diff != "" {
		t.Errorf("default (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]interface{}{int64(1), int64(2)}, spec.Properties["replicas"].Enum); diff != "" {
		t.Errorf("enum (-want +got):\n%s", diff)
	}
	if got := spec.Properties["replicas"].Minimum; got == nil || *got != 0 {
		t.Errorf("minimum: got %v", got)
	}
	if got := spec.Properties["tags"]; got.Items.Type != "string" || *got.XListType != "set" {
		t.Errorf("tags: got %+v", got)
	}
	if got := spec.Properties["labels"].AdditionalProperties; got == nil || !got.Allows || got.Schema.Type != "string" {
		t.Errorf("labels: got %+v", got)
	}
	if got := spec.Properties["closed"].AdditionalProperties; got == nil || got.Allows || got.Schema != nil {
		t.Errorf("closed: got %+v", got)
	}
	if got := spec.Properties["open"].AdditionalProperties; got == nil || !got.Allows || got.Schema != nil {
		t.Errorf("open: got %+v", got)
	}
	// A null default is no default.
	if got := spec.Properties["nothing"].Default; got != nil {
		t.Errorf("null default: got %v", got)
	}
	if !spec.Properties["free"].XPreserveUnknownFields {
		t.Errorf("free: x-kubernetes-preserve-unknown-fields lost")
	}
	// Below a junctor additionalProperties: false is forgotten, like
	// kube-apiserver does; the value validator still enforces it.
	if len(spec.AllOf) != 1 || spec.AllOf[0].AdditionalProperties != nil || *spec.AllOf[0].Properties["replicas"].Maximum != 5 {
		t.Errorf("allOf: got %+v", spec.AllOf)
	}
}

func TestNewStructuralErrors(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		want   string
	}{
		{"items array", `{type: array, items: [{type: string}]}`, "OpenAPIV3Schema 'items' must be a schema, but is an array"},
		{"id", `{type: object, properties: {a: {type: string, id: x}}}`, "OpenAPIV3Schema 'id' is not supported"},
		{"$schema", `{type: object, $schema: "http://json-schema.org/schema#"}`, "OpenAPIV3Schema 'schema' is not supported"},
		{"$ref", `{type: object, allOf: [{$ref: "#/a"}]}`, "OpenAPIV3Schema '$ref' is not supported"},
		{"patternProperties", `{type: object, patternProperties: {a: {}}}`, "OpenAPIV3Schema 'patternProperties' is not supported"},
		{"dependencies", `{type: object, dependencies: {a: [b]}}`, "OpenAPIV3Schema 'dependencies' is not supported"},
		{"additionalItems", `{type: array, items: {type: string}, additionalItems: false}`, "OpenAPIV3Schema 'additionalItems' is not supported"},
		{"definitions", `{type: object, definitions: {a: {}}}`, "OpenAPIV3Schema 'definitions' is not supported"},
		{"preserve false", `{type: object, x-kubernetes-preserve-unknown-fields: false}`, "internal error: 'x-kubernetes-preserve-unknown-fields' must be true or undefined"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewStructural(schemaFromYAML(t, tt.schema))
			if err == nil || err.Error() != tt.want {
				t.Errorf("got error %v, want %q", err, tt.want)
			}
		})
	}
}

func TestNewStructuralNil(t *testing.T) {
	s, err := NewStructural(nil)
	if s != nil || err != nil {
		t.Errorf("got %v, %v", s, err)
	}
}

func TestDeepCopy(t *testing.T) {
	s := structuralFromYAML(t, `
		type: object
		properties:
		  a: {type: object, default: {x: [1]}, x-kubernetes-list-map-keys: [k], x-kubernetes-validations: [{rule: "true"}], required: [x], enum: [{x: [1]}], maxLength: 3}
		  m: {type: object, additionalProperties: {type: string}}
		allOf: [{properties: {a: {maxLength: 2}}}]
		`)
	c := s.DeepCopy()
	if diff := cmp.Diff(s, c); diff != "" {
		t.Fatalf("copy differs (-orig +copy):\n%s", diff)
	}
	// Mutating the copy leaves the original alone.
	a := c.Properties["a"]
	a.Default.(map[string]interface{})["x"].([]interface{})[0] = int64(2)
	a.XListMapKeys[0] = "changed"
	a.XValidations[0].Rule = "false"
	a.Required[0] = "changed"
	a.Enum[0].(map[string]interface{})["x"] = nil
	*a.MaxLength = 9
	c.Properties["m"].AdditionalProperties.Schema.Type = "integer"
	*c.AllOf[0].Properties["a"].MaxLength = 9
	c.Properties["new"] = &Structural{}
	if diff := cmp.Diff(structuralFromYAML(t, `
		type: object
		properties:
		  a: {type: object, default: {x: [1]}, x-kubernetes-list-map-keys: [k], x-kubernetes-validations: [{rule: "true"}], required: [x], enum: [{x: [1]}], maxLength: 3}
		  m: {type: object, additionalProperties: {type: string}}
		allOf: [{properties: {a: {maxLength: 2}}}]
		`), s); diff != "" {
		t.Errorf("original changed (-want +got):\n%s", diff)
	}
}
