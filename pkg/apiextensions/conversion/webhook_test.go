package conversion

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
)

// webhookCRD points at url, trusting the certificate of srv.
func webhookCRD(srv *httptest.Server, reviewVersions ...string) *apiextensionsv1.CustomResourceDefinition {
	return &apiextensionsv1.CustomResourceDefinition{
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "example.com",
			Conversion: &apiextensionsv1.CustomResourceConversion{
				Strategy: apiextensionsv1.WebhookConverter,
				Webhook: &apiextensionsv1.WebhookConversion{
					ClientConfig: &apiextensionsv1.WebhookClientConfig{
						URL:      ptr.To(srv.URL + "/convert"),
						CABundle: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}),
					},
					ConversionReviewVersions: reviewVersions,
				},
			},
		},
		Status: apiextensionsv1.CustomResourceDefinitionStatus{AcceptedNames: apiextensionsv1.CustomResourceDefinitionNames{Kind: "Widget"}},
	}
}

func widget(version, name string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "example.com/" + version, "kind": "Widget",
		"metadata": map[string]interface{}{"name": name, "uid": "u-" + name, "resourceVersion": "5"},
		"spec":     map[string]interface{}{"size": int64(1)},
	}}
}

// reviewer answers ConversionReviews with what edit makes of each
// converted object and of the response.
func reviewer(t *testing.T, edit func(review *apiextensionsv1.ConversionReview, objs []*unstructured.Unstructured)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		review := &apiextensionsv1.ConversionReview{}
		if err := json.NewDecoder(r.Body).Decode(review); err != nil {
			t.Errorf("decoding the review: %v", err)
			return
		}
		var objs []*unstructured.Unstructured
		for _, raw := range review.Request.Objects {
			u := &unstructured.Unstructured{}
			if err := u.UnmarshalJSON(raw.Raw); err != nil {
				t.Errorf("decoding an object: %v", err)
			}
			u.SetAPIVersion(review.Request.DesiredAPIVersion)
			objs = append(objs, u)
		}
		review.Response = &apiextensionsv1.ConversionResponse{UID: review.Request.UID, Result: metav1.Status{Status: metav1.StatusSuccess}}
		edit(review, objs)
		for _, u := range objs {
			review.Response.ConvertedObjects = append(review.Response.ConvertedObjects, runtime.RawExtension{Object: u})
		}
		review.Request = nil
		_ = json.NewEncoder(w).Encode(review)
	})
}

func TestWebhookConverts(t *testing.T) {
	srv := httptest.NewTLSServer(reviewer(t, func(_ *apiextensionsv1.ConversionReview, objs []*unstructured.Unstructured) {
		for _, u := range objs {
			u.SetLabels(map[string]string{"converted": "yes"})
			u.Object["metadata"].(map[string]interface{})["resourceVersion"] = "999" // not the webhook's to change
		}
	}))
	defer srv.Close()
	w, err := NewWebhook(webhookCRD(srv, "v1"))
	if err != nil {
		t.Fatal(err)
	}
	in := []*unstructured.Unstructured{widget("v1", "a"), widget("v2", "b")}
	out, err := w.Convert(context.Background(), in, schema.GroupVersion{Group: "example.com", Version: "v2"})
	if err != nil {
		t.Fatal(err)
	}
	if out[1] != in[1] {
		t.Error("an object already in the target version was converted")
	}
	if out[0].GetAPIVersion() != "example.com/v2" || out[0].GetLabels()["converted"] != "yes" || out[0].GetResourceVersion() != "5" {
		t.Errorf("converted %v", out[0].Object)
	}
	if in[0].GetAPIVersion() != "example.com/v1" {
		t.Error("the input was modified")
	}
}

func TestWebhookErrors(t *testing.T) {
	tests := []struct {
		name string
		edit func(*apiextensionsv1.ConversionReview, []*unstructured.Unstructured)
		want string
	}{{
		name: "a failure result",
		edit: func(r *apiextensionsv1.ConversionReview, _ []*unstructured.Unstructured) {
			r.Response.Result = metav1.Status{Status: metav1.StatusFailure, Message: "cannot convert"}
		},
		want: "conversion webhook for example.com/v1, Kind=Widget failed: cannot convert",
	}, {
		name: "another review's uid",
		edit: func(r *apiextensionsv1.ConversionReview, _ []*unstructured.Unstructured) { r.Response.UID = "other" },
		want: `conversion webhook for example.com/v1, Kind=Widget failed: expected response.uid=`,
	}, {
		name: "a renamed object",
		edit: func(_ *apiextensionsv1.ConversionReview, objs []*unstructured.Unstructured) {
			objs[0].SetName("renamed")
		},
		want: "conversion webhook for example.com/v1, Kind=Widget returned invalid metadata in object at index 0: must have the same name: a != renamed",
	}, {
		name: "the wrong version",
		edit: func(_ *apiextensionsv1.ConversionReview, objs []*unstructured.Unstructured) {
			objs[0].SetAPIVersion("example.com/v3")
		},
		want: "conversion webhook for example.com/v1, Kind=Widget returned invalid converted object at index 0: invalid groupVersion (expected example.com/v2, received example.com/v3)",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewTLSServer(reviewer(t, tt.edit))
			defer srv.Close()
			w, err := NewWebhook(webhookCRD(srv, "v1"))
			if err != nil {
				t.Fatal(err)
			}
			_, err = w.Convert(context.Background(), []*unstructured.Unstructured{widget("v1", "a")}, schema.GroupVersion{Group: "example.com", Version: "v2"})
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("error %v, want %q", err, tt.want)
			}
		})
	}
}

func TestWebhookTrustsOnlyItsCABundle(t *testing.T) {
	srv := httptest.NewTLSServer(reviewer(t, func(*apiextensionsv1.ConversionReview, []*unstructured.Unstructured) {}))
	defer srv.Close()
	crd := webhookCRD(srv, "v1")
	crd.Spec.Conversion.Webhook.ClientConfig.CABundle = selfSignedCertificate(t)
	w, err := NewWebhook(crd)
	if err != nil {
		t.Fatal(err)
	}
	_, err = w.Convert(context.Background(), []*unstructured.Unstructured{widget("v1", "a")}, schema.GroupVersion{Group: "example.com", Version: "v2"})
	if err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("a webhook with an untrusted certificate was called: %v", err)
	}
	if _, err := NewWebhook(webhookCRD(srv, "v2")); err == nil {
		t.Error("a webhook speaking no review version kapi knows was accepted")
	}
}

// selfSignedCertificate is the PEM of a certificate that signed nothing
// the test servers present.
func selfSignedCertificate(t *testing.T) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "unrelated-ca"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}
