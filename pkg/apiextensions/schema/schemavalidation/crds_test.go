package schemavalidation

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/kapi-dev/kapi/internal/required"
	structuralschema "github.com/kapi-dev/kapi/pkg/apiextensions/schema"
	"github.com/kapi-dev/kapi/pkg/apiextensions/schema/defaulting"
	"github.com/kapi-dev/kapi/pkg/apiextensions/schema/internal/schematest"
	"github.com/kapi-dev/kapi/pkg/apiextensions/schema/pruning"
	"github.com/kapi-dev/kapi/pkg/apiextensions/schema/valuevalidation"
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

// TestSharedCRDs checks every version schema of the real-world CRDs the way
// kube-apiserver does when they are installed, converts it, and prunes a
// sample object made only of known fields (plus one unknown field).
func TestSharedCRDs(t *testing.T) {
	crds := loadSharedCRDs(t)
	names := slices.Sorted(maps.Keys(crds))
	for _, name := range names {
		crd := crds[name]
		for i, version := range crd.Spec.Versions {
			t.Run(name+"/"+version.Name, func(t *testing.T) {
				s := version.Schema.OpenAPIV3Schema
				path := field.NewPath("spec", "versions").Index(i).Child("schema", "openAPIV3Schema")
				opts := SchemaValidationOptions{StatusSubresource: version.Subresources != nil && version.Subresources.Status != nil}
				if errs := ValidateCustomResourceDefinitionSchema(path, s, opts); len(errs) > 0 {
					t.Fatalf("schema rejected: %v", errs.ToAggregate())
				}

				structural, err := structuralschema.NewStructural(s)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := valuevalidation.NewValidator(s); err != nil {
					t.Fatal(err)
				}

				sample := sampleObject(structural, 0).(map[string]interface{})
				sample["apiVersion"] = crd.Spec.Group + "/" + version.Name
				sample["kind"] = crd.Spec.Names.Kind
				sample["metadata"] = map[string]interface{}{"name": "sample", "namespace": "default"}
				want := runtime.DeepCopyJSONValue(sample)
				if spec, ok := sample["spec"].(map[string]interface{}); ok && !structural.Properties["spec"].XPreserveUnknownFields {
					spec["notInTheSchema"] = "x"
				}

				pruned := pruning.Prune(sample, structural, true)
				if diff := cmp.Diff([]string{"spec.notInTheSchema"}, pruned); diff != "" {
					t.Errorf("pruned fields (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff(want, sample); diff != "" {
					t.Errorf("known fields were pruned (-want +got):\n%s", diff)
				}
			})
		}
	}
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

// TestSharedCRDSamples runs the custom resources of prometheus-operator's
// getting-started guide through the write path: nothing is pruned, and
// they validate.
func TestSharedCRDSamples(t *testing.T) {
	crds := loadSharedCRDs(t)
	byKind := map[string]*apiextensionsv1.CustomResourceDefinition{}
	for _, crd := range crds {
		byKind[crd.Spec.Group+"/"+crd.Spec.Names.Kind] = crd
	}

	samples := loadYAMLDocuments(t, "prometheus-operator", "samples")
	paths := slices.Sorted(maps.Keys(samples))
	tested := 0
	for _, path := range paths {
		for i, doc := range samples[path] {
			obj := schematest.Object(t, string(doc)).(map[string]interface{})
			apiVersion, _ := obj["apiVersion"].(string)
			group, version, _ := strings.Cut(apiVersion, "/")
			crd := byKind[group+"/"+fmt.Sprint(obj["kind"])]
			if crd == nil {
				continue // a built-in kind
			}
			t.Run(fmt.Sprintf("%s#%d", filepath.Base(path), i), func(t *testing.T) {
				var schema *apiextensionsv1.JSONSchemaProps
				for _, v := range crd.Spec.Versions {
					if v.Name == version {
						schema = v.Schema.OpenAPIV3Schema
					}
				}
				structural, err := structuralschema.NewStructural(schema)
				if err != nil {
					t.Fatal(err)
				}
				validator, err := valuevalidation.NewValidator(schema)
				if err != nil {
					t.Fatal(err)
				}
				if pruned := pruning.Prune(obj, structural, true); len(pruned) > 0 {
					t.Errorf("pruned %v", pruned)
				}
				defaulting.PruneNonNullableNullsWithoutDefaults(obj, structural)
				defaulting.Default(obj, structural)
				if errs := validator.Validate(nil, obj); len(errs) > 0 {
					t.Errorf("invalid: %v", errs.ToAggregate())
				}
			})
			tested++
		}
	}
	if tested == 0 {
		t.Fatal("no custom resource among the samples")
	}
}

// certificate is a mid-sized custom resource: a cert-manager Certificate
// with most of its spec and a status.
const certificate = `
apiVersion: cert-manager.io/v1
kind: Certificate
metadata:
  name: web
  namespace: default
  labels: {app: web, tier: frontend}
  annotations: {owner: team-a}
spec:
  secretName: web-tls
  commonName: web.example.com
  dnsNames: [web.example.com, www.example.com, api.example.com, static.example.com]
  ipAddresses: [10.0.0.1, 10.0.0.2]
  uris: ["spiffe://cluster.local/ns/default/sa/web"]
  duration: 2160h
  renewBefore: 360h
  isCA: false
  usages: [server auth, client auth, digital signature, key encipherment]
  issuerRef: {name: letsencrypt, kind: ClusterIssuer, group: cert-manager.io}
  privateKey: {algorithm: ECDSA, size: 256, rotationPolicy: Always, encoding: PKCS8}
  subject:
    organizations: [Example Inc]
    organizationalUnits: [Web]
    countries: [DE]
    localities: [Berlin]
    streetAddresses: [Main Street 1]
    postalCodes: ["10115"]
  secretTemplate:
    labels: {app: web}
    annotations: {reflector: enabled}
  keystores:
    pkcs12:
      create: true
      profile: Modern2023
      passwordSecretRef: {name: web-pkcs12, key: password}
  additionalOutputFormats: [{type: CombinedPEM}, {type: DER}]
  revisionHistoryLimit: 3
status:
  conditions:
  - {type: Ready, status: "True", reason: Ready, message: Certificate is up to date and has not expired, lastTransitionTime: "2026-01-02T03:04:05Z", observedGeneration: 2}
  - {type: Issuing, status: "False", reason: Done, message: Issued, lastTransitionTime: "2026-01-02T03:04:05Z", observedGeneration: 2}
  notBefore: "2026-01-02T03:04:05Z"
  notAfter: "2026-04-02T03:04:05Z"
  renewalTime: "2026-03-18T03:04:05Z"
  revision: 4
`

func certificateSchema(b *testing.B) *apiextensionsv1.JSONSchemaProps {
	b.Helper()
	crd, found := loadSharedCRDs(b)["certificates.cert-manager.io"]
	if !found {
		required.Missing(b, "certificates.cert-manager.io in ../shared/crds", errors.New("not in the corpus"))
	}
	return crd.Spec.Versions[0].Schema.OpenAPIV3Schema
}

// BenchmarkCertificate measures the per-request work of the write path on
// a mid-sized object: prune, default, validate (conversion of the schema
// happens once, outside the loop).
func BenchmarkCertificate(b *testing.B) {
	schema := certificateSchema(b)
	structural, err := structuralschema.NewStructural(schema)
	if err != nil {
		b.Fatal(err)
	}
	validator, err := valuevalidation.NewValidator(schema)
	if err != nil {
		b.Fatal(err)
	}
	original := schematest.Object(b, certificate)
	if errs := validator.Validate(nil, original); len(errs) > 0 {
		b.Fatalf("the benchmark object is invalid: %v", errs.ToAggregate())
	}

	b.Run("Prune", func(b *testing.B) {
		obj := runtime.DeepCopyJSONValue(original)
		b.ReportAllocs()
		for b.Loop() {
			pruning.Prune(obj, structural, true)
		}
	})
	b.Run("Default", func(b *testing.B) {
		obj := runtime.DeepCopyJSONValue(original)
		b.ReportAllocs()
		for b.Loop() {
			defaulting.PruneNonNullableNullsWithoutDefaults(obj, structural)
			defaulting.Default(obj, structural)
		}
	})
	b.Run("Validate", func(b *testing.B) {
		obj := runtime.DeepCopyJSONValue(original)
		b.ReportAllocs()
		for b.Loop() {
			validator.Validate(nil, obj)
		}
	})
	b.Run("ValidateUpdate", func(b *testing.B) {
		obj := runtime.DeepCopyJSONValue(original)
		old := runtime.DeepCopyJSONValue(original)
		b.ReportAllocs()
		for b.Loop() {
			validator.ValidateUpdate(nil, obj, old)
		}
	})
	b.Run("PruneDefaultValidate", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			b.StopTimer()
			obj := runtime.DeepCopyJSONValue(original)
			b.StartTimer()
			pruning.Prune(obj, structural, true)
			defaulting.PruneNonNullableNullsWithoutDefaults(obj, structural)
			defaulting.Default(obj, structural)
			validator.Validate(nil, obj)
		}
	})
}

// BenchmarkNewValidator measures the once-per-CRD-version cost.
func BenchmarkNewValidator(b *testing.B) {
	schema := certificateSchema(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := structuralschema.NewStructural(schema); err != nil {
			b.Fatal(err)
		}
		if _, err := valuevalidation.NewValidator(schema); err != nil {
			b.Fatal(err)
		}
	}
}
