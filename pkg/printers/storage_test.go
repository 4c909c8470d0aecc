package printers

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

func TestStorageClass(t *testing.T) {
	withAnnotation := func(key, value string) metav1.ObjectMeta {
		m := objectMeta("fast")
		m.Annotations = map[string]string{key: value}
		return m
	}
	tests := []struct {
		name string
		sc   storagev1.StorageClass
		want []any
	}{{
		name: "unset policies show their defaults",
		sc:   storagev1.StorageClass{ObjectMeta: objectMeta("fast"), Provisioner: "example.com/csi"},
		want: []any{"fast", "example.com/csi", "Delete", "Immediate", false, "3h"},
	}, {
		name: "the default class",
		sc: storagev1.StorageClass{
			ObjectMeta:           withAnnotation("storageclass.kubernetes.io/is-default-class", "true"),
			Provisioner:          "example.com/csi",
			ReclaimPolicy:        ptr(corev1.PersistentVolumeReclaimRetain),
			VolumeBindingMode:    ptr(storagev1.VolumeBindingWaitForFirstConsumer),
			AllowVolumeExpansion: ptr(true),
		},
		want: []any{"fast (default)", "example.com/csi", "Retain", "WaitForFirstConsumer", true, "3h"},
	}, {
		name: "the default class by the beta annotation",
		sc:   storagev1.StorageClass{ObjectMeta: withAnnotation("storageclass.beta.kubernetes.io/is-default-class", "true"), Provisioner: "p"},
		want: []any{"fast (default)", "p", "Delete", "Immediate", false, "3h"},
	}, {
		name: "an annotation that is not true",
		sc:   storagev1.StorageClass{ObjectMeta: withAnnotation("storageclass.kubernetes.io/is-default-class", "false"), Provisioner: "p"},
		want: []any{"fast", "p", "Delete", "Immediate", false, "3h"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, rowCells(t, &tt.sc)); diff != "" {
				t.Errorf("cells (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPersistentVolumes(t *testing.T) {
	gi := resource.MustParse("1Gi")
	tests := []struct {
		name        string
		obj         runtime.Object
		wantColumns []string
		wantCells   []any
	}{{
		name: "an available volume",
		obj: &corev1.PersistentVolume{
			ObjectMeta: objectMeta("pv1"),
			Spec: corev1.PersistentVolumeSpec{
				Capacity:                      corev1.ResourceList{corev1.ResourceStorage: gi},
				AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOncePod, corev1.ReadWriteOnce, corev1.ReadWriteOnce, corev1.ReadOnlyMany},
				PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
				StorageClassName:              "fast",
				VolumeMode:                    ptr(corev1.PersistentVolumeFilesystem),
			},
			Status: corev1.PersistentVolumeStatus{Phase: corev1.VolumeAvailable},
		},
		wantColumns: []string{"Name", "Capacity", "Access Modes", "Reclaim Policy", "Status", "Claim", "StorageClass", "VolumeAttributesClass", "Reason", "Age", "VolumeMode*"},
		wantCells:   []any{"pv1", "1Gi", "RWO,ROX,RWOP", "Retain", "Available", "", "fast", "<unset>", "", "3h", "Filesystem"},
	}, {
		name: "a bound volume being deleted, its class by the beta annotation",
		obj: func() runtime.Object {
			pv := &corev1.PersistentVolume{
				ObjectMeta: objectMeta("pv2"),
				Spec: corev1.PersistentVolumeSpec{
					ClaimRef:                  &corev1.ObjectReference{Namespace: "ns", Name: "data"},
					StorageClassName:          "ignored",
					VolumeAttributesClassName: ptr("gold"),
				},
				Status: corev1.PersistentVolumeStatus{Phase: corev1.VolumeBound, Reason: "Why"},
			}
			pv.Annotations = map[string]string{corev1.BetaStorageClassAnnotation: "slow"}
			pv.DeletionTimestamp = agoPtr(time.Second)
			return pv
		}(),
		wantColumns: []string{"Name", "Capacity", "Access Modes", "Reclaim Policy", "Status", "Claim", "StorageClass", "VolumeAttributesClass", "Reason", "Age", "VolumeMode*"},
		wantCells:   []any{"pv2", "0", "", "", "Terminating", "ns/data", "slow", "gold", "Why", "3h", "<unset>"},
	}, {
		name: "a pending claim",
		obj: &corev1.PersistentVolumeClaim{
			ObjectMeta: objectMeta("data"),
			Spec:       corev1.PersistentVolumeClaimSpec{StorageClassName: ptr("fast")},
			Status:     corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimPending},
		},
		wantColumns: []string{"Name", "Status", "Volume", "Capacity", "Access Modes", "StorageClass", "VolumeAttributesClass", "Age", "VolumeMode*"},
		wantCells:   []any{"data", "Pending", "", "", "", "fast", "<unset>", "3h", "<unset>"},
	}, {
		name: "a bound claim shows its volume's capacity and access modes",
		obj: &corev1.PersistentVolumeClaim{
			ObjectMeta: objectMeta("data"),
			Spec:       corev1.PersistentVolumeClaimSpec{VolumeName: "pv1", VolumeMode: ptr(corev1.PersistentVolumeBlock)},
			Status: corev1.PersistentVolumeClaimStatus{
				Phase:       corev1.ClaimBound,
				Capacity:    corev1.ResourceList{corev1.ResourceStorage: gi},
				AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany},
			},
		},
		wantColumns: []string{"Name", "Status", "Volume", "Capacity", "Access Modes", "StorageClass", "VolumeAttributesClass", "Age", "VolumeMode*"},
		wantCells:   []any{"data", "Bound", "pv1", "1Gi", "RWX", "", "<unset>", "3h", "Block"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			table := convert(t, tt.obj)
			if diff := cmp.Diff(tt.wantColumns, columnNames(table)); diff != "" {
				t.Errorf("columns (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantCells, table.Rows[0].Cells); diff != "" {
				t.Errorf("cells (-want +got):\n%s", diff)
			}
		})
	}
}
