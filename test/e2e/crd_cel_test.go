package e2e

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// celCRD is a CRD whose schema carries x-kubernetes-validations rules of
// every kind: a plain rule, a messageExpression with a reason and a
// fieldPath, and a transition rule.
const celCRD = `{
  "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
  "metadata": {"name": "scalers.example.com"},
  "spec": {
    "group": "example.com", "scope": "Namespaced",
    "names": {"plural": "scalers", "kind": "Scaler"},
    "versions": [{"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": {
      "type": "object",
      "properties": {"spec": {
        "type": "object",
        "x-kubernetes-validations": [
          {"rule": "self.minReplicas <= self.maxReplicas", "message": "minReplicas must not exceed maxReplicas"},
          {"rule": "self.maxReplicas <= 100", "messageExpression": "'maxReplicas is more than 100 in ' + self.mode + ' mode'",
           "reason": "FieldValueForbidden", "fieldPath": ".maxReplicas"}
        ],
        "properties": {
          "minReplicas": {"type": "integer"},
          "maxReplicas": {"type": "integer"},
          "mode": {"type": "string", "maxLength": 10, "x-kubernetes-validations": [{"rule": "self == oldSelf", "message": "mode is immutable"}]}
        }
      }}
    }}}]
  }
}`

// TestCELValidationRules: x-kubernetes-validations rules accept and reject
// custom resources with kube-apiserver's errors, and a rule that does not
// compile keeps the CRD out.
func TestCELValidationRules(t *testing.T) {
	s := startKapi(t)
	ctx := context.Background()
	crds := apiextensionsClient(t, s.ClientConfig)
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := json.Unmarshal([]byte(celCRD), crd); err != nil {
		t.Fatal(err)
	}
	createCRD(t, crds, crd)
	scalers := dynamicClient(t, s.ClientConfig).Resource(schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "scalers"}).Namespace("default")
	scaler := func(name string, min, max int64) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]interface{}{
			"apiVersion": "example.com/v1", "kind": "Scaler", "metadata": map[string]interface{}{"name": name},
			"spec": map[string]interface{}{"minReplicas": min, "maxReplicas": max, "mode": "fast"},
		}}
	}

	if _, err := scalers.Create(ctx, scaler("ok", 1, 3), metav1.CreateOptions{}); err != nil {
		t.Fatalf("a valid object was rejected: %v", err)
	}

	tests := []struct {
		name  string
		obj   *unstructured.Unstructured
		cause metav1.StatusCause
	}{{
		name:  "a rule's message",
		obj:   scaler("inverted", 5, 3),
		cause: metav1.StatusCause{Type: metav1.CauseTypeFieldValueInvalid, Field: "spec", Message: "Invalid value: minReplicas must not exceed maxReplicas"},
	}, {
		name:  "a messageExpression, reason and fieldPath",
		obj:   scaler("huge", 1, 500),
		cause: metav1.StatusCause{Type: metav1.CauseType(field.ErrorTypeForbidden), Field: "spec.maxReplicas", Message: "Forbidden: maxReplicas is more than 100 in fast mode"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := scalers.Create(ctx, tt.obj, metav1.CreateOptions{})
			if !apierrors.IsInvalid(err) {
				t.Fatalf("want 422, got %v", err)
			}
			causes := err.(apierrors.APIStatus).Status().Details.Causes
			if len(causes) != 1 || causes[0] != tt.cause {
				t.Errorf("causes %+v\nwant  %+v", causes, tt.cause)
			}
		})
	}

	t.Run("a transition rule sees the old object", func(t *testing.T) {
		_, err := scalers.Patch(ctx, "ok", types.MergePatchType, []byte(`{"spec":{"mode":"slow"}}`), metav1.PatchOptions{})
		if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "spec.mode: Invalid value: \"slow\": mode is immutable") {
			t.Fatalf("want the immutability error, got %v", err)
		}
		if _, err := scalers.Patch(ctx, "ok", types.MergePatchType, []byte(`{"spec":{"maxReplicas":4}}`), metav1.PatchOptions{}); err != nil {
			t.Errorf("an update keeping mode was rejected: %v", err)
		}
	})

	t.Run("a rule that does not compile is a CRD validation error", func(t *testing.T) {
		bad := crd.DeepCopy()
		bad.Name, bad.Spec.Names = "brokens.example.com", apiextensionsv1.CustomResourceDefinitionNames{Plural: "brokens", Kind: "Broken"}
		spec := bad.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"]
		spec.XValidations = apiextensionsv1.ValidationRules{{Rule: "self.minReplicas <"}}
		bad.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"] = spec
		_, err := crds.ApiextensionsV1().CustomResourceDefinitions().Create(ctx, bad, metav1.CreateOptions{})
		if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "x-kubernetes-validations[0].rule") || !strings.Contains(err.Error(), "compilation failed") {
			t.Errorf("want a compilation error, got %v", err)
		}
	})
}
