package handlers

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// copyBomb is a JSON patch of about 2 KB whose copies double a 1 KiB
// value n times: 2^n KiB if nothing stopped it.
func copyBomb(n int) []byte {
	ops := []map[string]any{{"op": "add", "path": "/z", "value": map[string]any{"a": strings.Repeat("x", 1024)}}}
	for i := range n {
		ops = append(ops, map[string]any{"op": "copy", "from": "/z", "path": fmt.Sprintf("/z/c%d", i)})
	}
	data, _ := json.Marshal(ops)
	return data
}

// The copies of one JSON patch may add no more bytes than a request body
// may hold; beyond, the patch fails with kube-apiserver's 422, whose
// message (recorded from kube-apiserver 1.37.1) names neither the
// resource nor the operation.
func TestJSONPatchCopiesAreBounded(t *testing.T) {
	current := []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"b"}}`)
	tests := []struct {
		name    string
		limit   int64 // the scope's request body limit; 0 is the default
		patch   []byte
		wantErr bool
	}{
		{"the 18-copy bomb", 0, copyBomb(18), true},
		{"40 copies", 0, copyBomb(40), true},
		{"a few copies", 0, copyBomb(4), false},
		{"a few copies over a smaller body limit", 8 << 10, copyBomb(4), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := configMapScope(nil)
			s.MaxRequestBodyBytes = tt.limit
			p := &patchedObject{scope: s, patchType: types.JSONPatchType, patch: tt.patch, maxCopyBytes: s.maxRequestBodyBytes()}
			out, err := p.apply(current)
			if !tt.wantErr {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil {
				t.Fatalf("applied, to %d bytes", len(out))
			}
			status := err.(apierrors.APIStatus).Status()
			want := metav1.Status{Status: metav1.StatusFailure, Code: http.StatusUnprocessableEntity, Reason: metav1.StatusReasonInvalid,
				Message: "the server rejected our request due to an error in our request", Details: &metav1.StatusDetails{}}
			if status.Code != want.Code || status.Reason != want.Reason || status.Message != want.Message || !reflect.DeepEqual(status.Details, want.Details) {
				t.Errorf("got %+v, want kube-apiserver's %+v", status, want)
			}
		})
	}
}

// Bodies that cannot be decoded are quoted as kube-apiserver quotes them
// (recorded from kube-apiserver 1.37.1): JSON objects as text, anything
// else in hex, and a body that names its kind "cannot be handled".
func TestDecodeErrors(t *testing.T) {
	tests := []struct{ contentType, body, want string }{
		{"application/json", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"te"},"data":5}`,
			`ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ConfigMap.data of type map[string]string`},
		{"application/json", `[1,2]`,
			`the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: json: cannot unmarshal array into Go value of type struct { APIVersion string "json:\"apiVersion,omitempty\""; Kind string "json:\"kind,omitempty\"" } (5b312c325d)`},
		{"application/json", ``,
			`the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: unexpected end of JSON input (<empty>)`},
		{"application/json", `{"apiVersion":"v1","kind":"ConfigMap","x":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + "}",
			`the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: invalid character '[' exceeded max depth ({"apiVersion":"v1","kind":"Con ...)`},
		{"application/yaml", "a: [b\n",
			`the object provided is unrecognized (must be of type ConfigMap): yaml: line 1: did not find expected ',' or ']' (613a205b620a)`},
		{"application/yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: d}\nx: " + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + "\n",
			`the object provided is unrecognized (must be of type ConfigMap): yaml: line 4: exceeded max depth of 10000 (61706956657273696f6e3a2076310a6b696e643a20436f6e6669674d6170 ...)`},
		{"application/yaml", billionLaughs,
			`the object provided is unrecognized (must be of type ConfigMap): yaml: document contains excessive aliasing (61706956657273696f6e3a2076310a6b696e643a20436f6e6669674d6170 ...)`},
		{"application/vnd.kubernetes.protobuf", "xyz",
			`the object provided is unrecognized (must be of type ConfigMap): provided data does not appear to be a protobuf message, expected prefix [107 56 115 0] (78797a)`},
		// A protobuf message whose ConfigMap claims 2^40 bytes of metadata.
		{"application/vnd.kubernetes.protobuf", "k8s\x00\x0a\x0f\x0a\x02v1\x12\x09ConfigMap\x12\x08\x0a\x80\x80\x80\x80\x80\x20x",
			`ConfigMap in version "v1" cannot be handled as a ConfigMap: unexpected EOF`},
	}
	s := configMapScope(nil)
	for _, tt := range tests {
		r := httptest.NewRequest(http.MethodPost, "/api/v1/namespaces/ns/configmaps", strings.NewReader(tt.body))
		r.Header.Set("Content-Type", tt.contentType)
		_, err := s.decode(r.Context(), r, []byte(tt.body), metav1.FieldValidationIgnore)
		if !apierrors.IsBadRequest(err) || err.Error() != tt.want {
			t.Errorf("%s %.40q:\n got %v\nwant %s", tt.contentType, tt.body, err, tt.want)
		}
	}
}

// billionLaughs is a YAML ConfigMap whose aliases would expand to 9^9
// strings.
var billionLaughs = func() string {
	y := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: lol}\na0: &a0 [" + strings.TrimSuffix(strings.Repeat(`"lol",`, 9), ",") + "]\n"
	for i := 1; i < 9; i++ {
		y += fmt.Sprintf("a%d: &a%d [%s]\n", i, i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*a%d,", i-1), 9), ","))
	}
	return y
}()

// Apply patches that cannot be decoded get kube-apiserver's messages
// (recorded from kube-apiserver 1.37.1), naming the step that failed.
func TestApplyPatchDecodeErrors(t *testing.T) {
	tests := []struct{ patch, want string }{
		{`{"a":`, "error decoding patch: error converting YAML to JSON: yaml: line 1: did not find expected node content"},
		{"a: [b\n", "error encoding patch: yaml: line 1: did not find expected ',' or ']'"},
		{"5", "error decoding patch: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal number into Go value of type map[string]interface {}"},
		{`{"x":` + strings.Repeat(`{"a":`, 10001) + "1" + strings.Repeat("}", 10001) + "}",
			"error decoding patch: error converting YAML to JSON: yaml: exceeded max depth of 10000"},
		{"apiVersion: v1\nkind: ConfigMap\nx: " + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + "\n",
			"error encoding patch: yaml: line 3: exceeded max depth of 10000"},
		{billionLaughs, "error encoding patch: yaml: document contains excessive aliasing"},
	}
	for _, tt := range tests {
		for _, validation := range []string{metav1.FieldValidationIgnore, metav1.FieldValidationStrict} {
			_, err := decodeApplyPatch(t.Context(), []byte(tt.patch), validation)
			if !apierrors.IsBadRequest(err) || err.Error() != tt.want {
				t.Errorf("%.40q (%s):\n got %v\nwant %s", tt.patch, validation, err, tt.want)
			}
		}
	}
}

// A merge patch that is not an object is refused as kube-apiserver
// refuses it (recorded from kube-apiserver 1.37.1) when fields are
// validated.
func TestMergePatchThatIsNotAnObject(t *testing.T) {
	current := []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"b"}}`)
	tests := []struct{ patch, want string }{
		{"null", "Invalid JSON Patch"},
		{"5", "error decoding patch: json: cannot unmarshal number into Go value of type map[string]interface {}"},
		{"[1]", "error decoding patch: json: cannot unmarshal array into Go value of type map[string]interface {}"},
		{`"s"`, "error decoding patch: json: cannot unmarshal string into Go value of type map[string]interface {}"},
	}
	for _, tt := range tests {
		p := &patchedObject{scope: configMapScope(nil), patchType: types.MergePatchType, patch: []byte(tt.patch), validation: metav1.FieldValidationWarn}
		_, err := p.apply(current)
		if !apierrors.IsBadRequest(err) || err.Error() != tt.want {
			t.Errorf("%s: got %v, want %s", tt.patch, err, tt.want)
		}
	}
}
