package handlers

import (
	"context"
	"net/http"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kapi-dev/kapi/pkg/admission"
	"github.com/kapi-dev/kapi/pkg/api/scheme"
	"github.com/kapi-dev/kapi/pkg/endpoints/fieldmanager"
	"github.com/kapi-dev/kapi/pkg/endpoints/warning"
)

func TestPatchTypes(t *testing.T) {
	tests := []struct {
		contentType           string
		strategicMerge, apply bool
		want                  types.PatchType // "" for 415
	}{
		{"application/json-patch+json", false, false, types.JSONPatchType},
		{"application/merge-patch+json; charset=utf-8", false, false, types.MergePatchType},
		{"application/strategic-merge-patch+json", true, true, types.StrategicMergePatchType},
		{"application/strategic-merge-patch+json", false, true, ""},
		{"application/apply-patch+yaml", true, true, types.ApplyYAMLPatchType},
		{"application/apply-patch+yaml", true, false, ""},
		// CBOR is alpha in 1.37, off by default.
		{"application/apply-patch+cbor", true, true, ""},
		{"application/json", true, true, ""},
		{"", true, true, ""},
	}
	for _, tt := range tests {
		r, _ := http.NewRequest(http.MethodPatch, "/", nil)
		r.Header.Set("Content-Type", tt.contentType)
		got, err := patchType(r, tt.strategicMerge, tt.apply)
		if got != tt.want || (tt.want == "") != apierrors.IsUnsupportedMediaType(err) {
			t.Errorf("%q (strategic merge %v, apply %v): got %q, %v; want %q", tt.contentType, tt.strategicMerge, tt.apply, got, err, tt.want)
		}
	}
}

func TestPatchSyntax(t *testing.T) {
	tests := []struct {
		patch   string
		wantErr string
	}{
		{`{"data":{}}`, ""},
		{`[{"op":"add"}]`, ""},
		{`{"data":`, "invalid JSON patch"},
		{`data: {a: b}`, "invalid JSON patch"},
	}
	for _, tt := range tests {
		err := checkPatchSyntax([]byte(tt.patch))
		switch {
		case tt.wantErr == "" && err != nil:
			t.Errorf("%q: %v", tt.patch, err)
		case tt.wantErr != "" && (!apierrors.IsBadRequest(err) || err.Error() != tt.wantErr):
			t.Errorf("%q: got %v, want a 400 %q", tt.patch, err, tt.wantErr)
		}
	}
}

// An apply patch is YAML or JSON; a duplicate field fails it under
// fieldValidation=Strict, warns under Warn and is let through under
// Ignore, the last value winning.
func TestDecodeApplyPatch(t *testing.T) {
	const duplicate = "apiVersion: v1\nkind: ConfigMap\ndata: {a: \"1\"}\ndata: {a: \"2\"}\n"
	tests := []struct {
		name, patch, validation string
		wantData                string // data.a of the decoded patch
		wantErr, wantWarning    string
	}{
		{"YAML", "apiVersion: v1\nkind: ConfigMap\ndata: {a: \"1\"}\n", metav1.FieldValidationStrict, "1", "", ""},
		{"JSON", `{"apiVersion":"v1","data":{"a":"1"}}`, metav1.FieldValidationWarn, "1", "", ""},
		{"not YAML", "a: [b\n", metav1.FieldValidationStrict, "", "error encoding patch: yaml: line 1: did not find expected ',' or ']'", ""},
		{"not YAML, ignoring", "a: [b\n", metav1.FieldValidationIgnore, "", "error encoding patch: yaml: line 1: did not find expected ',' or ']'", ""},
		{"a duplicate field, strict", duplicate, metav1.FieldValidationStrict, "", `error strict decoding patch: error converting YAML to JSON: yaml: unmarshal errors:`, ""},
		{"a duplicate field, warned", duplicate, metav1.FieldValidationWarn, "2", "", "yaml: unmarshal errors: line 4: key"},
		{"a duplicate field, ignored", duplicate, metav1.FieldValidationIgnore, "2", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			header := http.Header{}
			ctx := warning.WithRecorder(context.Background(), warning.NewRecorder(header))
			obj, err := decodeApplyPatch(ctx, []byte(tt.patch), tt.validation)
			if tt.wantErr != "" {
				if !apierrors.IsBadRequest(err) || !strings.HasPrefix(err.Error(), tt.wantErr) {
					t.Fatalf("got %v, want a 400 %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if a := obj["data"].(map[string]any)["a"]; a != tt.wantData {
				t.Errorf("data.a = %v, want %s", a, tt.wantData)
			}
			if w := header.Get("Warning"); (tt.wantWarning == "") != (w == "") || !strings.Contains(w, tt.wantWarning) {
				t.Errorf("warning %q, want one with %q", w, tt.wantWarning)
			}
		})
	}
}

// breakManagedFields is a mutating admission plugin of old that writes
// managedFields the field manager cannot read.
type breakManagedFields struct{}

func (breakManagedFields) Admit(_ context.Context, a *admission.Attributes) error {
	a.Object.(*corev1.ConfigMap).ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "plugin", FieldsType: "FieldsV0"}}
	a.Object.(*corev1.ConfigMap).Data["admitted"] = "yes"
	return nil
}
func (breakManagedFields) Validate(context.Context, *admission.Attributes) error { return nil }

// Mutating admission may change the object, not break its managedFields:
// they are restored, with kube-apiserver's warning.
func TestAdmissionCannotBreakManagedFields(t *testing.T) {
	gvk := corev1.SchemeGroupVersion.WithKind("ConfigMap")
	fm, err := fieldmanager.New(fieldmanager.Config{
		TypeConverter: fieldmanager.SchemeTypeConverter(scheme.Scheme, nil), Convertor: scheme.Scheme, Defaulter: scheme.Scheme,
		Creater: scheme.Scheme, Typer: scheme.Scheme, Kind: gvk, Hub: gvk.GroupVersion(),
	})
	if err != nil {
		t.Fatal(err)
	}
	s := &RequestScope{Creater: scheme.Scheme, Kind: gvk, FieldManager: fm, Admission: breakManagedFields{}}
	header := http.Header{}
	ctx := warning.WithRecorder(context.Background(), warning.NewRecorder(header))

	obj, err := s.trackWrite(nil, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm"}, Data: map[string]string{"a": "1"}}, "me")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.admitWrite(ctx, &admission.Attributes{Object: obj, Operation: admission.Create}); err != nil {
		t.Fatal(err)
	}
	cm := obj.(*corev1.ConfigMap)
	if len(cm.ManagedFields) != 1 || cm.ManagedFields[0].Manager != "me" || cm.Data["admitted"] != "yes" {
		t.Errorf("after admission: managedFields %+v, data %v", cm.ManagedFields, cm.Data)
	}
	if w := header.Get("Warning"); !strings.Contains(w, ".metadata.managedFields was in an invalid state after admission") {
		t.Errorf("warning %q", w)
	}
}
