package setdefault

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kapi-dev/kapi/pkg/admission"
)

type classes []*storagev1.StorageClass

func (c classes) List(labels.Selector) ([]*storagev1.StorageClass, error) { return c, nil }

func class(name string, created int64, annotations map[string]string) *storagev1.StorageClass {
	return &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{
		Name: name, Annotations: annotations, CreationTimestamp: metav1.NewTime(time.Unix(created, 0)),
	}}
}

var (
	isDefault     = map[string]string{IsDefaultAnnotation: "true"}
	isBetaDefault = map[string]string{BetaIsDefaultAnnotation: "true"}
	notDefault    = map[string]string{IsDefaultAnnotation: "false"}
)

// A claim without a class gets the newest default class, the first by
// name among equally new ones; a claim with a class, even "", or with the
// beta annotation keeps it.
func TestDefaultStorageClass(t *testing.T) {
	empty := ""
	other := "other"
	tests := []struct {
		name    string
		classes classes
		claim   corev1.PersistentVolumeClaim
		want    *string
	}{
		{name: "no classes", want: nil},
		{name: "no default", classes: classes{class("a", 1, nil), class("b", 1, notDefault)}, want: nil},
		{name: "one default", classes: classes{class("a", 1, nil), class("b", 1, isDefault)}, want: ptr("b")},
		{name: "the beta annotation marks a default", classes: classes{class("beta", 1, isBetaDefault)}, want: ptr("beta")},
		{name: "the newest default wins", classes: classes{class("old", 1, isDefault), class("new", 2, isDefault), class("z", 0, isDefault)}, want: ptr("new")},
		{name: "equally new: the first by name", classes: classes{class("b", 2, isDefault), class("a", 2, isDefault)}, want: ptr("a")},
		{name: "an empty class is a class", classes: classes{class("a", 1, isDefault)},
			claim: corev1.PersistentVolumeClaim{Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: &empty}}, want: &empty},
		{name: "a named class stays", classes: classes{class("a", 1, isDefault)},
			claim: corev1.PersistentVolumeClaim{Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: &other}}, want: &other},
		{name: "the beta class annotation is a class", classes: classes{class("a", 1, isDefault)},
			claim: corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{BetaStorageClassAnnotation: "x"}}}, want: nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pvc := tc.claim.DeepCopy()
			a := &admission.Attributes{
				Resource: corev1.SchemeGroupVersion.WithResource("persistentvolumeclaims"), Operation: admission.Create, Object: pvc,
			}
			if err := New(tc.classes).Admit(context.Background(), a); err != nil {
				t.Fatal(err)
			}
			if got := pvc.Spec.StorageClassName; (got == nil) != (tc.want == nil) || got != nil && *got != *tc.want {
				t.Errorf("storageClassName = %v, want %v", deref(got), deref(tc.want))
			}
		})
	}
}

// Subresources and other resources are left alone.
func TestDefaultStorageClassOnlyClaims(t *testing.T) {
	p := New(classes{class("a", 1, isDefault)})
	pvc := &corev1.PersistentVolumeClaim{}
	for _, a := range []*admission.Attributes{
		{Resource: corev1.SchemeGroupVersion.WithResource("persistentvolumeclaims"), Subresource: "status", Operation: admission.Create, Object: pvc},
		{Resource: corev1.SchemeGroupVersion.WithResource("persistentvolumes"), Operation: admission.Create, Object: pvc},
	} {
		if err := p.Admit(context.Background(), a); err != nil {
			t.Fatal(err)
		}
	}
	if pvc.Spec.StorageClassName != nil {
		t.Errorf("storageClassName = %q, want it unset", *pvc.Spec.StorageClassName)
	}
	if p.Handles(admission.Update) || !p.Handles(admission.Create) {
		t.Error("the plugin must handle creates only")
	}
}

func ptr(s string) *string { return &s }

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}
