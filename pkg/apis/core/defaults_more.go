package core

import (
	v1 "k8s.io/api/core/v1"
)

// SetDefaultsPersistentVolume makes a new volume Pending, retained when
// released and a filesystem unless it says otherwise, and defaults its
// source as the same source is defaulted in a pod's volume.
func SetDefaultsPersistentVolume(pv *v1.PersistentVolume) {
	if pv.Status.Phase == "" {
		pv.Status.Phase = v1.VolumePending
	}
	spec := &pv.Spec
	if spec.PersistentVolumeReclaimPolicy == "" {
		spec.PersistentVolumeReclaimPolicy = v1.PersistentVolumeReclaimRetain
	}
	if spec.VolumeMode == nil {
		mode := v1.PersistentVolumeFilesystem
		spec.VolumeMode = &mode
	}
	roundUpResourceList(spec.Capacity)
	src := &spec.PersistentVolumeSource
	if src.HostPath != nil && src.HostPath.Type == nil {
		unset := v1.HostPathUnset
		src.HostPath.Type = &unset
	}
	if src.ISCSI != nil && src.ISCSI.ISCSIInterface == "" {
		src.ISCSI.ISCSIInterface = "default"
	}
	if src.RBD != nil {
		defaultString(&src.RBD.RBDPool, "rbd")
		defaultString(&src.RBD.RadosUser, "admin")
		defaultString(&src.RBD.Keyring, "/etc/ceph/keyring")
	}
	if src.AzureDisk != nil {
		setDefaultsAzureDisk(src.AzureDisk)
	}
	if src.ScaleIO != nil {
		defaultString(&src.ScaleIO.StorageMode, "ThinProvisioned")
		defaultString(&src.ScaleIO.FSType, "xfs")
	}
}

// SetDefaultsPersistentVolumeClaim makes a new claim Pending and a
// filesystem unless it asks for a block device.
func SetDefaultsPersistentVolumeClaim(pvc *v1.PersistentVolumeClaim) {
	if pvc.Spec.VolumeMode == nil {
		mode := v1.PersistentVolumeFilesystem
		pvc.Spec.VolumeMode = &mode
	}
	if pvc.Status.Phase == "" {
		pvc.Status.Phase = v1.ClaimPending
	}
	roundUpResourceList(pvc.Spec.Resources.Limits)
	roundUpResourceList(pvc.Spec.Resources.Requests)
	roundUpResourceList(pvc.Status.Capacity)
	roundUpResourceList(pvc.Status.AllocatedResources)
}

// SetDefaultsResourceQuota rounds the quota's quantities.
func SetDefaultsResourceQuota(q *v1.ResourceQuota) {
	roundUpResourceList(q.Spec.Hard)
	roundUpResourceList(q.Status.Hard)
	roundUpResourceList(q.Status.Used)
}

// SetDefaultsLimitRange fills in the defaults of container limits: the
// default limit is the maximum, and the default request is the default
// limit or, failing that, the minimum.
func SetDefaultsLimitRange(lr *v1.LimitRange) {
	for i := range lr.Spec.Limits {
		item := &lr.Spec.Limits[i]
		if item.Type == v1.LimitTypeContainer {
			if item.Default == nil {
				item.Default = v1.ResourceList{}
			}
			if item.DefaultRequest == nil {
				item.DefaultRequest = v1.ResourceList{}
			}
			for name, q := range item.Max {
				if _, ok := item.Default[name]; !ok {
					item.Default[name] = q.DeepCopy()
				}
			}
			for name, q := range item.Default {
				if _, ok := item.DefaultRequest[name]; !ok {
					item.DefaultRequest[name] = q.DeepCopy()
				}
			}
			for name, q := range item.Min {
				if _, ok := item.DefaultRequest[name]; !ok {
					item.DefaultRequest[name] = q.DeepCopy()
				}
			}
		}
		for _, list := range []v1.ResourceList{item.Max, item.Min, item.Default, item.DefaultRequest, item.MaxLimitRequestRatio} {
			roundUpResourceList(list)
		}
	}
}

// SetDefaultsReplicationController takes the selector and the labels of
// a controller from its template's labels when it has none, runs one
// replica unless told otherwise, and defaults its pod template.
func SetDefaultsReplicationController(rc *v1.ReplicationController) {
	if rc.Spec.Template != nil {
		if labels := rc.Spec.Template.Labels; labels != nil {
			if len(rc.Spec.Selector) == 0 {
				rc.Spec.Selector = labels
			}
			if len(rc.Labels) == 0 {
				rc.Labels = labels
			}
		}
		SetDefaultsPodTemplateSpec(rc.Spec.Template)
	}
	if rc.Spec.Replicas == nil {
		one := int32(1)
		rc.Spec.Replicas = &one
	}
}

// SetDefaultsPodTemplate defaults the template's pod spec.
func SetDefaultsPodTemplate(pt *v1.PodTemplate) {
	SetDefaultsPodTemplateSpec(&pt.Template)
}
