package apiextensions

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

// richSchema touches every kind of schema field whose internal rendering
// differs from v1's: decoded JSON values (whole floats become integers, map
// keys sorted), nil versus empty lists, nested schemas, validation rules.
const richSchema = `
type: object
description: rich
x-kubernetes-validations:
- {rule: "self.a > 0", message: m, reason: FieldValueForbidden, fieldPath: .a, optionalOldSelf: true}
properties:
  a: {type: number, enum: [1.5, 2.0, 3], default: 1.5, example: 2}
  l: {type: array, items: {type: string}, x-kubernetes-list-type: set, maxItems: 3}
  m: {type: object, additionalProperties: {type: integer, format: int32}}
  o: {type: object, x-kubernetes-preserve-unknown-fields: true, additionalProperties: true, default: {"z": [1, "x"], "b": null}}
  u: {x-kubernetes-int-or-string: true, anyOf: [{type: integer}, {type: string}], not: {pattern: "^x$"}}
  d: {type: string, externalDocs: {url: "https://x", description: docs}, nullable: true, enum: []}
`

// Errors about spec.versions carry the versions as kube-apiserver's
// internal form renders them. testdata/versions-value.json is that
// rendering, made by kube-apiserver's own conversion, for the widgets CRD
// with a second version that differs in everything.
func TestInternalVersionsValue(t *testing.T) {
	c := newCRD(t)
	s := &apiextensionsv1.JSONSchemaProps{}
	if err := yaml.Unmarshal([]byte(richSchema), s); err != nil {
		t.Fatal(err)
	}
	v2 := *c.Spec.Versions[0].DeepCopy()
	v2.Name = "v2"
	v2.Schema.OpenAPIV3Schema = s
	v2.Deprecated, v2.DeprecationWarning = true, ptr("v2 is <old> & gone")
	v2.Subresources = nil
	v2.SelectableFields = []apiextensionsv1.SelectableField{{JSONPath: ".a"}}
	c.Spec.Versions = append(c.Spec.Versions, v2)

	got, err := json.Marshal(internalVersionsValue(c.Spec.Versions))
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("testdata/versions-value.json")
	if err != nil {
		t.Fatal(err)
	}
	if want = bytes.TrimSpace(want); !bytes.Equal(got, want) {
		t.Errorf("rendering differs from kube-apiserver's:\n got: %s\nwant: %s", got, want)
	}
}
