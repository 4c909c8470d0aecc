package printers

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// The rows of the CSI kinds and of the certificates kinds without an Age
// column are kube-apiserver's: the wanted cells are those the oracle
// printed for the same objects (its ages replaced by ours).
func TestCSIAndCertificateRows(t *testing.T) {
	named := func(name string) metav1.ObjectMeta { return objectMeta(name) }
	tests := []struct {
		name string
		obj  runtime.Object
		want []any
	}{{
		name: "a defaulted CSI driver",
		obj: &storagev1.CSIDriver{ObjectMeta: named("tbl-a.example.com"), Spec: storagev1.CSIDriverSpec{
			AttachRequired: ptr(true), PodInfoOnMount: ptr(false), StorageCapacity: ptr(false), RequiresRepublish: ptr(false),
			VolumeLifecycleModes: []storagev1.VolumeLifecycleMode{storagev1.VolumeLifecyclePersistent},
		}},
		want: []any{"tbl-a.example.com", true, false, false, "<unset>", false, "Persistent", "3h"},
	}, {
		name: "a CSI driver with token requests, one for the empty audience",
		obj: &storagev1.CSIDriver{ObjectMeta: named("tbl-b.example.com"), Spec: storagev1.CSIDriverSpec{
			AttachRequired: ptr(false), PodInfoOnMount: ptr(true), StorageCapacity: ptr(true), RequiresRepublish: ptr(true),
			VolumeLifecycleModes: []storagev1.VolumeLifecycleMode{storagev1.VolumeLifecyclePersistent, storagev1.VolumeLifecycleEphemeral},
			TokenRequests:        []storagev1.TokenRequest{{Audience: "vault"}, {Audience: ""}},
		}},
		want: []any{"tbl-b.example.com", false, true, true, "vault,", true, "Persistent,Ephemeral", "3h"},
	}, {
		name: "a CSI node counts its drivers",
		obj: &storagev1.CSINode{ObjectMeta: named("tbl-node"), Spec: storagev1.CSINodeSpec{Drivers: []storagev1.CSINodeDriver{
			{Name: "a", NodeID: "1"}, {Name: "b", NodeID: "2"}}}},
		want: []any{"tbl-node", int64(2), "3h"},
	}, {
		name: "an attachment of a persistent volume",
		obj: &storagev1.VolumeAttachment{ObjectMeta: named("tbl-va1"), Spec: storagev1.VolumeAttachmentSpec{
			Attacher: "a.example.com", NodeName: "n", Source: storagev1.VolumeAttachmentSource{PersistentVolumeName: ptr("pv1")}}},
		want: []any{"tbl-va1", "a.example.com", "pv1", "n", false, "3h"},
	}, {
		name: "an attachment of an inline volume has no PV",
		obj: &storagev1.VolumeAttachment{ObjectMeta: named("tbl-va2"), Spec: storagev1.VolumeAttachmentSpec{
			Attacher: "a.example.com", NodeName: "n", Source: storagev1.VolumeAttachmentSource{InlineVolumeSpec: &corev1.PersistentVolumeSpec{}}}},
		want: []any{"tbl-va2", "a.example.com", "", "n", false, "3h"},
	}, {
		name: "a volume attributes class",
		obj:  &storagev1.VolumeAttributesClass{ObjectMeta: named("tbl-vac"), DriverName: "a.example.com", Parameters: map[string]string{"x": "y"}},
		want: []any{"tbl-vac", "a.example.com", "3h"},
	}, {
		name: "a trust bundle has no age",
		obj:  &certificatesv1.ClusterTrustBundle{ObjectMeta: named("example.com:s:tbl-ctb"), Spec: certificatesv1.ClusterTrustBundleSpec{SignerName: "example.com/s"}},
		want: []any{"example.com:s:tbl-ctb", "example.com/s"},
	}, {
		name: "a pending pod certificate request with user annotations",
		obj: &certificatesv1.PodCertificateRequest{ObjectMeta: named("probe-pcr"), Spec: certificatesv1.PodCertificateRequestSpec{
			SignerName: "example.com/x", PodName: "p", ServiceAccountName: "sa", NodeName: "n",
			UnverifiedUserAnnotations: map[string]string{"example.com/c": "d", "example.com/a": "b"}}},
		want: []any{"probe-pcr", "p", "sa", "n", "example.com/x", "Pending", "example.com/a=b,example.com/c=d"},
	}, {
		name: "a pod certificate request without user annotations",
		obj: &certificatesv1.PodCertificateRequest{ObjectMeta: named("probe-pcr2"), Spec: certificatesv1.PodCertificateRequestSpec{
			SignerName: "kubernetes.io/x", PodName: "p", ServiceAccountName: "sa", NodeName: "n"}},
		want: []any{"probe-pcr2", "p", "sa", "n", "kubernetes.io/x", "Pending", "<none>"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, rowCells(t, tt.obj)); diff != "" {
				t.Errorf("cells (-want +got):\n%s", diff)
			}
		})
	}
}
