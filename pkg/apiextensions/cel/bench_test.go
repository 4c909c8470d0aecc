package cel

import (
	"context"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// benchSchema is a typical operator CRD: bounds, cross-field checks, an
// immutable field, a map list with per-item rules, and labels.
const benchSchema = `type: object
x-kubernetes-validations:
- rule: "self.metadata.name.size() <= 63"
properties:
  spec:
    type: object
    x-kubernetes-validations:
    - rule: "self.minReplicas <= self.maxReplicas"
      message: minReplicas must not exceed maxReplicas
    - rule: "!has(self.paused) || !self.paused || self.minReplicas == 0"
      messageExpression: "'a paused ' + self.mode + ' deployment scales to 0'"
    - rule: "self.mode in ['Deployment', 'DaemonSet']"
    properties:
      minReplicas: {type: integer, minimum: 0}
      maxReplicas: {type: integer, maximum: 100}
      paused: {type: boolean}
      mode: {type: string, maxLength: 16}
      storageClass:
        type: string
        maxLength: 63
        x-kubernetes-validations:
        - rule: "self == oldSelf"
          message: storageClass is immutable
      image:
        type: string
        maxLength: 256
        x-kubernetes-validations:
        - rule: "self.matches('^[a-z0-9./-]+(:[a-zA-Z0-9._-]+)?$')"
      resources:
        type: object
        properties:
          memory:
            type: string
            maxLength: 16
            x-kubernetes-validations:
            - rule: "quantity(self).isLessThan(quantity('64Gi'))"
      labels:
        type: object
        maxProperties: 32
        additionalProperties: {type: string, maxLength: 63}
        x-kubernetes-validations:
        - rule: "self.all(k, k.size() <= 63)"
      ports:
        type: array
        maxItems: 16
        x-kubernetes-list-type: map
        x-kubernetes-list-map-keys: [name]
        items:
          type: object
          required: [name, port]
          properties:
            name: {type: string, maxLength: 15}
            port: {type: integer}
            protocol: {type: string, maxLength: 4}
          x-kubernetes-validations:
          - rule: "self.port > 0 && self.port < 65536"
          - rule: "!has(self.protocol) || self.protocol in ['TCP', 'UDP']"
`

const benchObject = `apiVersion: example.com/v1
kind: Widget
metadata: {name: web}
spec:
  minReplicas: 1
  maxReplicas: 5
  mode: Deployment
  storageClass: fast
  image: registry.example.com/team/web:1.2.3
  resources: {memory: 512Mi}
  labels: {app: web, tier: frontend, team: platform}
  ports:
  - {name: http, port: 8080, protocol: TCP}
  - {name: metrics, port: 9090}
`

func BenchmarkValidate(b *testing.B) {
	v := NewValidator(mustSchema(b, benchSchema))
	obj := mustObject(b, benchObject)
	old := mustObject(b, benchObject)
	ctx := context.Background()
	b.Run("create", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if errs, _ := v.Validate(ctx, nil, obj, nil, RuntimeCELCostBudget); len(errs) > 0 {
				b.Fatal(errs)
			}
		}
	})
	b.Run("update", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if errs, _ := v.Validate(ctx, nil, obj, old, RuntimeCELCostBudget); len(errs) > 0 {
				b.Fatal(errs)
			}
		}
	})
}

func BenchmarkCompile(b *testing.B) {
	b.Run("typical", func(b *testing.B) {
		schema := mustSchema(b, benchSchema)
		b.ReportAllocs()
		for b.Loop() {
			if _, errs := Compile(schema, field.NewPath("openAPIV3Schema")); len(errs) > 0 {
				b.Fatal(errs)
			}
		}
	})
	b.Run("prometheus-operator and cert-manager CRDs", func(b *testing.B) {
		crds := loadCRDs(b)
		b.ReportAllocs()
		for b.Loop() {
			for _, crd := range crds {
				for _, version := range crd.Spec.Versions {
					if _, errs := Compile(version.Schema.OpenAPIV3Schema, field.NewPath("openAPIV3Schema")); len(errs) > 0 {
						b.Fatal(errs)
					}
				}
			}
		}
	})
}

// TestBenchmarkObjectIsValid keeps the benchmark honest: its object passes
// and its schema is accepted.
func TestBenchmarkObjectIsValid(t *testing.T) {
	if _, errs := Compile(mustSchema(t, benchSchema), field.NewPath("openAPIV3Schema")); len(errs) > 0 {
		t.Fatal(errs)
	}
	got, _, _ := validate(t, NewValidator(mustSchema(t, benchSchema)), mustObject(t, benchObject), nil, RuntimeCELCostBudget)
	if len(got) > 0 {
		t.Fatal(got)
	}
}
