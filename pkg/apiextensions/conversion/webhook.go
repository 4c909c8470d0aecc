package conversion

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/uuid"
)

// webhookTimeout bounds one conversion call, as kube-apiserver does.
const webhookTimeout = 30 * time.Second

// maxReviewBytes bounds a webhook's answer.
const maxReviewBytes = 64 << 20

// Webhook converts by sending a ConversionReview to the CRD's conversion
// webhook over HTTPS, trusting the CRD's caBundle (the system roots
// without one).
type Webhook struct {
	kind          schema.GroupKind
	url           string
	reviewVersion string // apiextensions.k8s.io/v1 or v1beta1
	client        *http.Client
}

// NewWebhook returns the converter of a CRD with strategy Webhook.
func NewWebhook(crd *apiextensionsv1.CustomResourceDefinition) (*Webhook, error) {
	conv := crd.Spec.Conversion
	if conv == nil || conv.Webhook == nil || conv.Webhook.ClientConfig == nil {
		return nil, errors.New("conversion strategy Webhook without a webhook client config")
	}
	w := &Webhook{kind: schema.GroupKind{Group: crd.Spec.Group, Kind: crd.Status.AcceptedNames.Kind}}
	for _, v := range conv.Webhook.ConversionReviewVersions {
		if v == "v1" || v == "v1beta1" {
			w.reviewVersion = "apiextensions.k8s.io/" + v
			break
		}
	}
	if w.reviewVersion == "" {
		return nil, errors.New("no supported conversion review versions")
	}
	cc := conv.Webhook.ClientConfig
	switch {
	case cc.URL != nil:
		w.url = *cc.URL
	case cc.Service != nil:
		port := int32(443)
		if cc.Service.Port != nil {
			port = *cc.Service.Port
		}
		path := ""
		if cc.Service.Path != nil {
			path = *cc.Service.Path
		}
		w.url = "https://" + net.JoinHostPort(cc.Service.Name+"."+cc.Service.Namespace+".svc", strconv.Itoa(int(port))) + path
	default:
		return nil, errors.New("the webhook client config has neither url nor service")
	}
	tlsConfig := &tls.Config{MinVersion: tls.VersionTLS12}
	if len(cc.CABundle) > 0 {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(cc.CABundle) {
			return nil, errors.New("the webhook caBundle holds no certificate")
		}
		tlsConfig.RootCAs = pool
	}
	if cc.Service != nil {
		// The service's certificate names the service.
		tlsConfig.ServerName = cc.Service.Name + "." + cc.Service.Namespace + ".svc"
	}
	w.client = &http.Client{
		Timeout:   webhookTimeout,
		Transport: &http.Transport{TLSClientConfig: tlsConfig, ForceAttemptHTTP2: true, MaxIdleConnsPerHost: 8},
	}
	return w, nil
}

// review is a ConversionReview of either version: they have one shape.
type review struct {
	APIVersion string                              `json:"apiVersion"`
	Kind       string                              `json:"kind"`
	Request    *apiextensionsv1.ConversionRequest  `json:"request,omitempty"`
	Response   *apiextensionsv1.ConversionResponse `json:"response,omitempty"`
}

func (w *Webhook) Convert(ctx context.Context, objs []*unstructured.Unstructured, to schema.GroupVersion) ([]*unstructured.Unstructured, error) {
	out := make([]*unstructured.Unstructured, len(objs))
	var send []int // indexes of the objects to convert
	for i, obj := range objs {
		if obj.GroupVersionKind().GroupVersion() == to {
			out[i] = obj
			continue
		}
		send = append(send, i)
	}
	if len(send) == 0 {
		return out, nil
	}
	from := objs[send[0]].GroupVersionKind()
	fail := func(format string, args ...interface{}) error {
		return fmt.Errorf("conversion webhook for %v "+format, append([]interface{}{from}, args...)...)
	}
	req := &apiextensionsv1.ConversionRequest{UID: types.UID(uuid.NewUUID()), DesiredAPIVersion: to.String()}
	for _, i := range send {
		req.Objects = append(req.Objects, runtime.RawExtension{Object: objs[i]})
	}
	resp, err := w.call(ctx, req)
	if err != nil {
		return nil, fail("failed: %v", err)
	}
	if len(resp.ConvertedObjects) != len(send) {
		return nil, fail("returned %d objects, expected %d", len(resp.ConvertedObjects), len(send))
	}
	for n, i := range send {
		converted := &unstructured.Unstructured{}
		if err := converted.UnmarshalJSON(resp.ConvertedObjects[n].Raw); err != nil {
			return nil, fail("returned invalid converted object at index %v: %v", n, err)
		}
		if got := converted.GroupVersionKind().GroupVersion(); got != to {
			return nil, fail("returned invalid converted object at index %v: invalid groupVersion (expected %v, received %v)", n, to, got)
		}
		if got := converted.GetKind(); got != objs[i].GetKind() {
			return nil, fail("returned invalid converted object at index %v: invalid kind (expected %v, received %v)", n, objs[i].GetKind(), got)
		}
		if err := keepMetadata(objs[i], converted); err != nil {
			return nil, fail("returned invalid metadata in object at index %v: %v", n, err)
		}
		out[i] = converted
	}
	return out, nil
}

// call posts the review and checks the answer belongs to it and succeeded.
func (w *Webhook) call(ctx context.Context, req *apiextensionsv1.ConversionRequest) (*apiextensionsv1.ConversionResponse, error) {
	body, err := json.Marshal(review{APIVersion: w.reviewVersion, Kind: "ConversionReview", Request: req})
	if err != nil {
		return nil, err
	}
	httpReq, err := http.NewRequestWithContext(ctx, http.MethodPost, w.url+"?timeout="+webhookTimeout.String(), bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	httpReq.Header.Set("Content-Type", "application/json")
	httpReq.Header.Set("Accept", "application/json")
	httpResp, err := w.client.Do(httpReq)
	if err != nil {
		return nil, err
	}
	defer httpResp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(httpResp.Body, maxReviewBytes))
	if err != nil {
		return nil, err
	}
	if httpResp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("the server responded with status %d: %s", httpResp.StatusCode, bytes.TrimSpace(data))
	}
	var answer review
	if err := json.Unmarshal(data, &answer); err != nil {
		return nil, err
	}
	if answer.APIVersion != w.reviewVersion || answer.Kind != "ConversionReview" {
		return nil, fmt.Errorf("expected webhook response of %s, Kind=ConversionReview, got %s, Kind=%s", w.reviewVersion, answer.APIVersion, answer.Kind)
	}
	if answer.Response == nil {
		return nil, errors.New("no response provided")
	}
	if answer.Response.UID != req.UID {
		return nil, fmt.Errorf("expected response.uid=%q, got %q", req.UID, answer.Response.UID)
	}
	if answer.Response.Result.Status != metav1.StatusSuccess {
		if answer.Response.Result.Message != "" {
			return nil, errors.New(answer.Response.Result.Message)
		}
		return nil, fmt.Errorf("response.result.status was '%s', not 'Success'", answer.Response.Result.Status)
	}
	return answer.Response, nil
}

// keepMetadata gives converted the metadata of original: a webhook may
// change labels and annotations, nothing else of it.
func keepMetadata(original, converted *unstructured.Unstructured) error {
	if converted.GetName() != original.GetName() {
		return fmt.Errorf("must have the same name: %v != %v", original.GetName(), converted.GetName())
	}
	if converted.GetNamespace() != original.GetNamespace() {
		return fmt.Errorf("must have the same namespace: %v != %v", original.GetNamespace(), converted.GetNamespace())
	}
	if converted.GetUID() != original.GetUID() {
		return fmt.Errorf("must have the same UID: %v != %v", original.GetUID(), converted.GetUID())
	}
	meta, ok := converted.Object["metadata"].(map[string]interface{})
	if !ok {
		return errors.New("missing metadata in converted object")
	}
	for _, field := range []string{"labels", "annotations"} {
		if m, ok := meta[field].(map[string]interface{}); ok {
			for k, v := range m {
				if _, ok := v.(string); !ok {
					return fmt.Errorf("metadata.%s[%s] must be a string, but is %T in converted object", field, k, v)
				}
			}
		}
	}
	labels, annotations := converted.GetLabels(), converted.GetAnnotations()
	restored, _ := original.Object["metadata"].(map[string]interface{})
	converted.Object["metadata"] = runtime.DeepCopyJSONValue(restored)
	converted.SetLabels(labels)
	converted.SetAnnotations(annotations)
	return nil
}
