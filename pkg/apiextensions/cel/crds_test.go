package cel

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/kapi-dev/kapi/internal/required"
)

func loadCRDs(t testing.TB) []*apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	// sharedCRDs are real CRDs, as their projects publish them.
	sharedCRDs := required.CRDs(t)
	files, err := filepath.Glob(filepath.Join(sharedCRDs, "*", "*.yaml"))
	if err != nil || len(files) == 0 {
		required.Missing(t, "the real-world CRDs of ../shared/crds", fmt.Errorf("no CRDs in %s: %v", sharedCRDs, err))
	}
	var crds []*apiextensionsv1.CustomResourceDefinition
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := yaml.Unmarshal(data, crd); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		crds = append(crds, crd)
	}
	return crds
}

func countRules(s *apiextensionsv1.JSONSchemaProps) int {
	if s == nil {
		return 0
	}
	n := len(s.XValidations)
	for _, p := range s.Properties {
		n += countRules(&p)
	}
	if s.Items != nil {
		n += countRules(s.Items.Schema)
	}
	if s.AdditionalProperties != nil {
		n += countRules(s.AdditionalProperties.Schema)
	}
	return n
}

// TestSharedCRDsCompile compiles every x-kubernetes-validations rule of the
// prometheus-operator and cert-manager CRDs, which kube-apiserver accepts.
func TestSharedCRDsCompile(t *testing.T) {
	rules := 0
	for _, crd := range loadCRDs(t) {
		for i, version := range crd.Spec.Versions {
			schema := version.Schema.OpenAPIV3Schema
			rules += countRules(schema)
			path := field.NewPath("spec", "versions").Index(i).Child("schema", "openAPIV3Schema")
			v, errs := Compile(schema, path)
			if len(errs) > 0 {
				t.Errorf("%s %s: %v", crd.Name, version.Name, errs)
			}
			if (v != nil) != (countRules(schema) > 0) {
				t.Errorf("%s %s: validator %v for %d rules", crd.Name, version.Name, v, countRules(schema))
			}
		}
	}
	if rules == 0 {
		t.Fatal("found no rules to compile")
	}
	t.Logf("compiled %d rules", rules)
}

// TestSharedSamplesValidate validates the sample custom resources of
// prometheus-operator against their CRDs' rules.
func TestSharedSamplesValidate(t *testing.T) {
	byKind := map[string]*apiextensionsv1.JSONSchemaProps{}
	for _, crd := range loadCRDs(t) {
		for _, version := range crd.Spec.Versions {
			byKind[crd.Spec.Group+"/"+version.Name+"/"+crd.Spec.Names.Kind] = version.Schema.OpenAPIV3Schema
		}
	}
	samples, _ := filepath.Glob(filepath.Join(required.CRDs(t), "*", "samples", "*.yaml"))
	validated := 0
	for _, f := range samples {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		obj := map[string]interface{}{}
		if err := yaml.Unmarshal(data, &obj); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		apiVersion, _ := obj["apiVersion"].(string)
		kind, _ := obj["kind"].(string)
		schema, ok := byKind[apiVersion+"/"+kind]
		if !ok || !strings.Contains(apiVersion, "/") {
			continue // a built-in kind
		}
		obj = intsAsInt64(obj).(map[string]interface{})
		errs, _ := NewValidator(schema).Validate(context.Background(), nil, obj, nil, RuntimeCELCostBudget)
		if len(errs) > 0 {
			t.Errorf("%s: %v", filepath.Base(f), errs)
		}
		validated++
	}
	if validated == 0 {
		t.Fatal("found no custom resource samples")
	}
}
