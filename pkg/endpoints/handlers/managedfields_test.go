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
		pt      types.PatchType
		wantErr string
	}{
		{`{"data":{}}`, types.MergePatchType, ""},
		{`[{"op":"add"}]`, types.JSONPatchType, ""},
		{`{"data":`, types.MergePatchType, "invalid JSON patch"},
		{`data: {a: b}`, types.StrategicMergePatchType, "invalid JSON patch"},
		{"apiVersion: v1\nkind: ConfigMap\n", types.ApplyYAMLPatchType, ""},
		{`{"apiVersion":"v1"}`, types.ApplyYAMLPatchType, ""},
		{"a: [b\n", types.ApplyYAMLPatchType, "error encoding patch: yaml: line 1: did not find expected ',' or ']'"},
	}
	for _, tt := range tests {
		err := checkPatchSyntax([]byte(tt.patch), tt.pt)
		switch {
		case tt.wantErr == "" && err != nil:
			t.Errorf("%s %q: %v", tt.pt, tt.patch, err)
		case tt.wantErr != "" && (!apierrors.IsBadRequest(err) || err.Error() != tt.wantErr):
			t.Errorf("%s %q: got %v, want a 400 %q", tt.pt, tt.patch, err, tt.wantErr)
		}
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
		TypeConverter: fieldmanager.SchemeTypeConverter(scheme.Scheme), Convertor: scheme.Scheme, Defaulter: scheme.Scheme,
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
