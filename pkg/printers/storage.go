package printers

import (
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The printers of storage: v1 PersistentVolumes and
// PersistentVolumeClaims, storage.k8s.io/v1 StorageClasses.

var storageClassDoc = storagev1.StorageClass{}.SwaggerDoc()

var storageClassColumns = []metav1.TableColumnDefinition{
	nameColumn,
	column("Provisioner", "string", storageClassDoc["provisioner"]),
	column("ReclaimPolicy", "string", storageClassDoc["reclaimPolicy"]),
	column("VolumeBindingMode", "string", storageClassDoc["volumeBindingMode"]),
	column("AllowVolumeExpansion", "string", storageClassDoc["allowVolumeExpansion"]),
	ageColumn,
}

// printStorageClass renders a storage class, its name followed by
// "(default)" for the cluster's default class. Unset policies show their
// defaults.
func printStorageClass(sc *storagev1.StorageClass, now time.Time) []any {
	name := sc.Name
	if isDefaultStorageClass(&sc.ObjectMeta) {
		name += " (default)"
	}
	reclaimPolicy := string(corev1.PersistentVolumeReclaimDelete)
	if sc.ReclaimPolicy != nil {
		reclaimPolicy = string(*sc.ReclaimPolicy)
	}
	bindingMode := string(storagev1.VolumeBindingImmediate)
	if sc.VolumeBindingMode != nil {
		bindingMode = string(*sc.VolumeBindingMode)
	}
	expansion := sc.AllowVolumeExpansion != nil && *sc.AllowVolumeExpansion
	return []any{name, sc.Provisioner, reclaimPolicy, bindingMode, expansion, since(sc.CreationTimestamp, now)}
}

// isDefaultStorageClass tells whether an annotation, current or beta,
// makes a storage class the default one.
func isDefaultStorageClass(m *metav1.ObjectMeta) bool {
	return m.Annotations["storageclass.kubernetes.io/is-default-class"] == "true" ||
		m.Annotations["storageclass.beta.kubernetes.io/is-default-class"] == "true"
}

var (
	pvSpecDoc    = corev1.PersistentVolumeSpec{}.SwaggerDoc()
	pvStatusDoc  = corev1.PersistentVolumeStatus{}.SwaggerDoc()
	pvcSpecDoc   = corev1.PersistentVolumeClaimSpec{}.SwaggerDoc()
	pvcStatusDoc = corev1.PersistentVolumeClaimStatus{}.SwaggerDoc()
)

var persistentVolumeColumns = []metav1.TableColumnDefinition{
	nameColumn,
	column("Capacity", "string", pvSpecDoc["capacity"]),
	column("Access Modes", "string", pvSpecDoc["accessModes"]),
	column("Reclaim Policy", "string", pvSpecDoc["persistentVolumeReclaimPolicy"]),
	column("Status", "string", pvStatusDoc["phase"]),
	column("Claim", "string", pvSpecDoc["claimRef"]),
	column("StorageClass", "string", "StorageClass of the pv"),
	column("VolumeAttributesClass", "string", "VolumeAttributesClass of the pv"),
	column("Reason", "string", pvStatusDoc["reason"]),
	ageColumn,
	wide(column("VolumeMode", "string", pvSpecDoc["volumeMode"])),
}

func printPersistentVolume(pv *corev1.PersistentVolume, now time.Time) []any {
	var claim string
	if ref := pv.Spec.ClaimRef; ref != nil {
		claim = ref.Namespace + "/" + ref.Name
	}
	phase := string(pv.Status.Phase)
	if pv.DeletionTimestamp != nil {
		phase = "Terminating"
	}
	class := pv.Spec.StorageClassName
	if c, ok := pv.Annotations[corev1.BetaStorageClassAnnotation]; ok {
		class = c
	}
	capacity := pv.Spec.Capacity[corev1.ResourceStorage]
	return []any{
		pv.Name,
		capacity.String(),
		accessModes(pv.Spec.AccessModes),
		string(pv.Spec.PersistentVolumeReclaimPolicy),
		phase,
		claim,
		class,
		orUnsetPtr(pv.Spec.VolumeAttributesClassName),
		pv.Status.Reason,
		since(pv.CreationTimestamp, now),
		volumeMode(pv.Spec.VolumeMode),
	}
}

var persistentVolumeClaimColumns = []metav1.TableColumnDefinition{
	nameColumn,
	column("Status", "string", pvcStatusDoc["phase"]),
	column("Volume", "string", pvcSpecDoc["volumeName"]),
	column("Capacity", "string", pvcStatusDoc["capacity"]),
	column("Access Modes", "string", pvcStatusDoc["accessModes"]),
	column("StorageClass", "string", "StorageClass of the pvc"),
	column("VolumeAttributesClass", "string", "VolumeAttributesClass of the pvc"),
	ageColumn,
	wide(column("VolumeMode", "string", pvcSpecDoc["volumeMode"])),
}

// printPersistentVolumeClaim renders a claim. Capacity and access modes
// are those of the bound volume, blank until the claim names one.
func printPersistentVolumeClaim(pvc *corev1.PersistentVolumeClaim, now time.Time) []any {
	phase := string(pvc.Status.Phase)
	if pvc.DeletionTimestamp != nil {
		phase = "Terminating"
	}
	var capacity, modes string
	if pvc.Spec.VolumeName != "" {
		q := pvc.Status.Capacity[corev1.ResourceStorage]
		capacity, modes = q.String(), accessModes(pvc.Status.AccessModes)
	}
	var class string
	if c, ok := pvc.Annotations[corev1.BetaStorageClassAnnotation]; ok {
		class = c
	} else if pvc.Spec.StorageClassName != nil {
		class = *pvc.Spec.StorageClassName
	}
	return []any{
		pvc.Name,
		phase,
		pvc.Spec.VolumeName,
		capacity,
		modes,
		class,
		orUnsetPtr(pvc.Spec.VolumeAttributesClassName),
		since(pvc.CreationTimestamp, now),
		volumeMode(pvc.Spec.VolumeMode),
	}
}

// accessModes abbreviates access modes (RWO, ROX, RWX, RWOP), in that
// order whatever the order given.
func accessModes(modes []corev1.PersistentVolumeAccessMode) string {
	var abbreviated []string
	for _, m := range []struct {
		mode corev1.PersistentVolumeAccessMode
		abbr string
	}{
		{corev1.ReadWriteOnce, "RWO"},
		{corev1.ReadOnlyMany, "ROX"},
		{corev1.ReadWriteMany, "RWX"},
		{corev1.ReadWriteOncePod, "RWOP"},
	} {
		if slices.Contains(modes, m.mode) {
			abbreviated = append(abbreviated, m.abbr)
		}
	}
	return strings.Join(abbreviated, ",")
}

func volumeMode(m *corev1.PersistentVolumeMode) string {
	if m == nil {
		return "<unset>"
	}
	return string(*m)
}

func orUnsetPtr(s *string) string {
	if s == nil {
		return "<unset>"
	}
	return *s
}

// The printers of the CSI kinds of storage.k8s.io/v1: CSIDrivers,
// CSINodes, VolumeAttachments and VolumeAttributesClasses
// (CSIStorageCapacities have kube-apiserver's default columns).

var csiDriverSpecDoc = storagev1.CSIDriverSpec{}.SwaggerDoc()

var csiDriverColumns = []metav1.TableColumnDefinition{
	nameColumn,
	column("AttachRequired", "boolean", csiDriverSpecDoc["attachRequired"]),
	column("PodInfoOnMount", "boolean", csiDriverSpecDoc["podInfoOnMount"]),
	column("StorageCapacity", "boolean", csiDriverSpecDoc["storageCapacity"]),
	column("TokenRequests", "string", csiDriverSpecDoc["tokenRequests"]),
	column("RequiresRepublish", "boolean", csiDriverSpecDoc["requiresRepublish"]),
	column("Modes", "string", csiDriverSpecDoc["volumeLifecycleModes"]),
	ageColumn,
}

// printCSIDriver shows unset booleans as their defaults, the audiences of
// the token requests (<unset> when there is no list) and the lifecycle
// modes (<none> when there is none).
func printCSIDriver(d *storagev1.CSIDriver, now time.Time) []any {
	boolOr := func(p *bool, def bool) bool {
		if p == nil {
			return def
		}
		return *p
	}
	tokenRequests := "<unset>"
	if d.Spec.TokenRequests != nil {
		audiences := make([]string, 0, len(d.Spec.TokenRequests))
		for _, r := range d.Spec.TokenRequests {
			audiences = append(audiences, r.Audience)
		}
		tokenRequests = strings.Join(audiences, ",")
	}
	modes := make([]string, 0, len(d.Spec.VolumeLifecycleModes))
	for _, m := range d.Spec.VolumeLifecycleModes {
		modes = append(modes, string(m))
	}
	return []any{
		d.Name,
		boolOr(d.Spec.AttachRequired, true),
		boolOr(d.Spec.PodInfoOnMount, false),
		boolOr(d.Spec.StorageCapacity, false),
		tokenRequests,
		boolOr(d.Spec.RequiresRepublish, false),
		orNone(strings.Join(modes, ",")),
		since(d.CreationTimestamp, now),
	}
}

var csiNodeColumns = []metav1.TableColumnDefinition{
	nameColumn,
	column("Drivers", "integer", "Drivers indicates the number of CSI drivers registered on the node"),
	ageColumn,
}

func printCSINode(n *storagev1.CSINode, now time.Time) []any {
	return []any{n.Name, int64(len(n.Spec.Drivers)), since(n.CreationTimestamp, now)}
}

var (
	volumeAttachmentSpecDoc   = storagev1.VolumeAttachmentSpec{}.SwaggerDoc()
	volumeAttachmentSourceDoc = storagev1.VolumeAttachmentSource{}.SwaggerDoc()
	volumeAttachmentStatusDoc = storagev1.VolumeAttachmentStatus{}.SwaggerDoc()
)

var volumeAttachmentColumns = []metav1.TableColumnDefinition{
	nameColumn,
	{Name: "Attacher", Type: "string", Format: "name", Description: volumeAttachmentSpecDoc["attacher"]},
	column("PV", "string", volumeAttachmentSourceDoc["persistentVolumeName"]),
	column("Node", "string", volumeAttachmentSpecDoc["nodeName"]),
	column("Attached", "boolean", volumeAttachmentStatusDoc["attached"]),
	ageColumn,
}

// printVolumeAttachment leaves the PV empty for an inline volume.
func printVolumeAttachment(va *storagev1.VolumeAttachment, now time.Time) []any {
	var pv string
	if va.Spec.Source.PersistentVolumeName != nil {
		pv = *va.Spec.Source.PersistentVolumeName
	}
	return []any{va.Name, va.Spec.Attacher, pv, va.Spec.NodeName, va.Status.Attached, since(va.CreationTimestamp, now)}
}

var volumeAttributesClassColumns = []metav1.TableColumnDefinition{
	nameColumn,
	column("DriverName", "string", storagev1.VolumeAttributesClass{}.SwaggerDoc()["driverName"]),
	ageColumn,
}

func printVolumeAttributesClass(c *storagev1.VolumeAttributesClass, now time.Time) []any {
	return []any{c.Name, c.DriverName, since(c.CreationTimestamp, now)}
}
