package schemavalidation

import (
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/apiextensions/schema/internal/schematest"
)

func TestValidateStructural(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		want   []string
	}{
		{
			name:   "valid",
			schema: `{type: object, properties: {spec: {type: object, properties: {replicas: {type: integer}}}}}`,
			want:   nil,
		},
		{
			name:   "missing type of field",
			schema: `{type: object, properties: {spec: {properties: {a: {type: string}}}}}`,
			want: []string{
				"openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields",
			},
		},
		{
			name:   "missing type of items",
			schema: `{type: object, properties: {list: {type: array, items: {}}}}`,
			want: []string{
				"openAPIV3Schema.properties[list].items.type: Required value: must not be empty for specified array items",
			},
		},
		{
			name:   "array without items",
			schema: `{type: object, properties: {list: {type: array}}}`,
			want: []string{
				"openAPIV3Schema.properties[list].items: Required value: must be specified",
			},
		},
		{
			name:   "root not object",
			schema: `{type: string}`,
			want: []string{
				"openAPIV3Schema.type: Invalid value: \"string\": must be object at the root",
			},
		},
		{
			name:   "root without type",
			schema: `{properties: {a: {type: string}}}`,
			want: []string{
				"openAPIV3Schema.type: Required value: must not be empty at the root",
			},
		},
		{
			name:   "root additionalProperties",
			schema: `{type: object, additionalProperties: {type: string}}`,
			want: []string{
				"openAPIV3Schema.additionalProperties: Forbidden: must not be used at the root",
			},
		},
		{
			name:   "int-or-string without type",
			schema: `{type: object, properties: {port: {x-kubernetes-int-or-string: true}}}`,
			want:   nil,
		},
		{
			name: "int-or-string anyOf pattern",
			schema: `
			type: object
			properties: {port: {x-kubernetes-int-or-string: true, anyOf: [{type: integer}, {type: string}]}}
			`,
			want: nil,
		},
		{
			name: "int-or-string allOf pattern",
			schema: `
			type: object
			properties:
			  port:
			    x-kubernetes-int-or-string: true
			    allOf: [{anyOf: [{type: integer}, {type: string}]}, {pattern: "^a"}]
			`,
			want: nil,
		},
		{
			name: "int-or-string with preserve and embedded",
			schema: `
			type: object
			properties:
			  port:
			    type: object
			    x-kubernetes-int-or-string: true
			    x-kubernetes-preserve-unknown-fields: true
			    x-kubernetes-embedded-resource: true
			`,
			want: []string{
				"openAPIV3Schema.properties[port].x-kubernetes-embedded-resource: Invalid value: true: must be false if x-kubernetes-int-or-string is true",
				"openAPIV3Schema.properties[port].x-kubernetes-preserve-unknown-fields: Invalid value: true: must be false if x-kubernetes-int-or-string is true",
			},
		},
		{
			name: "nested generic fields",
			schema: `
			type: object
			properties:
			  a:
			    type: string
			    anyOf: [{type: string, description: d, title: t, default: x, nullable: true, x-kubernetes-list-type: atomic, x-kubernetes-map-type: atomic, x-kubernetes-list-map-keys: [a], x-kubernetes-preserve-unknown-fields: true, x-kubernetes-embedded-resource: true, x-kubernetes-int-or-string: true, x-kubernetes-validations: [{rule: "true"}]}]
			`,
			want: []string{
				"openAPIV3Schema.properties[a].anyOf[0].default: Forbidden: must be undefined to be structural",
				"openAPIV3Schema.properties[a].anyOf[0].description: Forbidden: must be empty to be structural",
				"openAPIV3Schema.properties[a].anyOf[0].nullable: Forbidden: must be false to be structural",
				"openAPIV3Schema.properties[a].anyOf[0].title: Forbidden: must be empty to be structural",
				"openAPIV3Schema.properties[a].anyOf[0].type: Forbidden: must be empty to be structural",
				"openAPIV3Schema.properties[a].anyOf[0].x-kubernetes-embedded-resource: Forbidden: must be false to be structural",
				"openAPIV3Schema.properties[a].anyOf[0].x-kubernetes-int-or-string: Forbidden: must be false to be structural",
				"openAPIV3Schema.properties[a].anyOf[0].x-kubernetes-list-map-keys: Forbidden: must be empty to be structural",
				"openAPIV3Schema.properties[a].anyOf[0].x-kubernetes-list-type: Forbidden: must be undefined to be structural",
				"openAPIV3Schema.properties[a].anyOf[0].x-kubernetes-map-type: Forbidden: must be undefined to be structural",
				"openAPIV3Schema.properties[a].anyOf[0].x-kubernetes-preserve-unknown-fields: Forbidden: must be false to be structural",
				"openAPIV3Schema.properties[a].anyOf[0].x-kubernetes-validations: Forbidden: must be empty to be structural",
			},
		},
		{
			name: "nested additionalProperties",
			schema: `
			type: object
			properties:
			  a:
			    type: object
			    additionalProperties: {type: string}
			    allOf: [{additionalProperties: {type: string}}, {additionalProperties: true}, {additionalProperties: false}]
			`,
			want: []string{
				"openAPIV3Schema.properties[a].allOf[0].additionalProperties: Forbidden: must be undefined to be structural",
				"openAPIV3Schema.properties[a].allOf[1].additionalProperties: Forbidden: must be undefined to be structural",
			},
		},
		{
			name:   "nested metadata",
			schema: `{type: object, properties: {metadata: {type: object}}, allOf: [{properties: {metadata: {}}}]}`,
			want: []string{
				"openAPIV3Schema.allOf[0].properties[metadata]: Forbidden: must not be specified in a nested context",
			},
		},
		{
			name: "nested properties not specified",
			schema: `
			type: object
			properties: {spec: {type: object}}
			anyOf: [{properties: {spec: {properties: {foo: {}}}, status: {}}}, {items: {}}]
			`,
			want: []string{
				"openAPIV3Schema.items: Required value: because it is defined in openAPIV3Schema.anyOf[1].items",
				"openAPIV3Schema.properties[spec].properties[foo]: Required value: because it is defined in openAPIV3Schema.anyOf[0].properties[spec].properties[foo]",
				"openAPIV3Schema.properties[status]: Required value: because it is defined in openAPIV3Schema.anyOf[0].properties[status]",
			},
		},
		{
			name:   "nested properties in a field are not checked",
			schema: `{type: object, properties: {spec: {type: object, anyOf: [{properties: {foo: {}}}]}}}`,
			want:   nil,
		},
		{
			name: "metadata may restrict name",
			schema: `
			type: object
			properties:
			  metadata:
			    type: object
			    properties: {name: {type: string, maxLength: 10}, generateName: {type: string}}
			`,
			want: nil,
		},
		{
			name: "metadata with other fields",
			schema: `
			type: object
			properties: {metadata: {type: object, properties: {name: {type: string}, labels: {type: object}}}}
			`,
			want: []string{
				"openAPIV3Schema.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified",
			},
		},
		{
			name:   "metadata with description",
			schema: `{type: object, properties: {metadata: {type: object, description: "the metadata"}}}`,
			want: []string{
				"openAPIV3Schema.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified",
			},
		},
		{
			name:   "metadata not object",
			schema: `{type: object, properties: {metadata: {type: string}, kind: {type: integer}, apiVersion: {type: object}}}`,
			want: []string{
				"openAPIV3Schema.properties[apiVersion].type: Invalid value: \"object\": must be string",
				"openAPIV3Schema.properties[kind].type: Invalid value: \"integer\": must be string",
				"openAPIV3Schema.properties[metadata].type: Invalid value: \"string\": must be object",
			},
		},
		{
			name: "embedded resource not object",
			schema: `
			type: object
			properties:
			  e:
			    type: string
			    x-kubernetes-embedded-resource: true
			    x-kubernetes-preserve-unknown-fields: true
			  f: {x-kubernetes-embedded-resource: true, x-kubernetes-preserve-unknown-fields: true}
			`,
			want: []string{
				"openAPIV3Schema.properties[e].type: Invalid value: \"string\": must be object if x-kubernetes-embedded-resource is true",
				"openAPIV3Schema.properties[f].type: Required value: must be object if x-kubernetes-embedded-resource is true",
			},
		},
		{
			name:   "embedded resource without properties",
			schema: `{type: object, properties: {e: {type: object, x-kubernetes-embedded-resource: true}}}`,
			want: []string{
				"openAPIV3Schema.properties[e].properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields",
			},
		},
		{
			name: "embedded resource with additionalProperties",
			schema: `
			type: object
			properties:
			  e: {type: object, x-kubernetes-embedded-resource: true, additionalProperties: {type: string}}
			`,
			want: []string{
				"openAPIV3Schema.properties[e].additionalProperties: Forbidden: must not be used if x-kubernetes-embedded-resource is set",
				"openAPIV3Schema.properties[e].properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields",
			},
		},
		{
			name: "embedded resource metadata",
			schema: `
			type: object
			properties:
			  e:
			    type: object
			    x-kubernetes-embedded-resource: true
			    properties:
			      metadata: {type: object, properties: {labels: {type: object}}}
			      kind: {type: boolean}
			`,
			want: []string{
				"openAPIV3Schema.properties[e].properties[kind].type: Invalid value: \"boolean\": must be string",
			},
		},
		{
			name:   "bad pattern",
			schema: `{type: object, properties: {a: {type: string, pattern: "("}}}`,
			want: []string{
				"openAPIV3Schema.properties[a].pattern: Invalid value: \"(\": must be a valid regular expression, but isn't: error parsing regexp: missing closing ): `(`",
			},
		},
		{
			name:   "bad nested pattern",
			schema: `{type: object, properties: {a: {type: string, allOf: [{pattern: "(["}]}}}`,
			want: []string{
				"openAPIV3Schema.properties[a].allOf[0].pattern: Invalid value: \"([\": must be a valid regular expression, but isn't: error parsing regexp: missing closing ]: `[`",
			},
		},
		{
			name:   "items array",
			schema: `{type: object, properties: {a: {type: array, items: [{type: string}]}}}`,
			want: []string{
				"openAPIV3Schema: Invalid value: \"\": OpenAPIV3Schema 'items' must be a schema, but is an array",
			},
		},
		{
			name:   "$ref",
			schema: `{type: object, properties: {a: {"$ref": "#/definitions/a"}}}`,
			want: []string{
				"openAPIV3Schema: Invalid value: \"\": OpenAPIV3Schema '$ref' is not supported",
			},
		},
		{
			name:   "preserve false",
			schema: `{type: object, x-kubernetes-preserve-unknown-fields: false}`,
			want: []string{
				"openAPIV3Schema: Invalid value: \"\": internal error: 'x-kubernetes-preserve-unknown-fields' must be true or undefined",
			},
		},
		{
			name:   "anyOf with type but no int-or-string",
			schema: `{type: object, properties: {a: {anyOf: [{type: integer}, {type: string}]}}}`,
			want: []string{
				"openAPIV3Schema.properties[a].type: Required value: must not be empty for specified object fields",
			},
		},
		{
			name: "completeness of items",
			schema: `
			type: object
			properties: {a: {type: array, items: {type: string}}}
			oneOf: [{properties: {a: {items: {pattern: "^a"}}}}, {properties: {b: {items: {}}}}]
			`,
			want: []string{
				"openAPIV3Schema.properties[b]: Required value: because it is defined in openAPIV3Schema.oneOf[1].properties[b]",
			},
		},
		{
			name:   "not with type",
			schema: `{type: object, not: {type: string, properties: {a: {}}}}`,
			want: []string{
				"openAPIV3Schema.not.type: Forbidden: must be empty to be structural",
				"openAPIV3Schema.properties[a]: Required value: because it is defined in openAPIV3Schema.not.properties[a]",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ValidateStructural(field.NewPath("openAPIV3Schema"), schematest.Schema(t, tt.schema))
			schematest.DiffStrings(t, tt.want, schematest.ErrorStrings(got))
		})
	}
}
