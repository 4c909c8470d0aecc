package e2e

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"
)

// gadgetsCRD has two versions: v1 (stored) calls the field spec.size, v2
// calls it spec.length. Only the webhook knows how to convert.
func gadgetsCRD(webhookURL string, caBundle []byte) *apiextensionsv1.CustomResourceDefinition {
	version := func(name, field string, storage bool) apiextensionsv1.CustomResourceDefinitionVersion {
		return apiextensionsv1.CustomResourceDefinitionVersion{
			Name: name, Served: true, Storage: storage,
			Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
				Type: "object",
				Properties: map[string]apiextensionsv1.JSONSchemaProps{
					"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{field: {Type: "integer"}}},
				},
			}},
		}
	}
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "gadgets.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "example.com",
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "gadgets", Kind: "Gadget"},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{
				version("v1", "size", true), version("v2", "length", false),
			},
			Conversion: &apiextensionsv1.CustomResourceConversion{
				Strategy: apiextensionsv1.WebhookConverter,
				Webhook: &apiextensionsv1.WebhookConversion{
					ClientConfig:             &apiextensionsv1.WebhookClientConfig{URL: ptr.To(webhookURL + "/convert"), CABundle: caBundle},
					ConversionReviewVersions: []string{"v1"},
				},
			},
		},
	}
}

// conversionWebhook converts gadgets between v1 and v2, counting calls;
// it fails every request while failing is set.
type conversionWebhook struct {
	calls   atomic.Int64
	failing atomic.Bool
}

func (c *conversionWebhook) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.calls.Add(1)
	body, _ := io.ReadAll(r.Body)
	review := &apiextensionsv1.ConversionReview{}
	if err := json.Unmarshal(body, review); err != nil || review.Request == nil {
		http.Error(w, "bad review", http.StatusBadRequest)
		return
	}
	resp := &apiextensionsv1.ConversionResponse{UID: review.Request.UID, Result: metav1.Status{Status: metav1.StatusSuccess}}
	if c.failing.Load() {
		resp.Result = metav1.Status{Status: metav1.StatusFailure, Message: "the webhook is down for maintenance"}
	}
	for _, raw := range review.Request.Objects {
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(raw.Raw); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		spec, _ := u.Object["spec"].(map[string]interface{})
		from, to := "size", "length"
		if review.Request.DesiredAPIVersion == "example.com/v1" {
			from, to = to, from
		}
		if v, ok := spec[from]; ok {
			delete(spec, from)
			spec[to] = v
		}
		u.SetAPIVersion(review.Request.DesiredAPIVersion)
		u.SetLabels(map[string]string{"converted-to": strings.TrimPrefix(review.Request.DesiredAPIVersion, "example.com/")})
		resp.ConvertedObjects = append(resp.ConvertedObjects, runtime.RawExtension{Object: u})
	}
	review.Response, review.Request = resp, nil
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(review)
}

// TestConversionWebhook serves a CRD with two versions and a conversion
// webhook run by the test over HTTPS, and reads and writes both versions.
func TestConversionWebhook(t *testing.T) {
	hook := &conversionWebhook{}
	srv := httptest.NewTLSServer(hook)
	defer srv.Close()
	caBundle := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})

	s := startKapi(t)
	ctx := context.Background()
	createCRD(t, apiextensionsClient(t, s.ClientConfig), gadgetsCRD(srv.URL, caBundle))
	dyn := dynamicClient(t, s.ClientConfig)
	v1 := dyn.Resource(schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "gadgets"}).Namespace("default")
	v2 := dyn.Resource(schema.GroupVersionResource{Group: "example.com", Version: "v2", Resource: "gadgets"}).Namespace("default")

	w, err := v1.Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

	t.Run("written in v2, stored and read in v1", func(t *testing.T) {
		in := &unstructured.Unstructured{Object: map[string]interface{}{
			"apiVersion": "example.com/v2", "kind": "Gadget",
			"metadata": map[string]interface{}{"name": "g"},
			"spec":     map[string]interface{}{"length": int64(7)},
		}}
		out, err := v2.Create(ctx, in, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if out.GetAPIVersion() != "example.com/v2" || out.Object["spec"].(map[string]interface{})["length"] != int64(7) {
			t.Errorf("create answered %v", out.Object)
		}
		got, err := v1.Get(ctx, "g", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got.GetAPIVersion() != "example.com/v1" || got.Object["spec"].(map[string]interface{})["size"] != int64(7) {
			t.Errorf("v1 read %v", got.Object)
		}
		select {
		case e := <-w.ResultChan():
			u := e.Object.(*unstructured.Unstructured)
			if e.Type != watch.Added || u.GetAPIVersion() != "example.com/v1" || u.Object["spec"].(map[string]interface{})["size"] != int64(7) {
				t.Errorf("v1 watch event %s %v", e.Type, u.Object)
			}
		case <-ctx.Done():
		}
	})

	t.Run("read and listed in v2", func(t *testing.T) {
		got, err := v2.Get(ctx, "g", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got.Object["spec"].(map[string]interface{})["length"] != int64(7) || got.GetLabels()["converted-to"] != "v2" {
			t.Errorf("v2 read %v", got.Object)
		}
		list, err := v2.List(ctx, metav1.ListOptions{})
		if err != nil || len(list.Items) != 1 || list.Items[0].GetAPIVersion() != "example.com/v2" ||
			list.Items[0].Object["spec"].(map[string]interface{})["length"] != int64(7) {
			t.Fatalf("v2 list %v %v", list, err)
		}
	})

	t.Run("a failing webhook is an error, not a wrong object", func(t *testing.T) {
		hook.failing.Store(true)
		defer hook.failing.Store(false)
		_, err := v2.Get(ctx, "g", metav1.GetOptions{})
		if !apierrors.IsInternalError(err) || !strings.Contains(err.Error(), "the webhook is down for maintenance") {
			t.Errorf("want 500 quoting the webhook, got %v", err)
		}
		if _, err := v1.Get(ctx, "g", metav1.GetOptions{}); err != nil {
			t.Errorf("the storage version needs no webhook: %v", err)
		}
	})

	if hook.calls.Load() == 0 {
		t.Error("the webhook was never called")
	}
}
