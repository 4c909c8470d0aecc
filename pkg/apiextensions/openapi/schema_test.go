package openapi

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

// crdWithSchema is a namespaced CronTab CRD of stable.example.com whose v1
// has the schema written in YAML.
func crdWithSchema(t *testing.T, schemaYAML string) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	crd := &apiextensionsv1.CustomResourceDefinition{
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "stable.example.com",
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "crontabs", Singular: "crontab", Kind: "CronTab", ListKind: "CronTabList"},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
			}},
		},
	}
	crd.Name = "crontabs.stable.example.com"
	if schemaYAML != "" {
		var s apiextensionsv1.JSONSchemaProps
		if err := yaml.UnmarshalStrict([]byte(schemaYAML), &s); err != nil {
			t.Fatalf("schema: %v", err)
		}
		crd.Spec.Versions[0].Schema = &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &s}
	}
	return crd
}

// fromYAML is YAML as JSON values, for comparisons.
func fromYAML(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := yaml.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("%v in:\n%s", err, s)
	}
	return v
}

// asJSON is v as JSON values, for comparisons.
func asJSON(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// indent makes a YAML block the value of a key one level down.
func indent(s string) string {
	return "  " + strings.ReplaceAll(strings.TrimSpace(s), "\n", "\n  ")
}

// The spec of an object is published as written in v3; v2 leaves out what
// Swagger 2.0 and kubectl's reading of it cannot take.
func TestPublishedFields(t *testing.T) {
	for _, tc := range []struct {
		name string
		// spec is the schema of the property spec.
		spec string
		// v3 and v2 are its published forms.
		v3, v2 string
	}{{
		name: "types, formats, validations and defaults; no default in v2",
		spec: `
type: object
description: the spec
required: [schedule]
properties:
  schedule: {type: string, pattern: '^\d+ \* \* \* \*$', minLength: 9, example: "5 * * * *"}
  replicas: {type: integer, format: int32, minimum: 1, maximum: 10, exclusiveMaximum: true, default: 1}
  ratio: {type: number, multipleOf: 0.5, default: 1.5}
  mode: {type: string, enum: [a, b], default: a}
  tags: {type: array, items: {type: string}, maxItems: 3, uniqueItems: true, x-kubernetes-list-type: set}
  labels: {type: object, additionalProperties: {type: string}, maxProperties: 5, x-kubernetes-map-type: granular}
`,
		v3: `
type: object
description: the spec
required: [schedule]
properties:
  schedule: {type: string, pattern: '^\d+ \* \* \* \*$', minLength: 9, example: "5 * * * *"}
  replicas: {type: integer, format: int32, minimum: 1, maximum: 10, exclusiveMaximum: true, default: 1}
  ratio: {type: number, multipleOf: 0.5, default: 1.5}
  mode: {type: string, enum: [a, b], default: a}
  tags: {type: array, items: {type: string}, maxItems: 3, uniqueItems: true, x-kubernetes-list-type: set}
  labels: {type: object, additionalProperties: {type: string}, maxProperties: 5, x-kubernetes-map-type: granular}
`,
		v2: `
type: object
description: the spec
required: [schedule]
properties:
  schedule: {type: string, pattern: '^\d+ \* \* \* \*$', minLength: 9, example: "5 * * * *"}
  replicas: {type: integer, format: int32, minimum: 1, maximum: 10, exclusiveMaximum: true}
  ratio: {type: number, multipleOf: 0.5}
  mode: {type: string, enum: [a, b]}
  tags: {type: array, items: {type: string}, maxItems: 3, uniqueItems: true, x-kubernetes-list-type: set}
  labels: {type: object, additionalProperties: {type: string}, maxProperties: 5, x-kubernetes-map-type: granular}
`,
	}, {
		name: "list maps and CEL rules are kept",
		spec: `
type: object
x-kubernetes-validations: [{rule: "self.min <= self.max", message: "min above max"}]
properties:
  min: {type: integer}
  max: {type: integer}
  ports:
    type: array
    x-kubernetes-list-type: map
    x-kubernetes-list-map-keys: [port]
    items: {type: object, required: [port], properties: {port: {type: integer}}}
`,
		v3: `
type: object
x-kubernetes-validations: [{rule: "self.min <= self.max", message: "min above max"}]
properties:
  min: {type: integer}
  max: {type: integer}
  ports:
    type: array
    x-kubernetes-list-type: map
    x-kubernetes-list-map-keys: [port]
    items: {type: object, required: [port], properties: {port: {type: integer}}}
`,
		v2: `
type: object
x-kubernetes-validations: [{rule: "self.min <= self.max", message: "min above max"}]
properties:
  min: {type: integer}
  max: {type: integer}
  ports:
    type: array
    x-kubernetes-list-type: map
    x-kubernetes-list-map-keys: [port]
    items: {type: object, required: [port], properties: {port: {type: integer}}}
`,
	}, {
		name: "nullable: untyped in v2, and no longer required",
		spec: `
type: object
required: [a, b, c]
properties:
  a: {type: string, nullable: true}
  b: {type: object, nullable: true, properties: {x: {type: string}}}
  c: {type: array, nullable: true, items: {type: string}}
`,
		v3: `
type: object
required: [a, b, c]
properties:
  a: {type: string, nullable: true}
  b: {type: object, nullable: true, properties: {x: {type: string}}}
  c: {type: array, nullable: true, items: {type: string}}
`,
		v2: `
type: object
properties:
  a: {}
  b: {}
  c: {}
`,
	}, {
		name: "nullable additionalProperties: nothing is required any more",
		spec: `
type: object
required: [a]
additionalProperties: {type: string, nullable: true}
`,
		v3: `
type: object
required: [a]
additionalProperties: {type: string, nullable: true}
`,
		v2: `
type: object
additionalProperties: {}
`,
	}, {
		name: "int-or-string is spelled out as anyOf in v3 only",
		spec: `
type: object
properties:
  port: {x-kubernetes-int-or-string: true}
  maxSurge: {x-kubernetes-int-or-string: true, anyOf: [{type: integer}, {type: string}]}
  limited:
    x-kubernetes-int-or-string: true
    anyOf: [{maximum: 5}, {pattern: '^\d+%$'}]
`,
		v3: `
type: object
properties:
  port: {x-kubernetes-int-or-string: true, anyOf: [{type: integer}, {type: string}]}
  maxSurge: {x-kubernetes-int-or-string: true, anyOf: [{type: integer}, {type: string}]}
  limited:
    x-kubernetes-int-or-string: true
    allOf: [{anyOf: [{type: integer}, {type: string}]}]
    anyOf: [{maximum: 5}, {pattern: '^\d+%$'}]
`,
		v2: `
type: object
properties:
  port: {x-kubernetes-int-or-string: true}
  maxSurge: {x-kubernetes-int-or-string: true}
  limited: {x-kubernetes-int-or-string: true}
`,
	}, {
		name: "allOf, anyOf, oneOf and not in v3 only; no additionalProperties below them",
		spec: `
type: object
properties:
  a: {type: string}
  b: {type: string}
  m: {type: object, additionalProperties: {type: string}}
oneOf: [{required: [a]}, {required: [b]}]
not: {properties: {a: {enum: [forbidden]}}}
allOf: [{properties: {m: {maxProperties: 2}}}]
`,
		v3: `
type: object
properties:
  a: {type: string}
  b: {type: string}
  m: {type: object, additionalProperties: {type: string}}
oneOf: [{required: [a]}, {required: [b]}]
not: {properties: {a: {enum: [forbidden]}}}
allOf: [{properties: {m: {maxProperties: 2}}}]
`,
		v2: `
type: object
properties:
  a: {type: string}
  b: {type: string}
  m: {type: object, additionalProperties: {type: string}}
`,
	}, {
		name: "preserving unknown fields: v2 lists no fields kubectl would hold to",
		spec: `
type: object
properties:
  free: {type: object, x-kubernetes-preserve-unknown-fields: true}
  partly: {type: object, x-kubernetes-preserve-unknown-fields: true, properties: {known: {type: string}}}
  anything: {x-kubernetes-preserve-unknown-fields: true}
  list: {type: array, items: {type: object, x-kubernetes-preserve-unknown-fields: true}}
`,
		v3: `
type: object
properties:
  free: {type: object, x-kubernetes-preserve-unknown-fields: true}
  partly: {type: object, x-kubernetes-preserve-unknown-fields: true, properties: {known: {type: string}}}
  anything: {x-kubernetes-preserve-unknown-fields: true}
  list: {type: array, items: {type: object, x-kubernetes-preserve-unknown-fields: true}}
`,
		v2: `
type: object
properties:
  free: {x-kubernetes-preserve-unknown-fields: true}
  partly: {x-kubernetes-preserve-unknown-fields: true}
  anything: {x-kubernetes-preserve-unknown-fields: true}
  list: {type: array, items: {x-kubernetes-preserve-unknown-fields: true}}
`,
	}, {
		name: "embedded resources get apiVersion, kind and metadata, but in v2 not when they preserve unknown fields",
		spec: `
type: object
properties:
  template:
    type: object
    x-kubernetes-embedded-resource: true
    required: [spec]
    properties: {spec: {type: object}}
  raw:
    type: object
    x-kubernetes-embedded-resource: true
    x-kubernetes-preserve-unknown-fields: true
`,
		v3: `
type: object
properties:
  template:
    type: object
    x-kubernetes-embedded-resource: true
    required: [spec, kind, apiVersion]
    properties:
      spec: {type: object}
      apiVersion: {type: string, description: "apiVersion defines the versioned schema of this representation of an object. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources"}
      kind: {type: string, description: "kind is a string value representing the type of this object. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds"}
      metadata:
        description: "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"
        allOf: [{$ref: "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}]
  raw:
    type: object
    x-kubernetes-embedded-resource: true
    x-kubernetes-preserve-unknown-fields: true
    required: [kind, apiVersion]
    properties:
      apiVersion: {type: string, description: "apiVersion defines the versioned schema of this representation of an object. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources"}
      kind: {type: string, description: "kind is a string value representing the type of this object. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds"}
      metadata:
        description: "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"
        allOf: [{$ref: "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}]
`,
		v2: `
type: object
properties:
  template:
    type: object
    x-kubernetes-embedded-resource: true
    required: [spec, kind, apiVersion]
    properties:
      spec: {type: object}
      apiVersion: {type: string, description: "apiVersion defines the versioned schema of this representation of an object. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources"}
      kind: {type: string, description: "kind is a string value representing the type of this object. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds"}
      metadata:
        description: "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"
        $ref: "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
  raw:
    x-kubernetes-embedded-resource: true
    x-kubernetes-preserve-unknown-fields: true
`,
	}, {
		name: "titles and external docs",
		spec: `
type: object
title: Spec
externalDocs: {description: more, url: "https://example.com"}
`,
		v3: `
type: object
title: Spec
externalDocs: {description: more, url: "https://example.com"}
`,
		v2: `
type: object
title: Spec
externalDocs: {description: more, url: "https://example.com"}
`,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			crd := crdWithSchema(t, "type: object\nproperties:\n spec:\n"+indent(tc.spec))
			v3, v2, err := ResourceSchema(crd, "v1")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(fromYAML(t, tc.v3), asJSON(t, v3.Properties["spec"])); diff != "" {
				t.Errorf("v3 (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(fromYAML(t, tc.v2), asJSON(t, v2.Properties["spec"])); diff != "" {
				t.Errorf("v2 (-want +got):\n%s", diff)
			}
		})
	}
}

// The root is the custom resource: the API server's apiVersion, kind and
// metadata replace whatever the schema says of them, and the kind is
// named for kubectl.
func TestPublishedRoot(t *testing.T) {
	crd := crdWithSchema(t, `
type: object
description: A cron tab.
properties:
  apiVersion: {type: string}
  kind: {type: string}
  metadata:
    type: object
    properties: {name: {type: string, maxLength: 20}}
  spec: {type: object}
`)
	crd.Spec.Versions[0].SelectableFields = []apiextensionsv1.SelectableField{{JSONPath: ".spec.color"}}
	v3, v2, err := ResourceSchema(crd, "v1")
	if err != nil {
		t.Fatal(err)
	}
	const typeMeta = `
  apiVersion:
    type: string
    description: "APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources"
  kind:
    type: string
    description: "Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds"
  spec: {type: object}
x-kubernetes-group-version-kind: [{group: stable.example.com, version: v1, kind: CronTab}]
x-kubernetes-selectable-fields: [{fieldPath: spec.color}]
`
	wantV3 := `
type: object
description: A cron tab.
properties:
  metadata:
    description: "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"
    allOf: [{$ref: "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}]` + typeMeta
	wantV2 := `
type: object
description: A cron tab.
properties:
  metadata:
    description: "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"
    $ref: "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"` + typeMeta
	if diff := cmp.Diff(fromYAML(t, wantV3), asJSON(t, v3)); diff != "" {
		t.Errorf("v3 (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(fromYAML(t, wantV2), asJSON(t, v2)); diff != "" {
		t.Errorf("v2 (-want +got):\n%s", diff)
	}
}

// What kube-apiserver cannot describe is published as a bare object: kubectl
// then validates nothing, rather than refusing fields it was not told of.
func TestBareObjects(t *testing.T) {
	bare := `
type: object
x-kubernetes-group-version-kind: [{group: stable.example.com, version: v1, kind: CronTab}]
`
	for _, tc := range []struct {
		name   string
		schema string
		// preserveUnknownFields is the CRD's spec.preserveUnknownFields.
		preserveUnknownFields bool
		// v3Described is set when v3 still describes the schema.
		v3Described bool
	}{
		{name: "no schema"},
		{name: "not structural: a field without type", schema: "type: object\nproperties:\n  spec: {description: untyped}"},
		{name: "not structural: a type below anyOf", schema: "type: object\nproperties:\n  a: {type: string}\nanyOf: [{type: object}]"},
		{name: "not structural: a default below oneOf", schema: "type: object\nproperties:\n  a: {type: string}\noneOf: [{properties: {a: {default: x}}}]"},
		{name: "not structural: a property only below allOf", schema: "type: object\nallOf: [{properties: {a: {maxLength: 3}}}]"},
		{name: "not structural: metadata restricted beyond its name", schema: "type: object\nproperties:\n  metadata: {type: object, properties: {labels: {type: object}}}"},
		{name: "not structural: additionalProperties at the root", schema: "type: object\nadditionalProperties: {type: string}"},
		{name: "not structural: an array without items", schema: "type: object\nproperties:\n  a: {type: array}"},
		{name: "not structural: an invalid pattern", schema: "type: object\nproperties:\n  a: {type: string, pattern: '('}"},
		{name: "unsupported: $ref", schema: "type: object\nproperties:\n  a: {$ref: '#/definitions/b'}"},
		{name: "unsupported: an unknown type", schema: "type: object\nproperties:\n  a: {type: 'null'}"},
		{name: "preserving unknown fields at the root", schema: "type: object\nx-kubernetes-preserve-unknown-fields: true", v3Described: true},
		{name: "spec.preserveUnknownFields", schema: "type: object", preserveUnknownFields: true, v3Described: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			crd := crdWithSchema(t, tc.schema)
			crd.Spec.PreserveUnknownFields = tc.preserveUnknownFields
			v3, v2, err := ResourceSchema(crd, "v1")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(fromYAML(t, bare), asJSON(t, v2)); diff != "" {
				t.Errorf("v2 (-want +got):\n%s", diff)
			}
			if described := v3.Properties["metadata"].AllOf != nil; described != tc.v3Described {
				t.Errorf("v3 describes the schema: %v, want %v", described, tc.v3Described)
			} else if !described {
				if diff := cmp.Diff(fromYAML(t, bare), asJSON(t, v3)); diff != "" {
					t.Errorf("v3 (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// The schemas that are structural, for contrast with TestBareObjects: the
// exceptions the rules make.
func TestStructuralExceptions(t *testing.T) {
	for _, schema := range []string{
		"type: object\nproperties:\n  metadata: {type: object, properties: {name: {type: string, maxLength: 9}, generateName: {type: string}}}",
		"type: object\nproperties:\n  a: {x-kubernetes-int-or-string: true, allOf: [{anyOf: [{type: integer}, {type: string}]}, {maxLength: 3}]}",
		"type: object\nproperties:\n  a: {type: string}\nnot: {properties: {a: {enum: [x], description: ''}}}",
		"type: object\nproperties:\n  e: {type: object, x-kubernetes-embedded-resource: true, x-kubernetes-preserve-unknown-fields: true}",
	} {
		crd := crdWithSchema(t, schema)
		if !isStructural(crd.Spec.Versions[0].Schema.OpenAPIV3Schema) {
			t.Errorf("not structural:\n%s", schema)
		}
	}
}

func TestUnknownVersion(t *testing.T) {
	crd := crdWithSchema(t, "type: object")
	_, _, err := ResourceSchema(crd, "v2")
	if want := "version v2 not found in apiextensionsv1.CustomResourceDefinition: crontabs.stable.example.com"; err == nil || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
	}
}

// The CRD is left as it was: the published schemas are the caller's.
func TestTheCRDIsNotModified(t *testing.T) {
	crd := crdWithSchema(t, `
type: object
properties:
  template: {type: object, x-kubernetes-embedded-resource: true, required: [spec], properties: {spec: {type: object}}}
  port: {x-kubernetes-int-or-string: true}
`)
	template := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["template"]
	template.Required = append(make([]string, 0, 8), template.Required...) // room to append in place
	crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["template"] = template
	before := crd.DeepCopy()
	if _, _, err := ResourceSchema(crd, "v1"); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before, crd); diff != "" {
		t.Errorf("the CRD changed (-before +after):\n%s", diff)
	}
	if got := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["template"].Required[:2]; got[1] != "" && got[1] != "spec" {
		t.Errorf("the CRD's required list was written to: %v", got)
	}
}
