package schema

import (
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
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

// structuralFromYAML parses and converts a CRD schema written in YAML.
func structuralFromYAML(t testing.TB, y string) *Structural {
	t.Helper()
	s, err := NewStructural(schemaFromYAML(t, y))
	if err != nil {
		t.Fatalf("NewStructural: %v", err)
	}
	return s
}
