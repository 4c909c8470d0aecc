package inuseprotection

import (
	"context"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/pkg/admission"
)

// The protection finalizer is added once, after the client's, to
// volumes, claims and (with the gate) volume attributes classes.
func TestProtectionFinalizer(t *testing.T) {
	meta := func(f ...string) metav1.ObjectMeta { return metav1.ObjectMeta{Name: "x", Finalizers: f} }
	pv := corev1.SchemeGroupVersion.WithResource("persistentvolumes")
	pvc := corev1.SchemeGroupVersion.WithResource("persistentvolumeclaims")
	vac := storagev1.SchemeGroupVersion.WithResource("volumeattributesclasses")
	tests := []struct {
		name        string
		vacGate     bool
		resource    schema.GroupVersionResource
		subresource string
		obj         runtime.Object
		want        []string
	}{
		{name: "volume", resource: pv, obj: &corev1.PersistentVolume{ObjectMeta: meta("a/b")}, want: []string{"a/b", "kubernetes.io/pv-protection"}},
		{name: "volume that has it", resource: pv, obj: &corev1.PersistentVolume{ObjectMeta: meta("kubernetes.io/pv-protection")}, want: []string{"kubernetes.io/pv-protection"}},
		{name: "claim", resource: pvc, obj: &corev1.PersistentVolumeClaim{ObjectMeta: meta()}, want: []string{"kubernetes.io/pvc-protection"}},
		{name: "claim status", resource: pvc, subresource: "status", obj: &corev1.PersistentVolumeClaim{ObjectMeta: meta()}, want: nil},
		{name: "attributes class", vacGate: true, resource: vac, obj: &storagev1.VolumeAttributesClass{ObjectMeta: meta()}, want: []string{"kubernetes.io/vac-protection"}},
		{name: "attributes class without the gate", resource: vac, obj: &storagev1.VolumeAttributesClass{ObjectMeta: meta()}, want: nil},
		{name: "other resource", resource: corev1.SchemeGroupVersion.WithResource("configmaps"), obj: &corev1.ConfigMap{ObjectMeta: meta()}, want: nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := &admission.Attributes{Resource: tc.resource, Subresource: tc.subresource, Operation: admission.Create, Object: tc.obj}
			if err := New(tc.vacGate).Admit(context.Background(), a); err != nil {
				t.Fatal(err)
			}
			if got := tc.obj.(metav1.Object).GetFinalizers(); !slices.Equal(got, tc.want) {
				t.Errorf("finalizers = %q, want %q", got, tc.want)
			}
		})
	}
}
