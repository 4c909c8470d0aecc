package negotiation

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"

	"github.com/kapi-dev/kapi/internal/required"
	"github.com/kapi-dev/kapi/pkg/endpoints/responsewriters"
)

// serializers are what every kube-apiserver endpoint offers, in its order:
// JSON, YAML, protobuf.
var serializers = serializer.NewCodecFactory(runtime.NewScheme()).SupportedMediaTypes()

const (
	jsonType     = "application/json"
	yamlType     = "application/yaml"
	protobufType = "application/vnd.kubernetes.protobuf"

	// What kubectl get sends.
	kubectlAccept = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"
)

// metaV1 accepts the conversions of meta.k8s.io/v1, as a resource
// endpoint with a table convertor does.
func metaV1(kinds ...string) Target {
	return func(o MediaTypeOptions) bool {
		if o.ConvertGroup != "meta.k8s.io" || o.ConvertVersion != "v1" {
			return false
		}
		for _, k := range kinds {
			if o.Convert == k {
				return true
			}
		}
		return false
	}
}

func TestNegotiateOutput(t *testing.T) {
	table := MediaTypeOptions{Convert: "Table", ConvertGroup: "meta.k8s.io", ConvertVersion: "v1"}
	cases := []struct {
		name   string
		accept string
		query  string
		agent  string
		target Target
		// wantType is the chosen media type; "" means 406.
		wantType string
		wantOpts MediaTypeOptions
	}{
		{name: "no Accept header is JSON", accept: "", wantType: jsonType},
		{name: "JSON", accept: "application/json", wantType: jsonType},
		{name: "YAML", accept: "application/yaml", wantType: yamlType},
		{name: "protobuf", accept: "application/vnd.kubernetes.protobuf", wantType: protobufType},
		{name: "client-go protobuf with JSON fallback", accept: "application/vnd.kubernetes.protobuf, application/json", wantType: protobufType},
		{name: "the first acceptable type in the client's order wins", accept: "application/yaml,application/json", wantType: yamlType},
		{name: "an unknown type is skipped", accept: "application/xml,application/yaml", wantType: yamlType},
		{name: "any type is the server's first", accept: "*/*", wantType: jsonType},
		{name: "any application subtype is the server's first", accept: "application/*", wantType: jsonType},
		{name: "higher quality first", accept: "application/json;q=0.5,application/yaml", wantType: yamlType},
		{name: "quality orders the whole list", accept: "application/json;q=0.5,application/yaml;q=0.9,application/vnd.kubernetes.protobuf;q=0.7", wantType: yamlType},
		{name: "a concrete type before a wildcard of the same quality", accept: "*/*,application/yaml", wantType: yamlType},
		{name: "a concrete subtype before a wildcard of the same quality", accept: "application/*,application/vnd.kubernetes.protobuf", wantType: protobufType},
		{name: "a browser gets JSON", accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", wantType: jsonType},
		{name: "unknown parameters are ignored", accept: "application/json;charset=utf-8", wantType: jsonType},
		{name: "stream parameter", accept: "application/json;stream=watch", wantType: jsonType, wantOpts: MediaTypeOptions{Stream: "watch"}},
		{name: "nothing acceptable", accept: "application/xml", wantType: ""},
		{name: "nothing acceptable among several", accept: "text/html, application/xml;q=0.9", wantType: ""},

		// as=, g=, v=: conversions the endpoint may or may not produce.
		{name: "kubectl gets a Table", accept: kubectlAccept, target: metaV1("Table"), wantType: jsonType, wantOpts: table},
		{name: "kubectl without a table convertor gets the object", accept: kubectlAccept, target: metaV1(), wantType: jsonType},
		{name: "conversions need a Target", accept: kubectlAccept, target: nil, wantType: jsonType},
		{name: "only a conversion asked and none possible", accept: "application/json;as=Table;g=meta.k8s.io;v=v1", target: nil, wantType: ""},
		{name: "a version the endpoint does not convert to", accept: "application/json;as=Table;g=meta.k8s.io;v=v1beta1", target: metaV1("Table"), wantType: ""},
		{name: "parameter order does not matter", accept: "application/json;g=meta.k8s.io;v=v1;as=Table", target: metaV1("Table"), wantType: jsonType, wantOpts: table},
		{name: "spaces around parameters", accept: "application/json; as=Table; g=meta.k8s.io; v=v1", target: metaV1("Table"), wantType: jsonType, wantOpts: table},
		{
			name:     "metadata-only list in protobuf",
			accept:   "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json",
			target:   metaV1("PartialObjectMetadataList"),
			wantType: protobufType,
			wantOpts: MediaTypeOptions{Convert: "PartialObjectMetadataList", ConvertGroup: "meta.k8s.io", ConvertVersion: "v1"},
		},

		// Pretty printing: the media type parameter, ?pretty, or a client
		// that is a person.
		{name: "pretty=1 parameter", accept: "application/json;pretty=1", wantType: jsonType, wantOpts: MediaTypeOptions{Pretty: true}},
		{name: "pretty=0 parameter", accept: "application/json;pretty=0", wantType: jsonType},
		{name: "?pretty=true", query: "pretty=true", wantType: jsonType, wantOpts: MediaTypeOptions{Pretty: true}},
		{name: "?pretty=1", query: "pretty=1", wantType: jsonType, wantOpts: MediaTypeOptions{Pretty: true}},
		{name: "?pretty=false", query: "pretty=false", wantType: jsonType},
		{name: "?pretty without a value is not a request", query: "pretty", wantType: jsonType},
		{name: "?pretty=garbage", query: "pretty=yes-please", wantType: jsonType},
		{name: "curl", agent: "curl/8.5.0", wantType: jsonType, wantOpts: MediaTypeOptions{Pretty: true}},
		{name: "Wget", agent: "Wget/1.21", wantType: jsonType, wantOpts: MediaTypeOptions{Pretty: true}},
		{name: "a browser", agent: "Mozilla/5.0 (X11; Linux x86_64)", wantType: jsonType, wantOpts: MediaTypeOptions{Pretty: true}},
		{name: "curl with ?pretty=false", agent: "curl/8.5.0", query: "pretty=false", wantType: jsonType},
		{name: "curl with ?pretty and no value", agent: "curl/8.5.0", query: "pretty", wantType: jsonType, wantOpts: MediaTypeOptions{Pretty: true}},
		{name: "kubectl", agent: "kubectl/v1.37.1 (linux/amd64) kubernetes/abcdef", wantType: jsonType},
		{name: "Go client", agent: "Go-http-client/1.1", wantType: jsonType},
		{name: "pretty Table", accept: "application/json;as=Table;g=meta.k8s.io;v=v1;pretty=1", target: metaV1("Table"), wantType: jsonType,
			wantOpts: MediaTypeOptions{Convert: "Table", ConvertGroup: "meta.k8s.io", ConvertVersion: "v1", Pretty: true}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, "/api/v1/namespaces/default/configmaps?"+tc.query, nil)
			if tc.accept != "" {
				r.Header.Set("Accept", tc.accept)
			}
			if tc.agent != "" {
				r.Header.Set("User-Agent", tc.agent)
			}
			info, opts, err := NegotiateOutput(r, serializers, tc.target)
			if tc.wantType == "" {
				if !apierrors.IsNotAcceptable(err) {
					t.Fatalf("got %q, %v; want 406 NotAcceptable", info.MediaType, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if info.MediaType != tc.wantType {
				t.Errorf("media type = %q, want %q", info.MediaType, tc.wantType)
			}
			if opts != tc.wantOpts {
				t.Errorf("options = %+v, want %+v", opts, tc.wantOpts)
			}
		})
	}
}

// TestNegotiateOutputAsksTargetPerMediaRange checks that the Target sees
// the conversion of each media range, in the order of preference, and is
// not asked about ranges without one.
func TestNegotiateOutputAsksTargetPerMediaRange(t *testing.T) {
	var asked []MediaTypeOptions
	target := func(o MediaTypeOptions) bool {
		asked = append(asked, o)
		return false
	}
	r := httptest.NewRequest(http.MethodGet, "/apis", nil)
	r.Header.Set("Accept", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList;q=0.9,application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;q=0.5")
	info, opts, err := NegotiateOutput(r, serializers, target)
	if err != nil {
		t.Fatal(err)
	}
	if info.MediaType != jsonType || opts != (MediaTypeOptions{}) {
		t.Errorf("got %q %+v, want plain application/json", info.MediaType, opts)
	}
	disco := MediaTypeOptions{Convert: "APIGroupDiscoveryList", ConvertGroup: "apidiscovery.k8s.io", ConvertVersion: "v2"}
	want := []MediaTypeOptions{disco, disco}
	if !reflect.DeepEqual(asked, want) {
		t.Errorf("Target asked about %+v, want %+v", asked, want)
	}
}

func TestNegotiateInput(t *testing.T) {
	cases := []struct {
		contentType string
		want        string // "" means 415
	}{
		{contentType: "", want: jsonType}, // a body without a Content-Type is JSON
		{contentType: "application/json", want: jsonType},
		{contentType: "application/json; charset=utf-8", want: jsonType},
		{contentType: "Application/JSON", want: jsonType},
		{contentType: "application/yaml", want: yamlType},
		{contentType: "application/vnd.kubernetes.protobuf", want: protobufType},
		{contentType: "text/plain", want: ""},
		{contentType: "application/xml", want: ""},
		{contentType: "application/merge-patch+json", want: ""},
		{contentType: "application/*", want: ""},
		{contentType: "not a media type", want: ""},
	}
	for _, tc := range cases {
		t.Run(tc.contentType, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, "/api/v1/namespaces/default/configmaps", strings.NewReader("{}"))
			if tc.contentType != "" {
				r.Header.Set("Content-Type", tc.contentType)
			}
			info, err := NegotiateInput(r, serializers)
			if tc.want == "" {
				if !apierrors.IsUnsupportedMediaType(err) {
					t.Fatalf("got %q, %v; want 415 UnsupportedMediaType", info.MediaType, err)
				}
				if got := err.Error(); got != "the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf" {
					t.Errorf("message = %q", got)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if info.MediaType != tc.want {
				t.Errorf("media type = %q, want %q", info.MediaType, tc.want)
			}
		})
	}
}

// TestErrorBodiesMatchKubeAPIServer writes each negotiation error as a
// client receives it and compares it with the response recorded from
// kube-apiserver: status code, content type and the whole Status body
// (message, reason, code, details present or absent).
func TestErrorBodiesMatchKubeAPIServer(t *testing.T) {
	notAcceptable := func() error {
		// The recorded 406 was for Accept: application/xml.
		r := httptest.NewRequest(http.MethodGet, "/api/v1/namespaces/defaulting/configmaps/cm1", nil)
		r.Header.Set("Accept", "application/xml")
		_, _, err := NegotiateOutput(r, serializers, nil)
		return err
	}
	unsupported := func() error {
		r := httptest.NewRequest(http.MethodPost, "/api/v1/namespaces/defaulting/configmaps", strings.NewReader("x"))
		r.Header.Set("Content-Type", "text/plain")
		_, err := NegotiateInput(r, serializers)
		return err
	}
	cases := []struct {
		name, file string
		err        func() error
	}{
		{"406 for an Accept nothing matches", "not-acceptable.txt", notAcceptable},
		{"NewNotAcceptableError", "not-acceptable.txt", func() error { return NewNotAcceptableError(serializers) }},
		{"415 for a body in an unknown format", "unsupported-media-type.txt", unsupported},
		{"NewUnsupportedMediaTypeError", "unsupported-media-type.txt", func() error { return NewUnsupportedMediaTypeError(serializers) }},
		{"415 for a PATCH that is not a patch type", "unsupported-media-type-patch.txt", NewUnsupportedPatchTypeError},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			wantCode, wantHeader, wantBody := readRecordedResponse(t, tc.file)
			err := tc.err()
			if err == nil {
				t.Fatal("no error")
			}
			w := httptest.NewRecorder()
			responsewriters.WriteErrorStatus(w, httptest.NewRequest(http.MethodGet, "/", nil), err)
			if w.Code != wantCode {
				t.Errorf("code = %d, want %d", w.Code, wantCode)
			}
			if got, want := w.Header().Get("Content-Type"), wantHeader.Get("Content-Type"); got != want {
				t.Errorf("content-type = %q, want %q", got, want)
			}
			var got, want map[string]any
			if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil {
				t.Fatalf("body %q: %v", w.Body, err)
			}
			if err := json.Unmarshal(wantBody, &want); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("body differs from kube-apiserver's:\n got %s\nwant %s", w.Body.Bytes(), wantBody)
			}

			// The same facts through the typed API.
			var st apierrors.APIStatus
			if !errors.As(err, &st) {
				t.Fatalf("%T is not an APIStatus", err)
			}
			var wantStatus metav1.Status
			if err := json.Unmarshal(wantBody, &wantStatus); err != nil {
				t.Fatal(err)
			}
			s := st.Status()
			if s.Message != wantStatus.Message || s.Reason != wantStatus.Reason || s.Code != wantStatus.Code ||
				!reflect.DeepEqual(s.Details, wantStatus.Details) {
				t.Errorf("status = %+v, want %+v", s, wantStatus)
			}
		})
	}
}

// readRecordedResponse parses a response recorded with curl -i: a
// "> METHOD PATH" line, a blank line, the status line, headers, a blank
// line and the body. It skips the test if the reference data is absent.
func readRecordedResponse(t *testing.T, name string) (int, http.Header, []byte) {
	t.Helper()
	data := readReference(t, filepath.Join("errors", name))
	data = bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
	_, rest, ok := bytes.Cut(data, []byte("\n\n")) // the request line
	if !ok {
		t.Fatalf("%s: no request line", name)
	}
	head, body, ok := bytes.Cut(rest, []byte("\n\n"))
	if !ok {
		t.Fatalf("%s: no body", name)
	}
	lines := strings.Split(string(head), "\n")
	status := strings.Fields(lines[0]) // "HTTP/2 406"
	if len(status) < 2 {
		t.Fatalf("%s: status line %q", name, lines[0])
	}
	code, err := strconv.Atoi(status[1])
	if err != nil {
		t.Fatalf("%s: status line %q: %v", name, lines[0], err)
	}
	h := http.Header{}
	for _, l := range lines[1:] {
		k, v, _ := strings.Cut(l, ":")
		h.Add(strings.TrimSpace(k), strings.TrimSpace(v))
	}
	return code, h, body
}

// readReference reads a file of the facts recorded from kube-apiserver,
// which live beside the repository in ../shared/reference.
func readReference(t *testing.T, rel string) []byte {
	t.Helper()
	return required.ReadReference(t, rel)
}
