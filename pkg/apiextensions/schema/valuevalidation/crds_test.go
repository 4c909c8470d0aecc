package valuevalidation

import (
	"bytes"
	"maps"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/kube-openapi/pkg/validation/strfmt"
	"k8s.io/kube-openapi/pkg/validation/validate"
	"sigs.k8s.io/yaml"

	"github.com/kapi-dev/kapi/internal/required"
	structuralschema "github.com/kapi-dev/kapi/pkg/apiextensions/schema"
	"github.com/kapi-dev/kapi/pkg/apiextensions/schema/internal/schematest"
)

// loadYAMLDocuments returns the documents of every YAML file below dir of
// the corpus of real-world CRDs (name -> documents); the corpus is
// required (see package required).
func loadYAMLDocuments(t testing.TB, rel ...string) map[string][][]byte {
	t.Helper()
	dir := required.CRDs(t, rel...)
	docs := map[string][][]byte{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".yaml") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, doc := range bytes.Split(data, []byte("\n---")) {
			if len(bytes.TrimSpace(doc)) > 0 {
				docs[path] = append(docs[path], doc)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return docs
}

func loadSharedCRDs(t testing.TB) map[string]*apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	crds := map[string]*apiextensionsv1.CustomResourceDefinition{}
	for path, docs := range loadYAMLDocuments(t) {
		for _, doc := range docs {
			crd := &apiextensionsv1.CustomResourceDefinition{}
			if err := yaml.Unmarshal(doc, crd); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			if crd.Kind == "CustomResourceDefinition" {
				crds[crd.Name] = crd
			}
		}
	}
	if len(crds) == 0 {
		t.Fatal("no CRDs found")
	}
	return crds
}

// sampleObject builds a value with every field the schema specifies (to a
// limited depth), one key for maps and one item for lists.
func sampleObject(s *structuralschema.Structural, depth int) interface{} {
	switch {
	case s == nil:
		return "x"
	case len(s.Enum) > 0:
		return runtime.DeepCopyJSONValue(s.Enum[0])
	case s.XIntOrString:
		return int64(1)
	}
	switch s.Type {
	case "object":
		m := map[string]interface{}{}
		if depth > 8 {
			return m
		}
		for name, prop := range s.Properties {
			m[name] = sampleObject(prop, depth+1)
		}
		if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
			m["key"] = sampleObject(s.AdditionalProperties.Schema, depth+1)
		}
		return m
	case "array":
		if depth > 8 {
			return []interface{}{}
		}
		return []interface{}{sampleObject(s.Items, depth+1)}
	case "integer":
		return int64(1)
	case "number":
		return 1.5
	case "boolean":
		return true
	case "string":
		return "x"
	}
	return map[string]interface{}{}
}

// TestValidityCheckerNeverAcceptsInvalid checks the fast path of the
// Validator against the value validator it stands in for, on samples of
// the real-world schemas with random damage: whenever the checker says
// "valid", the value validator must agree.
func TestValidityCheckerNeverAcceptsInvalid(t *testing.T) {
	crds := loadSharedCRDs(t)
	rng := rand.New(rand.NewSource(1))
	agreedValid, checked := 0, 0
	for _, name := range slices.Sorted(maps.Keys(crds)) {
		for _, version := range crds[name].Spec.Versions {
			v, err := NewValidator(version.Schema.OpenAPIV3Schema)
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 30; i++ {
				var obj interface{}
				if i%2 == 0 {
					obj = sampleObject(v.Structural(), 0)
				} else {
					obj = minimalObject(v.Structural())
				}
				damage(rng, obj, 0.02*float64(i%4))
				fast := v.fast.valid(obj)
				slow := validate.NewSchemaValidator(v.openAPI, nil, "", strfmt.Default).Validate(obj).IsValid()
				if fast && !slow {
					t.Errorf("%s/%s: the checker accepts what the value validator rejects: %s", name, version.Name, schematest.JSON(t, obj))
				}
				if fast == slow && slow {
					agreedValid++
				}
				checked++
			}
		}
	}
	t.Logf("%d of %d samples valid", agreedValid, checked)
	if agreedValid == 0 {
		t.Errorf("no valid sample among %d: the test checks nothing", checked)
	}
}

// minimalObject builds a value with only the required fields, and strings
// that satisfy the common formats.
func minimalObject(s *structuralschema.Structural) interface{} {
	switch {
	case s == nil:
		return map[string]interface{}{}
	case len(s.Enum) > 0:
		return runtime.DeepCopyJSONValue(s.Enum[0])
	case s.XIntOrString:
		return int64(1)
	}
	switch s.Type {
	case "object":
		m := map[string]interface{}{}
		for _, name := range s.Required {
			m[name] = minimalObject(s.Properties[name])
		}
		return m
	case "array":
		return []interface{}{}
	case "integer":
		return int64(1)
	case "number":
		return 1.5
	case "boolean":
		return true
	case "string":
		switch s.Format {
		case "date-time":
			return "2026-01-02T03:04:05Z"
		case "duration":
			return "1s"
		}
		return "x"
	}
	return map[string]interface{}{}
}

// damage replaces a fraction of the values in x by values of other types.
func damage(rng *rand.Rand, x interface{}, rate float64) {
	replacements := []interface{}{nil, "s", int64(-1), 1.5, true, []interface{}{}, map[string]interface{}{}}
	switch x := x.(type) {
	case map[string]interface{}:
		for k, v := range x {
			if rng.Float64() < rate {
				x[k] = replacements[rng.Intn(len(replacements))]
				continue
			}
			damage(rng, v, rate)
		}
	case []interface{}:
		for i, v := range x {
			if rng.Float64() < rate {
				x[i] = replacements[rng.Intn(len(replacements))]
				continue
			}
			damage(rng, v, rate)
		}
	}
}
