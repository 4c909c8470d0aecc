package cel

import (
	"context"
	"net/http"
	"regexp"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/kapi-dev/kapi/pkg/endpoints/warning"
)

// schemaPath is where the schemas of these tests sit in their CRD.
var schemaPath = field.NewPath("spec", "versions").Index(0).Child("schema", "openAPIV3Schema")

func mustSchema(t testing.TB, y string) *apiextensionsv1.JSONSchemaProps {
	t.Helper()
	var s apiextensionsv1.JSONSchemaProps
	if err := yaml.Unmarshal([]byte(y), &s); err != nil {
		t.Fatalf("bad schema: %v", err)
	}
	return &s
}

// mustObject decodes YAML as the API server decodes JSON, except that
// integral numbers become int64 as in unstructured objects.
func mustObject(t testing.TB, y string) map[string]interface{} {
	t.Helper()
	if y == "" {
		return nil
	}
	var o map[string]interface{}
	if err := yaml.Unmarshal([]byte(y), &o); err != nil {
		t.Fatalf("bad object: %v", err)
	}
	return intsAsInt64(o).(map[string]interface{})
}

func intsAsInt64(v interface{}) interface{} {
	switch v := v.(type) {
	case map[string]interface{}:
		for k, e := range v {
			v[k] = intsAsInt64(e)
		}
	case []interface{}:
		for i, e := range v {
			v[i] = intsAsInt64(e)
		}
	case float64:
		if v == float64(int64(v)) {
			return int64(v)
		}
	}
	return v
}

// selfTypeName matches the generated type name of self, which changes at
// every compilation.
var selfTypeName = regexp.MustCompile(`selfType\d+`)

func errorStrings(errs field.ErrorList) []string {
	var out []string
	for _, e := range errs {
		out = append(out, selfTypeName.ReplaceAllString(e.Error(), "selfTypeN"))
	}
	return out
}

// validate runs the validator of schema on obj (and old), returning
// errors and the warnings sent to the client.
func validate(t testing.TB, v *Validator, obj, old map[string]interface{}, budget int64) (errs []string, warnings []string, remaining int64) {
	t.Helper()
	header := http.Header{}
	ctx := warning.WithRecorder(context.Background(), warning.NewRecorder(header))
	var oldObj interface{}
	if old != nil {
		oldObj = old
	}
	errList, remaining := v.Validate(ctx, nil, obj, oldObj, budget)
	for _, w := range header.Values("Warning") {
		w = strings.TrimSuffix(strings.TrimPrefix(w, `299 - "`), `"`)
		warnings = append(warnings, strings.ReplaceAll(w, `\"`, `"`))
	}
	return errorStrings(errList), warnings, remaining
}
