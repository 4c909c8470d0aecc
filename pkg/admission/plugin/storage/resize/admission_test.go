package resize

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/pkg/admission"
)

type classes map[string]*storagev1.StorageClass

func (c classes) Get(name string) (*storagev1.StorageClass, error) {
	if sc, ok := c[name]; ok {
		return sc, nil
	}
	return nil, apierrors.NewNotFound(storagev1.Resource("storageclasses"), name)
}

func claim(class *string, size string, phase corev1.PersistentVolumeClaimPhase) *corev1.PersistentVolumeClaim {
	return &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: "claim", Namespace: "ns"},
		Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: class, Resources: corev1.VolumeResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(size)},
		}},
		Status: corev1.PersistentVolumeClaimStatus{Phase: phase},
	}
}

// A claim may grow only when bound and when its unchanged class allows
// expansion; kube-apiserver's messages.
func TestResize(t *testing.T) {
	yes, no := true, false
	cls := classes{
		"grow":  {ObjectMeta: metav1.ObjectMeta{Name: "grow"}, AllowVolumeExpansion: &yes},
		"fixed": {ObjectMeta: metav1.ObjectMeta{Name: "fixed"}, AllowVolumeExpansion: &no},
		"unset": {ObjectMeta: metav1.ObjectMeta{Name: "unset"}},
	}
	s := func(v string) *string { return &v }
	const notBound = `persistentvolumeclaims "claim" is forbidden: Only bound persistent volume claims can be expanded`
	const notAllowed = `persistentvolumeclaims "claim" is forbidden: only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize`
	tests := []struct {
		name     string
		old, new *corev1.PersistentVolumeClaim
		want     string
	}{
		{"grow, bound, expandable", claim(s("grow"), "1Gi", corev1.ClaimBound), claim(s("grow"), "2Gi", corev1.ClaimBound), ""},
		{"same size", claim(s("fixed"), "1Gi", corev1.ClaimPending), claim(s("fixed"), "1024Mi", corev1.ClaimPending), ""},
		{"shrink", claim(s("fixed"), "2Gi", corev1.ClaimPending), claim(s("fixed"), "1Gi", corev1.ClaimPending), ""},
		{"not bound", claim(s("grow"), "1Gi", corev1.ClaimPending), claim(s("grow"), "2Gi", corev1.ClaimPending), notBound},
		{"class forbids", claim(s("fixed"), "1Gi", corev1.ClaimBound), claim(s("fixed"), "2Gi", corev1.ClaimBound), notAllowed},
		{"class silent", claim(s("unset"), "1Gi", corev1.ClaimBound), claim(s("unset"), "2Gi", corev1.ClaimBound), notAllowed},
		{"class missing", claim(s("gone"), "1Gi", corev1.ClaimBound), claim(s("gone"), "2Gi", corev1.ClaimBound), notAllowed},
		{"no class", claim(nil, "1Gi", corev1.ClaimBound), claim(nil, "2Gi", corev1.ClaimBound), notAllowed},
		{"class changed", claim(s("fixed"), "1Gi", corev1.ClaimBound), claim(s("grow"), "2Gi", corev1.ClaimBound), notAllowed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := &admission.Attributes{
				Name: "claim", Namespace: "ns", Resource: corev1.SchemeGroupVersion.WithResource("persistentvolumeclaims"),
				Operation: admission.Update, Object: tc.new, OldObject: tc.old,
			}
			err := New(cls).Validate(context.Background(), a)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.want != "" && (err == nil || err.Error() != tc.want || !apierrors.IsForbidden(err)):
				t.Errorf("got %v, want the 403 %q", err, tc.want)
			}
		})
	}
}
