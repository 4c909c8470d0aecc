package valuevalidation

import (
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"
)

// The expected messages in these tests were recorded from
// kube-apiserver 1.37's own code on the same inputs.

// dedent removes the indentation common to the lines of a YAML snippet
// written inside an indented Go raw string.
func dedent(s string) string {
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

// schemaFromYAML parses a CRD schema written in YAML.
func schemaFromYAML(t testing.TB, y string) *apiextensionsv1.JSONSchemaProps {
	t.Helper()
	s := &apiextensionsv1.JSONSchemaProps{}
	if err := yaml.UnmarshalStrict([]byte(dedent(y)), s); err != nil {
		t.Fatalf("bad schema %q: %v", y, err)
	}
	return s
}

// objectFromYAML parses a value written in YAML into unstructured JSON, as
// the API server decodes request bodies (integral numbers are int64).
func objectFromYAML(t testing.TB, y string) interface{} {
	t.Helper()
	j, err := yaml.YAMLToJSON([]byte(dedent(y)))
	if err != nil {
		t.Fatalf("bad object %q: %v", y, err)
	}
	var v interface{}
	if err := utiljson.Unmarshal(j, &v); err != nil {
		t.Fatalf("bad object %q: %v", y, err)
	}
	return v
}

func toJSON(t testing.TB, v interface{}) string {
	t.Helper()
	b, err := utiljson.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func errorStrings(errs field.ErrorList) []string {
	var out []string
	for _, err := range errs {
		out = append(out, err.Error())
	}
	return out
}

func sortedErrorStrings(errs field.ErrorList) []string {
	out := errorStrings(errs)
	sort.Strings(out)
	return out
}

func diffStrings(t testing.TB, want, got []string) {
	t.Helper()
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("unexpected result (-want +got):\n%s", diff)
	}
}
