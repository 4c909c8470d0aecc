package apiextensions

import (
	"fmt"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"
)

// Messages of apimachinery's name validators, as kube-apiserver returns them.
const (
	dns1035Msg = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
	dns1123Msg = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)

// widgetsYAML is a valid CRD with one version, a status subresource, a
// printer column and a schema with the kinds of fields the tests point at.
const widgetsYAML = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {plural: widgets, singular: widget, kind: Widget, shortNames: [wd]}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    additionalPrinterColumns:
    - {name: Size, type: integer, jsonPath: .spec.size}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer, default: 3}
              color: {type: string, default: blue}
              labels: {type: object, additionalProperties: {type: string}}
              obj: {type: object, properties: {x: {type: string}}}
              anything: {type: object, additionalProperties: true}
          status:
            type: object
            properties:
              ready: {type: boolean}
              replicas: {type: integer}
`

// newCRD returns the widgets CRD decoded and defaulted like kube-apiserver
// does before validating it (names.listKind, conversion, storedVersions).
func newCRD(t *testing.T) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	return decodeCRD(t, []byte(widgetsYAML))
}

func decodeCRD(t *testing.T, data []byte) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.Unmarshal(data, crd); err != nil {
		t.Fatal(err)
	}
	apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(crd)
	return crd
}

// withSecondVersion adds v2, a copy of v1 that is served but not stored.
func withSecondVersion(crd *apiextensionsv1.CustomResourceDefinition) {
	v2 := *crd.Spec.Versions[0].DeepCopy()
	v2.Name, v2.Storage = "v2", false
	crd.Spec.Versions = append(crd.Spec.Versions, v2)
}

// establish marks the CRD as served, which freezes its scope and kind.
func establish(crd *apiextensionsv1.CustomResourceDefinition) {
	crd.Status.Conditions = []apiextensionsv1.CustomResourceDefinitionCondition{{Type: apiextensionsv1.Established, Status: apiextensionsv1.ConditionTrue}}
}

func webhookConversion(url string, caBundle []byte, reviewVersions ...string) *apiextensionsv1.CustomResourceConversion {
	return &apiextensionsv1.CustomResourceConversion{
		Strategy: apiextensionsv1.WebhookConverter,
		Webhook: &apiextensionsv1.WebhookConversion{
			ConversionReviewVersions: reviewVersions,
			ClientConfig:             &apiextensionsv1.WebhookClientConfig{URL: &url, CABundle: caBundle},
		},
	}
}

func serviceConversion(svc apiextensionsv1.ServiceReference) *apiextensionsv1.CustomResourceConversion {
	return &apiextensionsv1.CustomResourceConversion{
		Strategy: apiextensionsv1.WebhookConverter,
		Webhook: &apiextensionsv1.WebhookConversion{
			ConversionReviewVersions: []string{"v1"},
			ClientConfig:             &apiextensionsv1.WebhookClientConfig{Service: &svc},
		},
	}
}

// stringFields gives the spec n string fields f0..f(n-1) and every version
// selectable fields for the first selectable of them.
func stringFields(crd *apiextensionsv1.CustomResourceDefinition, n, selectable int) {
	props := map[string]apiextensionsv1.JSONSchemaProps{}
	var fields []apiextensionsv1.SelectableField
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("f%d", i)
		props[name] = apiextensionsv1.JSONSchemaProps{Type: "string"}
		if i < selectable {
			fields = append(fields, apiextensionsv1.SelectableField{JSONPath: ".spec." + name})
		}
	}
	for i := range crd.Spec.Versions {
		crd.Spec.Versions[i].Schema.OpenAPIV3Schema.Properties["spec"] = apiextensionsv1.JSONSchemaProps{Type: "object", Properties: props}
		crd.Spec.Versions[i].SelectableFields = fields
	}
}

func ptr[T any](v T) *T { return &v }

// errorStrings renders errors as clients read them in Status causes:
// "<field>: <type>: <value>: <detail>".
func errorStrings(errs field.ErrorList) []string {
	out := []string{}
	for _, e := range errs {
		out = append(out, e.Error())
	}
	return out
}

func checkErrors(t *testing.T, got field.ErrorList, want []string) {
	t.Helper()
	if want == nil {
		want = []string{}
	}
	g := errorStrings(got)
	if strings.Join(g, "\n") != strings.Join(want, "\n") {
		t.Errorf("errors:\n  got:\n    %s\n  want:\n    %s", strings.Join(g, "\n    "), strings.Join(want, "\n    "))
	}
}
