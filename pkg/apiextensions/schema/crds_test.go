package schema

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/kube-openapi/pkg/validation/strfmt"
	"k8s.io/kube-openapi/pkg/validation/validate"
	"sigs.k8s.io/yaml"

	"github.com/kapi-dev/kapi/internal/required"
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
	names := sortedKeys(crds)
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

				structural, err := NewStructural(s)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := NewValidator(s); err != nil {
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

				pruned := Prune(sample, structural, true)
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
func sampleObject(s *Structural, depth int) interface{} {
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
	paths := sortedKeys(samples)
	tested := 0
	for _, path := range paths {
		for i, doc := range samples[path] {
			obj := objectFromYAML(t, string(doc)).(map[string]interface{})
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
				structural, err := NewStructural(schema)
				if err != nil {
					t.Fatal(err)
				}
				validator, err := NewValidator(schema)
				if err != nil {
					t.Fatal(err)
				}
				if pruned := Prune(obj, structural, true); len(pruned) > 0 {
					t.Errorf("pruned %v", pruned)
				}
				PruneNonNullableNullsWithoutDefaults(obj, structural)
				Default(obj, structural)
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
	structural, err := NewStructural(schema)
	if err != nil {
		b.Fatal(err)
	}
	validator, err := NewValidator(schema)
	if err != nil {
		b.Fatal(err)
	}
	original := objectFromYAML(b, certificate)
	if errs := validator.Validate(nil, original); len(errs) > 0 {
		b.Fatalf("the benchmark object is invalid: %v", errs.ToAggregate())
	}

	b.Run("Prune", func(b *testing.B) {
		obj := runtime.DeepCopyJSONValue(original)
		b.ReportAllocs()
		for b.Loop() {
			Prune(obj, structural, true)
		}
	})
	b.Run("Default", func(b *testing.B) {
		obj := runtime.DeepCopyJSONValue(original)
		b.ReportAllocs()
		for b.Loop() {
			PruneNonNullableNullsWithoutDefaults(obj, structural)
			Default(obj, structural)
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
			Prune(obj, structural, true)
			PruneNonNullableNullsWithoutDefaults(obj, structural)
			Default(obj, structural)
			validator.Validate(nil, obj)
		}
	})
}

// BenchmarkNewValidator measures the once-per-CRD-version cost.
func BenchmarkNewValidator(b *testing.B) {
	schema := certificateSchema(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := NewStructural(schema); err != nil {
			b.Fatal(err)
		}
		if _, err := NewValidator(schema); err != nil {
			b.Fatal(err)
		}
	}
}

// TestValidityCheckerNeverAcceptsInvalid checks the fast path of the
// Validator against the value validator it stands in for, on samples of
// the real-world schemas with random damage: whenever the checker says
// "valid", the value validator must agree.
func TestValidityCheckerNeverAcceptsInvalid(t *testing.T) {
	crds := loadSharedCRDs(t)
	rng := rand.New(rand.NewSource(1))
	agreedValid, checked := 0, 0
	for _, name := range sortedKeys(crds) {
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
					t.Errorf("%s/%s: the checker accepts what the value validator rejects: %s", name, version.Name, toJSON(t, obj))
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
func minimalObject(s *Structural) interface{} {
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
