package validatingadmissionpolicystatus

import (
	"testing"

	"github.com/google/cel-go/cel"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/pkg/api/scheme"
	"github.com/kapi-dev/kapi/pkg/cel/schemas"
)

// typeAt follows a path of fields ("[]" for list items, "{}" for map
// values) down a DeclType; nil when a step is missing.
func typeAt(t *schemas.DeclType, path ...string) *schemas.DeclType {
	for _, p := range path {
		if t == nil {
			return nil
		}
		switch p {
		case "[]", "{}":
			t = t.Elem
		default:
			t = t.Fields[p]
		}
	}
	return t
}

// The CEL types of built-in kinds, from kapi's OpenAPI definitions, are
// those kube-controller-manager checks against (the recordings of
// test/corpus/testdata-policystatus show the same from its warnings):
// timestamps for date-time strings, dyn for int-or-string, nothing for
// quantities (their schema has no type), maps of strings and of bytes,
// and a recursive type cut to an empty object below its first level.
func TestBuiltinKindTypes(t *testing.T) {
	r := NewSchemaResolver(scheme.Scheme, nil)
	typeOf := func(gvk schema.GroupVersionKind) *schemas.DeclType {
		t.Helper()
		s, err := r.ResolveSchema(gvk)
		if err != nil {
			t.Fatalf("%v: %v", gvk, err)
		}
		return schemas.SchemaDeclType(s, true)
	}
	deployment := typeOf(schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"})
	secret := typeOf(schema.GroupVersionKind{Version: "v1", Kind: "Secret"})
	configMap := typeOf(schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"})
	crd := typeOf(schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"})
	containers := []string{"spec", "template", "spec", "containers"}
	cases := []struct {
		name string
		t    *schemas.DeclType
		path []string
		want *cel.Type // nil: not typed
	}{
		{"replicas", deployment, []string{"spec", "replicas"}, cel.IntType},
		{"creation time", deployment, []string{"metadata", "creationTimestamp"}, cel.TimestampType},
		{"labels", deployment, []string{"metadata", "labels"}, cel.MapType(cel.StringType, cel.StringType)},
		{"int-or-string", deployment, []string{"spec", "strategy", "rollingUpdate", "maxSurge"}, cel.DynType},
		{"enum string", deployment, []string{"spec", "strategy", "type"}, cel.StringType},
		{"container image", deployment, append(containers, "[]", "image"), cel.StringType},
		{"quantities", deployment, append(containers, "[]", "resources", "limits"), nil},
		{"grace period", deployment, []string{"spec", "template", "spec", "terminationGracePeriodSeconds"}, cel.IntType},
		{"secret data", secret, []string{"data"}, cel.MapType(cel.StringType, cel.BytesType)},
		{"configmap data", configMap, []string{"data"}, cel.MapType(cel.StringType, cel.StringType)},
		{"schema type", crd, []string{"spec", "versions", "[]", "schema", "openAPIV3Schema", "type"}, cel.StringType},
		{"recursive schema", crd, []string{"spec", "versions", "[]", "schema", "openAPIV3Schema", "properties", "{}", "type"}, nil},
	}
	for _, tc := range cases {
		got := typeAt(tc.t, tc.path...)
		switch {
		case tc.want == nil && got != nil:
			t.Errorf("%s: typed %v, want not typed", tc.name, got.CEL)
		case tc.want != nil && got == nil:
			t.Errorf("%s: not typed, want %v", tc.name, tc.want)
		case tc.want != nil && !got.CEL.IsExactType(tc.want):
			t.Errorf("%s: %v, want %v", tc.name, got.CEL, tc.want)
		}
	}
	// The recursive schema is an object without fields, not a missing one.
	if p := typeAt(crd, "spec", "versions", "[]", "schema", "openAPIV3Schema", "properties", "{}"); p == nil || !p.IsObject() || len(p.Fields) != 0 {
		t.Errorf("properties of a schema: %+v, want an object without fields", p)
	}
}
