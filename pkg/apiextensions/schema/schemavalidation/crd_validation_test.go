package schemavalidation

import (
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/apiextensions/schema"
	"github.com/kapi-dev/kapi/pkg/apiextensions/schema/internal/schematest"
)

// The CRD validation of kube-apiserver reports a schema shared by all
// versions at spec.validation.openAPIV3Schema, which is the path used here.
var crdSchemaPath = field.NewPath("spec", "validation", "openAPIV3Schema")

func TestValidateCustomResourceDefinitionSchema(t *testing.T) {
	tests := []struct {
		name   string
		status bool
		schema string
		want   []string
	}{
		{
			name: "valid with everything",
			schema: `
			type: object
			properties:
			  spec:
			    type: object
			    required: [a]
			    properties:
			      a: {type: string, default: x, enum: [x, yy], maxLength: 3}
			      port: {x-kubernetes-int-or-string: true, anyOf: [{type: integer}, {type: string}]}
			      list:
			        type: array
			        x-kubernetes-list-type: map
			        x-kubernetes-list-map-keys: [name]
			        items: {type: object, required: [name], properties: {name: {type: string}}}
			      set: {type: array, x-kubernetes-list-type: set, items: {type: string}}
			      m: {type: object, x-kubernetes-map-type: atomic, additionalProperties: {type: string}}
			      free: {type: object, x-kubernetes-preserve-unknown-fields: true}
			  status: {type: object}
			`,
			want: nil,
		},
		{
			name:   "invalid type",
			schema: `{type: object, properties: {a: {type: foo}, b: {type: "null"}}}`,
			want: []string{
				"spec.validation.openAPIV3Schema.properties[a].type: Unsupported value: \"foo\": supported values: \"array\", \"boolean\", \"integer\", \"number\", \"object\", \"string\"",
				"spec.validation.openAPIV3Schema.properties[b].type: Unsupported value: \"null\": supported values: \"array\", \"boolean\", \"integer\", \"number\", \"object\", \"string\"",
				"spec.validation.openAPIV3Schema.properties[b].type: Forbidden: type cannot be set to null, use nullable as an alternative",
			},
		},
		{
			name: "unsupported openapi fields",
			schema: `
			type: object
			properties:
			  a:
			    type: object
			    id: x
			    patternProperties: {"^a": {type: string}}
			    additionalItems: false
			    definitions: {d: {type: string}}
			    dependencies: {x: [z]}
			  b: {type: array, items: [{type: string}]}
			  c: {"$ref": "#/definitions/d"}
			`,
			want: []string{
				"spec.validation.openAPIV3Schema.properties[a].id: Forbidden: id is not supported",
				"spec.validation.openAPIV3Schema.properties[a].additionalItems: Forbidden: additionalItems is not supported",
				"spec.validation.openAPIV3Schema.properties[a].patternProperties: Forbidden: patternProperties is not supported",
				"spec.validation.openAPIV3Schema.properties[a].definitions: Forbidden: definitions is not supported",
				"spec.validation.openAPIV3Schema.properties[a].dependencies: Forbidden: dependencies is not supported",
				"spec.validation.openAPIV3Schema.properties[b].items: Forbidden: items must be a schema object and not an array",
				"spec.validation.openAPIV3Schema.properties[c].$ref: Forbidden: $ref is not supported",
			},
		},
		{
			name:   "uniqueItems",
			schema: `{type: object, properties: {a: {type: array, uniqueItems: true, items: {type: string}}}}`,
			want: []string{
				"spec.validation.openAPIV3Schema.properties[a].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic",
			},
		},
		{
			name: "additionalProperties with properties",
			schema: `
			type: object
			properties:
			  a: {type: object, properties: {b: {type: string}}, additionalProperties: {type: string}}
			  c: {type: object, properties: {d: {type: string}}, additionalProperties: false}
			  e: {type: object, properties: {d: {type: string}}, additionalProperties: true}
			`,
			want: []string{
				"spec.validation.openAPIV3Schema.properties[a].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive",
				"spec.validation.openAPIV3Schema.properties[c].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive",
			},
		},
		{
			name:   "root nullable",
			schema: `{type: object, nullable: true}`,
			want: []string{
				"spec.validation.openAPIV3Schema.nullable: Forbidden: nullable cannot be true at the root",
			},
		},
		{
			name:   "status root fields",
			status: true,
			schema: `{type: object, nullable: true, properties: {status: {type: object}}}`,
			want: []string{
				"spec.validation.openAPIV3Schema: Invalid value: {\"ID\":\"\",\"Schema\":\"\",\"Ref\":null,\"Description\":\"\",\"Type\":\"object\",\"Nullable\":true,\"Format\":\"\",\"Title\":\"\",\"Default\":null,\"Maximum\":null,\"ExclusiveMaximum\":false,\"Minimum\":null,\"ExclusiveMinimum\":false,\"MaxLength\":null,\"MinLength\":null,\"Pattern\":\"\",\"MaxItems\":null,\"MinItems\":null,\"UniqueItems\":false,\"MultipleOf\":null,\"Enum\":null,\"MaxProperties\":null,\"MinProperties\":null,\"Required\":null,\"Items\":null,\"AllOf\":null,\"OneOf\":null,\"AnyOf\":null,\"Not\":null,\"Properties\":{\"status\":{\"ID\":\"\",\"Schema\":\"\",\"Ref\":null,\"Description\":\"\",\"Type\":\"object\",\"Nullable\":false,\"Format\":\"\",\"Title\":\"\",\"Default\":null,\"Maximum\":null,\"ExclusiveMaximum\":false,\"Minimum\":null,\"ExclusiveMinimum\":false,\"MaxLength\":null,\"MinLength\":null,\"Pattern\":\"\",\"MaxItems\":null,\"MinItems\":null,\"UniqueItems\":false,\"MultipleOf\":null,\"Enum\":null,\"MaxProperties\":null,\"MinProperties\":null,\"Required\":null,\"Items\":null,\"AllOf\":null,\"OneOf\":null,\"AnyOf\":null,\"Not\":null,\"Properties\":null,\"AdditionalProperties\":null,\"PatternProperties\":null,\"Dependencies\":null,\"AdditionalItems\":null,\"Definitions\":null,\"ExternalDocs\":null,\"Example\":null,\"XPreserveUnknownFields\":null,\"XEmbeddedResource\":false,\"XIntOrString\":false,\"XListMapKeys\":null,\"XListType\":null,\"XMapType\":null,\"XValidations\":null}},\"AdditionalProperties\":null,\"PatternProperties\":null,\"Dependencies\":null,\"AdditionalItems\":null,\"Definitions\":null,\"ExternalDocs\":null,\"Example\":null,\"XPreserveUnknownFields\":null,\"XEmbeddedResource\":false,\"XIntOrString\":false,\"XListMapKeys\":null,\"XListType\":null,\"XMapType\":null,\"XValidations\":null}: only [Description Type Format Title Maximum ExclusiveMaximum Minimum ExclusiveMinimum MaxLength MinLength Pattern MaxItems MinItems UniqueItems MultipleOf Required Items Properties ExternalDocs Example XPreserveUnknownFields XValidations] fields are allowed at the root of the schema if the status subresource is enabled",
				"spec.validation.openAPIV3Schema.nullable: Forbidden: nullable cannot be true at the root",
			},
		},
		{
			name:   "status root type",
			status: true,
			schema: `{type: string}`,
			want: []string{
				"spec.validation.openAPIV3Schema.type: Invalid value: \"string\": only \"object\" is allowed as the type at the root of the schema if the status subresource is enabled",
				"spec.validation.openAPIV3Schema.type: Invalid value: \"string\": must be object at the root",
			},
		},
		{
			name:   "status allows root fields",
			status: true,
			schema: `
			type: object
			description: d
			required: [spec]
			properties: {spec: {type: object}}
			x-kubernetes-preserve-unknown-fields: true
			`,
			want: nil,
		},
		{
			name: "defaults in top-level meta",
			schema: `
			type: object
			properties:
			  metadata: {type: object, default: {}}
			  kind: {type: string, default: Foo}
			  apiVersion: {type: string, default: v1}
			`,
			want: []string{
				"spec.validation.openAPIV3Schema.properties[apiVersion].default: Forbidden: must not be set in top-level apiVersion",
				"spec.validation.openAPIV3Schema.properties[kind].default: Forbidden: must not be set in top-level kind",
				"spec.validation.openAPIV3Schema.properties[metadata].default: Forbidden: must not be set in top-level metadata",
			},
		},
		{
			name: "default of wrong type",
			schema: `
			type: object
			properties:
			  a: {type: integer, default: x}
			  b: {type: string, default: 1, maxLength: 0}
			  c: {type: string, enum: [a], default: b}
			`,
			want: []string{
				"spec.validation.openAPIV3Schema.properties[a].default: Invalid value: \"string\":  in body must be of type integer: \"string\"",
				"spec.validation.openAPIV3Schema.properties[b].default: Invalid value: \"integer\":  in body must be of type string: \"integer\"",
				"spec.validation.openAPIV3Schema.properties[c].default: Unsupported value: \"b\": supported values: \"a\"",
			},
		},
		{
			name:   "default not pruned",
			schema: `{type: object, properties: {a: {type: object, properties: {b: {type: string}}, default: {b: x, c: yy}}}}`,
			want: []string{
				"spec.validation.openAPIV3Schema.properties[a].default: Invalid value: {\"b\":\"x\",\"c\":\"yy\"}: must not have unknown fields",
			},
		},
		{
			name: "default pruned under preserve",
			schema: `
			type: object
			properties:
			  a:
			    type: object
			    x-kubernetes-preserve-unknown-fields: true
			    properties: {b: {type: string}}
			    default: {b: x, c: yy}
			`,
			want: nil,
		},
		{
			name: "default in embedded metadata",
			schema: `
			type: object
			properties:
			  e:
			    type: object
			    x-kubernetes-embedded-resource: true
			    x-kubernetes-preserve-unknown-fields: true
			    properties:
			      metadata:
			        type: object
			        properties:
			          labels: {type: object, additionalProperties: {type: string, default: x}, default: {a: b}}
			          name: {type: string, default: "Bad Name"}
			          namespace: {type: string, default: ns}
			`,
			want: []string{
				"spec.validation.openAPIV3Schema.properties[e].properties[metadata].properties[labels].additionalProperties.default: Forbidden: must not be set inside additionalProperties applying to object metadata",
			},
		},
		{
			name: "default embedded resource",
			schema: `
			type: object
			properties:
			  e:
			    type: object
			    x-kubernetes-embedded-resource: true
			    x-kubernetes-preserve-unknown-fields: true
			    default: {kind: Foo, metadata: {name: a}}
			  f:
			    type: object
			    x-kubernetes-embedded-resource: true
			    x-kubernetes-preserve-unknown-fields: true
			    default: {apiVersion: v1, kind: "Foo Bar", metadata: {name: a/b, bogus: 1}}
			`,
			want: []string{
				"spec.validation.openAPIV3Schema.properties[e].default.apiVersion: Required value",
				"spec.validation.openAPIV3Schema.properties[f].default.kind: Invalid value: \"Foo Bar\": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
				"spec.validation.openAPIV3Schema.properties[f].default.metadata.name: Invalid value: \"a/b\": may not contain '/'",
			},
		},
		{
			name: "default with bad metadata type",
			schema: `
			type: object
			properties:
			  e:
			    type: object
			    x-kubernetes-embedded-resource: true
			    x-kubernetes-preserve-unknown-fields: true
			    default: {apiVersion: 1, kind: Foo}
			`,
			want: []string{
				"spec.validation.openAPIV3Schema.properties[e].default.apiVersion: Invalid value: 1: must be a string",
			},
		},
		{
			name: "default list item",
			schema: `
			type: object
			properties: {l: {type: array, items: {type: object, properties: {a: {type: integer, default: x}}}}}
			`,
			want: []string{
				"spec.validation.openAPIV3Schema.properties[l].items.properties[a].default: Invalid value: \"string\":  in body must be of type integer: \"string\"",
			},
		},
		{
			name:   "default under additionalProperties is not checked",
			schema: `{type: object, properties: {m: {type: object, additionalProperties: {type: integer, default: x}}}}`,
			want:   nil,
		},
		{
			name: "default with format",
			schema: `
			type: object
			properties:
			  a: {type: string, format: ipv4, default: nope}
			  b: {type: string, format: int32, default: nope}
			`,
			want: []string{
				"spec.validation.openAPIV3Schema.properties[a].default: Invalid value: \"nope\":  in body must be of type ipv4: \"nope\"",
			},
		},
		{
			name:   "preserve false",
			schema: `{type: object, properties: {a: {type: object, x-kubernetes-preserve-unknown-fields: false}}}`,
			want: []string{
				"spec.validation.openAPIV3Schema.properties[a].x-kubernetes-preserve-unknown-fields: Invalid value: false: must be true or undefined",
			},
		},
		{
			name: "map type",
			schema: `
			type: object
			properties:
			  a: {type: string, x-kubernetes-map-type: atomic}
			  b: {x-kubernetes-map-type: granular, x-kubernetes-preserve-unknown-fields: true}
			  c: {type: object, x-kubernetes-map-type: bad}
			`,
			want: []string{
				"spec.validation.openAPIV3Schema.properties[a].type: Invalid value: \"string\": must be object if x-kubernetes-map-type is specified",
				"spec.validation.openAPIV3Schema.properties[b].type: Required value: must be object if x-kubernetes-map-type is specified",
				"spec.validation.openAPIV3Schema.properties[c].x-kubernetes-map-type: Unsupported value: \"bad\": supported values: \"atomic\", \"granular\"",
			},
		},
		{
			name: "list type on non-array",
			schema: `
			type: object
			properties:
			  a: {type: string, x-kubernetes-list-type: atomic}
			  b: {x-kubernetes-list-type: set, x-kubernetes-preserve-unknown-fields: true}
			  c: {type: array, items: {type: string}, x-kubernetes-list-type: bad}
			`,
			want: []string{
				"spec.validation.openAPIV3Schema.properties[a].type: Invalid value: \"string\": must be array if x-kubernetes-list-type is specified",
				"spec.validation.openAPIV3Schema.properties[b].type: Required value: must be array if x-kubernetes-list-type is specified",
				"spec.validation.openAPIV3Schema.properties[c].x-kubernetes-list-type: Unsupported value: \"bad\": supported values: \"atomic\", \"set\", \"map\"",
			},
		},
		{
			name: "set of granular objects",
			schema: `
			type: object
			properties:
			  a:
			    type: array
			    x-kubernetes-list-type: set
			    items: {type: object, properties: {x: {type: string}}}
			  b:
			    type: array
			    x-kubernetes-list-type: set
			    items:
			      type: array
			      x-kubernetes-list-type: map
			      x-kubernetes-list-map-keys: [x]
			      items: {type: object, required: [x], properties: {x: {type: string}}}
			  c:
			    type: array
			    x-kubernetes-list-type: set
			    items: {type: object, x-kubernetes-map-type: atomic}
			`,
			want: []string{
				"spec.validation.openAPIV3Schema.properties[a].items.x-kubernetes-map-type: Invalid value: null: must be atomic as item of a list with x-kubernetes-list-type=set",
				"spec.validation.openAPIV3Schema.properties[b].items.x-kubernetes-list-type: Invalid value: \"map\": must be atomic as item of a list with x-kubernetes-list-type=set",
			},
		},
		{
			name: "list map keys without map",
			schema: `
			type: object
			properties:
			  a:
			    type: array
			    items: {type: object, properties: {k: {type: string}}}
			    x-kubernetes-list-map-keys: [k]
			  b:
			    type: array
			    items: {type: object, required: [k], properties: {k: {type: string}}}
			    x-kubernetes-list-type: set
			    x-kubernetes-list-map-keys: [k]
			`,
			want: []string{
				"spec.validation.openAPIV3Schema.properties[a].x-kubernetes-list-type: Required value: must be map if x-kubernetes-list-map-keys is non-empty",
				"spec.validation.openAPIV3Schema.properties[b].items.x-kubernetes-map-type: Invalid value: null: must be atomic as item of a list with x-kubernetes-list-type=set",
				"spec.validation.openAPIV3Schema.properties[b].x-kubernetes-list-type: Invalid value: \"set\": must be map if x-kubernetes-list-map-keys is non-empty",
			},
		},
		{
			name: "list map declaration",
			schema: `
			type: object
			properties:
			  nokeys: {type: array, x-kubernetes-list-type: map, items: {type: object}}
			  noitems: {type: array, x-kubernetes-list-type: map, x-kubernetes-list-map-keys: [k]}
			  scalaritems:
			    type: array
			    x-kubernetes-list-type: map
			    x-kubernetes-list-map-keys: [k]
			    items: {type: string}
			  objkey:
			    type: array
			    x-kubernetes-list-type: map
			    x-kubernetes-list-map-keys: [k, missing, k]
			    items: {type: object, required: [k], properties: {k: {type: object}}}
			`,
			want: []string{
				"spec.validation.openAPIV3Schema.properties[noitems].items: Required value: must be specified",
				"spec.validation.openAPIV3Schema.properties[noitems].items: Required value: must have a schema if x-kubernetes-list-type is map",
				"spec.validation.openAPIV3Schema.properties[nokeys].x-kubernetes-list-map-keys: Required value: must not be empty if x-kubernetes-list-type is map",
				"spec.validation.openAPIV3Schema.properties[objkey].items.properties[k].type: Invalid value: \"object\": must be a scalar type if parent array's x-kubernetes-list-type is map",
				"spec.validation.openAPIV3Schema.properties[objkey].x-kubernetes-list-map-keys: Invalid value: [\"k\",\"missing\",\"k\"]: entries must all be names of item properties",
				"spec.validation.openAPIV3Schema.properties[objkey].items.properties[k].type: Invalid value: \"object\": must be a scalar type if parent array's x-kubernetes-list-type is map",
				"spec.validation.openAPIV3Schema.properties[objkey].x-kubernetes-list-map-keys: Invalid value: [\"k\",\"missing\",\"k\"]: must not contain duplicate entries",
				"spec.validation.openAPIV3Schema.properties[scalaritems].items.type: Invalid value: \"string\": must be object if parent array's x-kubernetes-list-type is map",
			},
		},
		{
			name: "list map keys must be required or defaulted",
			schema: `
			type: object
			properties:
			  a:
			    type: array
			    x-kubernetes-list-type: map
			    x-kubernetes-list-map-keys: [k, d, nn]
			    items:
			      type: object
			      required: [nn]
			      properties:
			        k: {type: string}
			        d: {type: string, default: x}
			        nn: {type: string, nullable: true}
			  b: {type: array, x-kubernetes-list-type: set, items: {type: string, nullable: true}}
			`,
			want: []string{
				"spec.validation.openAPIV3Schema.properties[a].items.properties[k].default: Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property",
				"spec.validation.openAPIV3Schema.properties[a].items.properties[nn].nullable: Forbidden: this property is in x-kubernetes-list-map-keys, so it cannot be nullable",
				"spec.validation.openAPIV3Schema.properties[b].items.nullable: Forbidden: cannot be nullable when x-kubernetes-list-type is set",
			},
		},
		{
			name: "embedded resource in metadata",
			schema: `
			type: object
			x-kubernetes-embedded-resource: true
			x-kubernetes-preserve-unknown-fields: true
			properties:
			  metadata:
			    type: object
			    x-kubernetes-embedded-resource: true
			    x-kubernetes-preserve-unknown-fields: true
			`,
			want: []string{
				"spec.validation.openAPIV3Schema.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified",
				"spec.validation.openAPIV3Schema.properties[metadata].x-kubernetes-embedded-resource: Forbidden: must not be used inside of resource meta",
			},
		},
		{
			name: "validation rules declarations",
			schema: `
			type: object
			properties:
			  a:
			    type: object
			    properties: {b: {type: string}, m: {type: object, additionalProperties: {type: string}}}
			    x-kubernetes-validations: [{rule: " "}, {rule: "true", message: " "}, {rule: "true", message: "a\nb"}, {rule: "self.b\n== 'x'"}, {rule: "true", messageExpression: " "}, {rule: "true", reason: Bogus}, {rule: "true", fieldPath: " "}, {rule: "true", fieldPath: ".b\n"}, {rule: "true", fieldPath: ".c"}, {rule: "true", fieldPath: ".b"}, {rule: "true", fieldPath: ".m['x.y']"}, {rule: "true", fieldPath: ".m.x.y"}, {rule: "true", fieldPath: "['b']"}, {rule: "true", fieldPath: b}, {rule: "true", fieldPath: ".m['x"}, {rule: "true", reason: FieldValueForbidden, fieldPath: ".b"}]
			`,
			want: []string{
				"spec.validation.openAPIV3Schema.properties[a].x-kubernetes-validations[0].rule: Required value: rule is not specified",
				"spec.validation.openAPIV3Schema.properties[a].x-kubernetes-validations[1].message: Invalid value: \" \": must be non-empty if specified",
				"spec.validation.openAPIV3Schema.properties[a].x-kubernetes-validations[2].message: Invalid value: \"a\\nb\": must not contain line breaks",
				"spec.validation.openAPIV3Schema.properties[a].x-kubernetes-validations[3].message: Required value: message must be specified if rule contains line breaks",
				"spec.validation.openAPIV3Schema.properties[a].x-kubernetes-validations[4].messageExpression: Required value: messageExpression must be non-empty if specified",
				"spec.validation.openAPIV3Schema.properties[a].x-kubernetes-validations[5].reason: Unsupported value: \"Bogus\": supported values: \"FieldValueDuplicate\", \"FieldValueForbidden\", \"FieldValueInvalid\", \"FieldValueRequired\"",
				"spec.validation.openAPIV3Schema.properties[a].x-kubernetes-validations[6].fieldPath: Invalid value: \" \": must be non-empty if specified",
				"spec.validation.openAPIV3Schema.properties[a].x-kubernetes-validations[6].fieldPath: Invalid value: \" \": must be a valid path",
				"spec.validation.openAPIV3Schema.properties[a].x-kubernetes-validations[7].fieldPath: Invalid value: \".b\\n\": must not contain line breaks",
				"spec.validation.openAPIV3Schema.properties[a].x-kubernetes-validations[7].fieldPath: Invalid value: \".b\\n\": must be a valid path",
				"spec.validation.openAPIV3Schema.properties[a].x-kubernetes-validations[8].fieldPath: Invalid value: \".c\": must be a valid path",
				"spec.validation.openAPIV3Schema.properties[a].x-kubernetes-validations[11].fieldPath: Invalid value: \".m.x.y\": must be a valid path",
				"spec.validation.openAPIV3Schema.properties[a].x-kubernetes-validations[13].fieldPath: Invalid value: \"b\": must be a valid path",
				"spec.validation.openAPIV3Schema.properties[a].x-kubernetes-validations[14].fieldPath: Invalid value: \".m['x\": must be a valid path",
			},
		},
		{
			name:   "not structural",
			schema: `{type: object, properties: {a: {properties: {b: {type: string}}}}}`,
			want: []string{
				"spec.validation.openAPIV3Schema.properties[a].type: Required value: must not be empty for specified object fields",
			},
		},
		{
			name:   "nested type conversion error is reported when alone",
			schema: `{type: object, properties: {a: {type: object, "$schema": "http://json-schema.org/schema#"}}}`,
			want: []string{
				"spec.validation.openAPIV3Schema: Invalid value: \"\": OpenAPIV3Schema 'schema' is not supported",
			},
		},
		{
			name: "int-or-string defaults",
			schema: `
			type: object
			properties:
			  a: {x-kubernetes-int-or-string: true, default: true}
			  b: {x-kubernetes-int-or-string: true, default: 3}
			`,
			want: nil,
		},
		{
			name:   "required default",
			schema: `{type: object, properties: {a: {type: object, required: [b], properties: {b: {type: string}}, default: {}}}}`,
			want: []string{
				"spec.validation.openAPIV3Schema.properties[a].default.b: Required value",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ValidateCustomResourceDefinitionSchema(crdSchemaPath, schematest.Schema(t, tt.schema), SchemaValidationOptions{StatusSubresource: tt.status})
			schematest.DiffStrings(t, tt.want, schematest.ErrorStrings(got))
		})
	}
}

func TestSchemaValidationOptionsRelaxRulesForStoredSchemas(t *testing.T) {
	tests := []struct {
		name    string
		schema  string
		opts    SchemaValidationOptions
		has     func(*testing.T, string) bool
		without []string
	}{
		{
			name:   "non-structural",
			schema: `{type: object, properties: {a: {properties: {b: {type: string}}}}}`,
			opts:   SchemaValidationOptions{AllowNonStructural: true},
			has: func(t *testing.T, s string) bool {
				return SchemaIsNonStructural(schematest.Schema(t, s))
			},
			without: []string{"spec.validation.openAPIV3Schema.properties[a].type: Required value: must not be empty for specified object fields"},
		},
		{
			name:   "unpruned defaults",
			schema: `{type: object, properties: {a: {type: object, properties: {b: {type: string}}, default: {b: x, c: z}}}}`,
			opts:   SchemaValidationOptions{AllowUnprunedDefaults: true},
			has: func(t *testing.T, s string) bool {
				has, err := SchemaHasUnprunedDefaults(schematest.Schema(t, s))
				if err != nil {
					t.Fatal(err)
				}
				return has
			},
			without: []string{`spec.validation.openAPIV3Schema.properties[a].default: Invalid value: {"b":"x","c":"z"}: must not have unknown fields`},
		},
		{
			name:   "non-atomic set items",
			schema: `{type: object, properties: {a: {type: array, x-kubernetes-list-type: set, items: {type: object, properties: {x: {type: string}}}}}}`,
			opts:   SchemaValidationOptions{AllowNonAtomicSetItems: true},
			has: func(t *testing.T, s string) bool {
				return SchemaHasNonAtomicSetItems(schematest.Schema(t, s))
			},
			without: []string{"spec.validation.openAPIV3Schema.properties[a].items.x-kubernetes-map-type: Invalid value: null: must be atomic as item of a list with x-kubernetes-list-type=set"},
		},
		{
			name:   "list map keys neither required nor defaulted",
			schema: `{type: object, properties: {a: {type: array, x-kubernetes-list-type: map, x-kubernetes-list-map-keys: [k], items: {type: object, properties: {k: {type: string}}}}}}`,
			opts:   SchemaValidationOptions{AllowInvalidListMapKeys: true},
			has: func(t *testing.T, s string) bool {
				return SchemaHasInvalidListMapKeys(schematest.Schema(t, s))
			},
			without: []string{"spec.validation.openAPIV3Schema.properties[a].items.properties[k].default: Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property"},
		},
		{
			name:   "invalid types",
			schema: `{type: object, properties: {a: {type: foo}}}`,
			opts:   SchemaValidationOptions{AllowInvalidTypes: true},
			has: func(t *testing.T, s string) bool {
				return SchemaHasInvalidTypes(schematest.Schema(t, s))
			},
			without: []string{`spec.validation.openAPIV3Schema.properties[a].type: Unsupported value: "foo": supported values: "array", "boolean", "integer", "number", "object", "string"`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !tt.has(t, tt.schema) {
				t.Errorf("the predicate does not detect the schema")
			}
			strict := ValidateCustomResourceDefinitionSchema(crdSchemaPath, schematest.Schema(t, tt.schema), SchemaValidationOptions{})
			schematest.DiffStrings(t, tt.without, schematest.ErrorStrings(strict))
			relaxed := ValidateCustomResourceDefinitionSchema(crdSchemaPath, schematest.Schema(t, tt.schema), tt.opts)
			schematest.DiffStrings(t, nil, schematest.ErrorStrings(relaxed))
		})
	}
}

func TestSchemaPredicatesOnCleanSchema(t *testing.T) {
	s := schematest.Schema(t, `{type: object, properties: {a: {type: string, default: x}, l: {type: array, x-kubernetes-list-type: set, items: {type: string}}}}`)
	if SchemaIsNonStructural(s) {
		t.Error("SchemaIsNonStructural")
	}
	if has, err := SchemaHasUnprunedDefaults(s); has || err != nil {
		t.Errorf("SchemaHasUnprunedDefaults: %v, %v", has, err)
	}
	if SchemaHasNonAtomicSetItems(s) || SchemaHasInvalidListMapKeys(s) || SchemaHasInvalidTypes(s) {
		t.Error("unexpected predicate match")
	}
	if !SchemaHasDefaults(s) || !SchemaHasKubernetesExtensions(s) {
		t.Error("SchemaHasDefaults or SchemaHasKubernetesExtensions missed")
	}
}

func TestValidateDefaultRulesHook(t *testing.T) {
	s := schematest.Schema(t, `{type: object, properties: {a: {type: string, default: x}, b: {type: integer, default: "wrong"}, e: {type: object, x-kubernetes-embedded-resource: true, x-kubernetes-preserve-unknown-fields: true, default: {apiVersion: v1, kind: K}}}}`)
	var calls []string
	opts := SchemaValidationOptions{
		ValidateDefaultRules: func(fldPath *field.Path, s *schema.Structural, isResourceRoot bool, value interface{}) field.ErrorList {
			calls = append(calls, fldPath.String())
			if isResourceRoot {
				return field.ErrorList{field.Invalid(fldPath, value, "rule failed")}
			}
			return nil
		},
	}
	got := ValidateCustomResourceDefinitionSchema(crdSchemaPath, s, opts)
	// The rules run only for defaults that passed every other check.
	schematest.DiffStrings(t, []string{
		"spec.validation.openAPIV3Schema.properties[a].default",
		"spec.validation.openAPIV3Schema.properties[e].default",
	}, calls)
	schematest.DiffStrings(t, []string{
		`spec.validation.openAPIV3Schema.properties[b].default: Invalid value: "string":  in body must be of type integer: "string"`,
		`spec.validation.openAPIV3Schema.properties[e].default: Invalid value: {"apiVersion":"v1","kind":"K"}: rule failed`,
	}, schematest.ErrorStrings(got))
}

func TestFormatAndListSetWarnings(t *testing.T) {
	s := schematest.Schema(t, `
		type: object
		properties:
		  a: {type: string, format: date-time}
		  b: {type: string, format: bogus}
		  c: {type: integer, format: int32}
		  d: {type: integer, format: date}
		  e: {type: boolean, format: int32}
		  f: {type: array, x-kubernetes-list-type: set, items: {type: object, x-kubernetes-map-type: atomic}}
		  g: {type: array, x-kubernetes-list-type: set, items: {type: array, items: {type: string}}}
		  h: {type: array, x-kubernetes-list-type: set, items: {type: object}}
		`)
	schematest.DiffStrings(t, []string{"bogus", "date", "int32"}, UnrecognizedFormats(s))
	schematest.DiffStrings(t, []string{
		`x-kubernetes-list-type: set for items of type "array" is not supported by server-side apply or CEL validation rules`,
		`x-kubernetes-list-type: set for items of type "object" is not supported by server-side apply or CEL validation rules`,
	}, NonScalarListTypeSetWarnings(s))
}
