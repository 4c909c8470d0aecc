// Package schematest holds what the tests of the schema packages share:
// CRD schemas, structural schemas and values written as YAML inside Go
// raw strings, and comparisons of error lists. The expected messages in
// those tests were recorded from kube-apiserver 1.37's own code on the
// same inputs.
package schematest

import (
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/kapi-dev/kapi/pkg/apiextensions/schema"
)

// Dedent removes the indentation common to the lines of a YAML snippet
// written inside an indented Go raw string.
func Dedent(s string) string {
	lines := strings.Split(strings.Trim(s, "\n"), "\n")
	prefix := ""
	for i, line := range lines {
		if strings.TrimSpace(line) == "" {
			continue
		}
		indent := line[:len(line)-len(strings.TrimLeft(line, "\t "))]
		if i == 0 || len(indent) < len(prefix) {
			prefix = indent
		}
	}
	for i := range lines {
		lines[i] = strings.TrimPrefix(lines[i], prefix)
	}
	return strings.Join(lines, "\n")
}

// Schema parses a CRD schema written in YAML.
func Schema(t testing.TB, y string) *apiextensionsv1.JSONSchemaProps {
	t.Helper()
	s := &apiextensionsv1.JSONSchemaProps{}
	if err := yaml.UnmarshalStrict([]byte(Dedent(y)), s); err != nil {
		t.Fatalf("bad schema %q: %v", y, err)
	}
	return s
}

// Structural parses a CRD schema written in YAML and converts it to its
// structural form.
func Structural(t testing.TB, y string) *schema.Structural {
	t.Helper()
	s, err := schema.NewStructural(Schema(t, y))
	if err != nil {
		t.Fatalf("schema.NewStructural: %v", err)
	}
	return s
}

// Object parses a value written in YAML into unstructured JSON, as the
// API server decodes request bodies (integral numbers are int64).
func Object(t testing.TB, y string) interface{} {
	t.Helper()
	j, err := yaml.YAMLToJSON([]byte(Dedent(y)))
	if err != nil {
		t.Fatalf("bad object %q: %v", y, err)
	}
	var v interface{}
	if err := utiljson.Unmarshal(j, &v); err != nil {
		t.Fatalf("bad object %q: %v", y, err)
	}
	return v
}

// JSON is v encoded as JSON.
func JSON(t testing.TB, v interface{}) string {
	t.Helper()
	b, err := utiljson.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// ErrorStrings is the message of each error, in order.
func ErrorStrings(errs field.ErrorList) []string {
	var out []string
	for _, err := range errs {
		out = append(out, err.Error())
	}
	return out
}

// SortedErrorStrings is the message of each error, sorted.
func SortedErrorStrings(errs field.ErrorList) []string {
	out := ErrorStrings(errs)
	sort.Strings(out)
	return out
}

// DiffStrings reports an error when got is not want.
func DiffStrings(t testing.TB, want, got []string) {
	t.Helper()
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("unexpected result (-want +got):\n%s", diff)
	}
}
