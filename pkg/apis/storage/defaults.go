package storage

import (
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// AddDefaults registers the defaulting functions of the storage.k8s.io/v1
// kinds that have defaults, and of their lists, in scheme.
func AddDefaults(scheme *runtime.Scheme) error {
	scheme.AddTypeDefaultingFunc(&storagev1.StorageClass{}, func(obj any) { SetDefaultsStorageClass(obj.(*storagev1.StorageClass)) })
	scheme.AddTypeDefaultingFunc(&storagev1.StorageClassList{}, func(obj any) {
		list := obj.(*storagev1.StorageClassList)
		for i := range list.Items {
			SetDefaultsStorageClass(&list.Items[i])
		}
	})
	scheme.AddTypeDefaultingFunc(&storagev1.CSIDriver{}, func(obj any) { SetDefaultsCSIDriver(obj.(*storagev1.CSIDriver)) })
	scheme.AddTypeDefaultingFunc(&storagev1.CSIDriverList{}, func(obj any) {
		list := obj.(*storagev1.CSIDriverList)
		for i := range list.Items {
			SetDefaultsCSIDriver(&list.Items[i])
		}
	})
	return nil
}

// SetDefaultsStorageClass gives a storage class the reclaim policy Delete
// and immediate volume binding when it names none.
func SetDefaultsStorageClass(sc *storagev1.StorageClass) {
	if sc.ReclaimPolicy == nil {
		policy := corev1.PersistentVolumeReclaimDelete
		sc.ReclaimPolicy = &policy
	}
	if sc.VolumeBindingMode == nil {
		mode := storagev1.VolumeBindingImmediate
		sc.VolumeBindingMode = &mode
	}
}

// SetDefaultsCSIDriver fills in what kube-apiserver 1.37 fills in: a
// driver needs attaching, gets no pod information, publishes no
// capacity, applies fsGroup to ReadWriteOnce volumes with a file system
// type, serves persistent volumes, and opts in to nothing newer.
func SetDefaultsCSIDriver(d *storagev1.CSIDriver) {
	spec := &d.Spec
	setBool(&spec.AttachRequired, true)
	setBool(&spec.PodInfoOnMount, false)
	setBool(&spec.StorageCapacity, false)
	if spec.FSGroupPolicy == nil {
		policy := storagev1.ReadWriteOnceWithFSTypeFSGroupPolicy
		spec.FSGroupPolicy = &policy
	}
	if len(spec.VolumeLifecycleModes) == 0 {
		spec.VolumeLifecycleModes = []storagev1.VolumeLifecycleMode{storagev1.VolumeLifecyclePersistent}
	}
	setBool(&spec.RequiresRepublish, false)
	setBool(&spec.SELinuxMount, false)
	setBool(&spec.PreventPodSchedulingIfMissing, false)
}

func setBool(p **bool, v bool) {
	if *p == nil {
		*p = &v
	}
}
