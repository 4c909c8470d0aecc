package core

import (
	"fmt"
	"path"

	v1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metavalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

var (
	accessModes      = []v1.PersistentVolumeAccessMode{v1.ReadOnlyMany, v1.ReadWriteMany, v1.ReadWriteOnce, v1.ReadWriteOncePod}
	reclaimPolicies  = []v1.PersistentVolumeReclaimPolicy{v1.PersistentVolumeReclaimDelete, v1.PersistentVolumeReclaimRecycle, v1.PersistentVolumeReclaimRetain}
	volumeModes      = []v1.PersistentVolumeMode{v1.PersistentVolumeBlock, v1.PersistentVolumeFilesystem}
	resizeStatuses   = []v1.ClaimResourceStatus{v1.PersistentVolumeClaimControllerResizeInProgress, v1.PersistentVolumeClaimControllerResizeInfeasible, v1.PersistentVolumeClaimNodeResizeInProgress, v1.PersistentVolumeClaimNodeResizeInfeasible, v1.PersistentVolumeClaimNodeResizePending}
	betaStorageClass = v1.BetaStorageClassAnnotation
)

// validateAccessModes requires at least one known access mode, and
// ReadWriteOncePod alone.
func validateAccessModes(modes []v1.PersistentVolumeAccessMode, requiredDetail string, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if len(modes) == 0 {
		allErrs = append(allErrs, field.Required(fldPath, requiredDetail))
	}
	known := sets.New(accessModes...)
	oncePod, others := false, false
	for _, mode := range modes {
		if !known.Has(mode) {
			allErrs = append(allErrs, field.NotSupported(fldPath, mode, accessModes))
		}
		if mode == v1.ReadWriteOncePod {
			oncePod = true
		} else if known.Has(mode) {
			others = true
		}
	}
	if oncePod && others {
		allErrs = append(allErrs, field.Forbidden(fldPath, "may not use ReadWriteOncePod with other access modes"))
	}
	return allErrs
}

func validateClassName(name string, fldPath *field.Path) field.ErrorList {
	return validateName(apivalidation.NameIsDNSSubdomain, name, fldPath)
}

// validateBasicResource refuses negative quantities, showing the value in
// whole units.
func validateBasicResource(q resource.Quantity, fldPath *field.Path) field.ErrorList {
	if q.Value() < 0 {
		return field.ErrorList{field.Invalid(fldPath, q.Value(), "must be a valid resource quantity")}
	}
	return nil
}

func validatePositiveQuantity(q resource.Quantity, fldPath *field.Path) field.ErrorList {
	if q.Sign() <= 0 {
		return field.ErrorList{field.Invalid(fldPath, q.String(), "must be greater than zero")}
	}
	return nil
}

// ValidatePersistentVolume validates a volume on create.
func ValidatePersistentVolume(pv *v1.PersistentVolume, oldPV *v1.PersistentVolume) field.ErrorList {
	allErrs := ValidateObjectMeta(&pv.ObjectMeta, false, apivalidation.NameIsDNSSubdomain, metadataPath)
	return append(allErrs, validatePersistentVolumeSpec(&pv.Spec, pv.Name, allowInvalidAffinityValues(oldPV), specPath)...)
}

// allowInvalidAffinityValues ratchets the label values of a volume's node
// affinity: an update may keep values that were invalid before.
func allowInvalidAffinityValues(old *v1.PersistentVolume) bool {
	if old == nil || old.Spec.NodeAffinity == nil || old.Spec.NodeAffinity.Required == nil {
		return false
	}
	for _, term := range old.Spec.NodeAffinity.Required.NodeSelectorTerms {
		for _, req := range term.MatchExpressions {
			for _, value := range req.Values {
				if len(validation.IsValidLabelValue(value)) > 0 {
					return true
				}
			}
		}
	}
	return false
}

func validatePersistentVolumeSpec(spec *v1.PersistentVolumeSpec, pvName string, allowInvalidAffinity bool, fldPath *field.Path) field.ErrorList {
	allErrs := validateAccessModes(spec.AccessModes, "", fldPath.Child("accessModes"))

	capPath := fldPath.Child("capacity")
	if len(spec.Capacity) == 0 {
		allErrs = append(allErrs, field.Required(capPath, ""))
	}
	if _, ok := spec.Capacity[v1.ResourceStorage]; !ok || len(spec.Capacity) > 1 {
		allErrs = append(allErrs, field.NotSupported(capPath, spec.Capacity, []v1.ResourceName{v1.ResourceStorage}))
	}
	for _, name := range sortedKeys(spec.Capacity) {
		allErrs = append(allErrs, validateBasicResource(spec.Capacity[name], capPath.Key(string(name)))...)
		allErrs = append(allErrs, validatePositiveQuantity(spec.Capacity[name], capPath.Key(string(name)))...)
	}
	if spec.PersistentVolumeReclaimPolicy != "" && !sets.New(reclaimPolicies...).Has(spec.PersistentVolumeReclaimPolicy) {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("persistentVolumeReclaimPolicy"), spec.PersistentVolumeReclaimPolicy, reclaimPolicies))
	}
	hasAffinity := spec.NodeAffinity != nil
	if hasAffinity {
		affinityPath := fldPath.Child("nodeAffinity")
		if spec.NodeAffinity.Required != nil {
			allErrs = append(allErrs, validateNodeSelector(spec.NodeAffinity.Required, allowInvalidAffinity, affinityPath.Child("required"))...)
		} else {
			allErrs = append(allErrs, field.Required(affinityPath.Child("required"), "must specify required node constraints"))
		}
	}

	count := 0
	for _, t := range persistentVolumeTypes(spec, pvName, hasAffinity, fldPath) {
		if !t.set {
			continue
		}
		// A flex volume is counted but never reported as the extra one.
		if count > 0 && t.name != "flexVolume" {
			allErrs = append(allErrs, field.Forbidden(fldPath.Child(t.name), "may not specify more than 1 volume type"))
			continue
		}
		count++
		allErrs = append(allErrs, t.validate(fldPath.Child(t.name))...)
	}
	if count == 0 {
		allErrs = append(allErrs, field.Required(fldPath, "must specify a volume type"))
	}

	if spec.HostPath != nil && path.Clean(spec.HostPath.Path) == "/" && spec.PersistentVolumeReclaimPolicy == v1.PersistentVolumeReclaimRecycle {
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("persistentVolumeReclaimPolicy"), "may not be 'recycle' for a hostPath mount of '/'"))
	}
	if spec.StorageClassName != "" {
		allErrs = append(allErrs, validateClassName(spec.StorageClassName, fldPath.Child("storageClassName"))...)
	}
	if spec.VolumeMode != nil && !sets.New(volumeModes...).Has(*spec.VolumeMode) {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("volumeMode"), *spec.VolumeMode, volumeModes))
	}
	if vac := spec.VolumeAttributesClassName; vac != nil {
		if *vac == "" {
			allErrs = append(allErrs, field.Required(fldPath.Child("volumeAttributesClassName"), "an empty string is disallowed"))
		} else {
			allErrs = append(allErrs, validateClassName(*vac, fldPath.Child("volumeAttributesClassName"))...)
		}
		if spec.CSI == nil {
			allErrs = append(allErrs, field.Required(fldPath.Child("csi"), "has to be specified when using volumeAttributesClassName"))
		}
	}
	return allErrs
}

// persistentVolumeTypes lists the sources of a volume in kube-apiserver's
// order, which decides which of several is reported as the extra one.
func persistentVolumeTypes(spec *v1.PersistentVolumeSpec, pvName string, hasAffinity bool, specFldPath *field.Path) []volumeType {
	src := &spec.PersistentVolumeSource
	return []volumeType{
		{"hostPath", src.HostPath != nil, func(p *field.Path) field.ErrorList { return validateHostPath(src.HostPath, p) }},
		{"gcePersistentDisk", src.GCEPersistentDisk != nil, func(*field.Path) field.ErrorList {
			// Reported as "persistentDisk" by kube-apiserver.
			p := specFldPath.Child("persistentDisk")
			allErrs := requireString(src.GCEPersistentDisk.PDName, p.Child("pdName"))
			return append(allErrs, validatePartition(src.GCEPersistentDisk.Partition, p.Child("partition"))...)
		}},
		{"awsElasticBlockStore", src.AWSElasticBlockStore != nil, func(p *field.Path) field.ErrorList {
			allErrs := requireString(src.AWSElasticBlockStore.VolumeID, p.Child("volumeID"))
			return append(allErrs, validatePartition(src.AWSElasticBlockStore.Partition, p.Child("partition"))...)
		}},
		{"glusterfs", src.Glusterfs != nil, func(p *field.Path) field.ErrorList {
			g := src.Glusterfs
			allErrs := requireString(g.EndpointsName, p.Child("endpoints"))
			allErrs = append(allErrs, requireString(g.Path, p.Child("path"))...)
			if ns := g.EndpointsNamespace; ns != nil {
				if *ns == "" {
					allErrs = append(allErrs, field.Invalid(p.Child("endpointsNamespace"), *ns, "if the endpointnamespace is set, it must be a valid namespace name"))
				} else {
					allErrs = append(allErrs, validateName(apivalidation.ValidateNamespaceName, *ns, p.Child("endpointsNamespace"))...)
				}
			}
			return allErrs
		}},
		{"flocker", src.Flocker != nil, func(p *field.Path) field.ErrorList { return validateFlocker(src.Flocker, p) }},
		{"nfs", src.NFS != nil, func(p *field.Path) field.ErrorList {
			allErrs := requireString(src.NFS.Server, p.Child("server"))
			allErrs = append(allErrs, requireString(src.NFS.Path, p.Child("path"))...)
			if !path.IsAbs(src.NFS.Path) {
				allErrs = append(allErrs, field.Invalid(p.Child("path"), src.NFS.Path, "must be an absolute path"))
			}
			return allErrs
		}},
		{"rbd", src.RBD != nil, func(p *field.Path) field.ErrorList {
			var allErrs field.ErrorList
			if len(src.RBD.CephMonitors) == 0 {
				allErrs = append(allErrs, field.Required(p.Child("monitors"), ""))
			}
			return append(allErrs, requireString(src.RBD.RBDImage, p.Child("image"))...)
		}},
		{"quobyte", src.Quobyte != nil, func(p *field.Path) field.ErrorList { return validateQuobyte(src.Quobyte, p) }},
		{"cephFS", src.CephFS != nil, func(*field.Path) field.ErrorList {
			if len(src.CephFS.Monitors) == 0 {
				return field.ErrorList{field.Required(specFldPath.Child("cephfs", "monitors"), "")}
			}
			return nil
		}},
		{"iscsi", src.ISCSI != nil, func(p *field.Path) field.ErrorList { return validateISCSIPersistentVolume(src.ISCSI, pvName, p) }},
		{"cinder", src.Cinder != nil, func(p *field.Path) field.ErrorList {
			allErrs := requireString(src.Cinder.VolumeID, p.Child("volumeID"))
			if ref := src.Cinder.SecretRef; ref != nil {
				allErrs = append(allErrs, requireString(ref.Name, p.Child("secretRef", "name"))...)
				allErrs = append(allErrs, requireString(ref.Namespace, p.Child("secretRef", "namespace"))...)
			}
			return allErrs
		}},
		{"fc", src.FC != nil, func(p *field.Path) field.ErrorList { return validateFC(src.FC, p) }},
		{"flexVolume", src.FlexVolume != nil, func(p *field.Path) field.ErrorList {
			return validateFlexVolume(&v1.FlexVolumeSource{Driver: src.FlexVolume.Driver, Options: src.FlexVolume.Options}, p)
		}},
		{"azureFile", src.AzureFile != nil, func(p *field.Path) field.ErrorList {
			allErrs := requireString(src.AzureFile.SecretName, p.Child("secretName"))
			allErrs = append(allErrs, requireString(src.AzureFile.ShareName, p.Child("shareName"))...)
			if ns := src.AzureFile.SecretNamespace; ns != nil && *ns == "" {
				allErrs = append(allErrs, field.Required(p.Child("secretNamespace"), ""))
			}
			return allErrs
		}},
		{"vsphereVolume", src.VsphereVolume != nil, func(p *field.Path) field.ErrorList {
			return requireString(src.VsphereVolume.VolumePath, p.Child("volumePath"))
		}},
		{"photonPersistentDisk", src.PhotonPersistentDisk != nil, func(p *field.Path) field.ErrorList {
			return requireString(src.PhotonPersistentDisk.PdID, p.Child("pdID"))
		}},
		{"portworxVolume", src.PortworxVolume != nil, func(p *field.Path) field.ErrorList {
			return requireString(src.PortworxVolume.VolumeID, p.Child("volumeID"))
		}},
		{"azureDisk", src.AzureDisk != nil, func(p *field.Path) field.ErrorList { return validateAzureDisk(src.AzureDisk, p) }},
		{"scaleIO", src.ScaleIO != nil, func(p *field.Path) field.ErrorList {
			allErrs := requireString(src.ScaleIO.Gateway, p.Child("gateway"))
			allErrs = append(allErrs, requireString(src.ScaleIO.System, p.Child("system"))...)
			return append(allErrs, requireString(src.ScaleIO.VolumeName, p.Child("volumeName"))...)
		}},
		{"local", src.Local != nil, func(p *field.Path) field.ErrorList {
			var allErrs field.ErrorList
			if src.Local.Path == "" {
				allErrs = append(allErrs, field.Required(p.Child("path"), ""))
			} else {
				allErrs = append(allErrs, validateNoBacksteps(src.Local.Path, p.Child("path"))...)
			}
			if !hasAffinity {
				allErrs = append(allErrs, field.Required(specFldPath.Child("nodeAffinity"), "Local volume requires node affinity"))
			}
			return allErrs
		}},
		{"storageos", src.StorageOS != nil, func(p *field.Path) field.ErrorList {
			s := src.StorageOS
			var ref *v1.LocalObjectReference
			if s.SecretRef != nil {
				ref = &v1.LocalObjectReference{Name: s.SecretRef.Name}
			}
			allErrs := validateStorageOS(&v1.StorageOSVolumeSource{VolumeName: s.VolumeName, VolumeNamespace: s.VolumeNamespace, SecretRef: ref}, p)
			if s.SecretRef != nil {
				allErrs = append(allErrs, requireString(s.SecretRef.Namespace, p.Child("secretRef", "namespace"))...)
			}
			return allErrs
		}},
		{"csi", src.CSI != nil, func(p *field.Path) field.ErrorList {
			csi := src.CSI
			allErrs := validateCSIDriverName(csi.Driver, p.Child("driver"))
			allErrs = append(allErrs, requireString(csi.VolumeHandle, p.Child("volumeHandle"))...)
			for _, ref := range []struct {
				name string
				ref  *v1.SecretReference
			}{
				{"controllerPublishSecretRef", csi.ControllerPublishSecretRef}, {"controllerExpandSecretRef", csi.ControllerExpandSecretRef},
				{"nodePublishSecretRef", csi.NodePublishSecretRef}, {"nodeExpandSecretRef", csi.NodeExpandSecretRef},
			} {
				if ref.ref != nil {
					allErrs = append(allErrs, validateSecretReference(ref.ref, p.Child(ref.name))...)
				}
			}
			return allErrs
		}},
	}
}

func validateSecretReference(ref *v1.SecretReference, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if ref.Name == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("name"), ""))
	} else {
		allErrs = append(allErrs, validateDNS1123Subdomain(ref.Name, fldPath.Child("name"))...)
	}
	if ref.Namespace == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("namespace"), ""))
	} else {
		allErrs = append(allErrs, validateDNS1123Label(ref.Namespace, fldPath.Child("namespace"))...)
	}
	return allErrs
}

// validateISCSIPersistentVolume validates an iSCSI volume source of a
// persistent volume, which differs in its messages from a pod's.
func validateISCSIPersistentVolume(iscsi *v1.ISCSIPersistentVolumeSource, pvName string, fldPath *field.Path) field.ErrorList {
	allErrs := requireString(iscsi.TargetPortal, fldPath.Child("targetPortal"))
	if iscsi.InitiatorName != nil && len(pvName+":"+iscsi.TargetPortal) > 64 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("targetportal"), iscsi.TargetPortal, "Total length of <volume name>:<iscsi.targetPortal> must be under 64 characters if iscsi.initiatorName is specified."))
	}
	if iscsi.IQN == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("iqn"), ""))
	} else if valid, _ := validISCSIName(iscsi.IQN); !valid {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("iqn"), iscsi.IQN, "must be valid format"))
	}
	if iscsi.Lun < 0 || iscsi.Lun > 255 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("lun"), iscsi.Lun, validation.InclusiveRangeError(0, 255)))
	}
	if (iscsi.DiscoveryCHAPAuth || iscsi.SessionCHAPAuth) && iscsi.SecretRef == nil {
		allErrs = append(allErrs, field.Required(fldPath.Child("secretRef"), ""))
	}
	if iscsi.SecretRef != nil {
		allErrs = append(allErrs, requireString(iscsi.SecretRef.Name, fldPath.Child("secretRef", "name"))...)
	}
	if iscsi.InitiatorName != nil {
		if valid, _ := validISCSIName(*iscsi.InitiatorName); !valid {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("initiatorname"), *iscsi.InitiatorName, "must be valid format"))
		}
	}
	return allErrs
}

// ValidatePersistentVolumeUpdate validates an update of a volume: its
// source and mode never change, its node affinity only from beta labels
// to their GA names, and a volume attributes class is never removed.
func ValidatePersistentVolumeUpdate(pv, old *v1.PersistentVolume) field.ErrorList {
	allErrs := ValidateObjectMetaUpdate(&pv.ObjectMeta, &old.ObjectMeta, metadataPath)
	allErrs = append(allErrs, ValidatePersistentVolume(pv, old)...)
	newSource := pv.Spec.PersistentVolumeSource
	// A CSI volume may gain the secret its controller expands it with.
	if old.Spec.CSI != nil && old.Spec.CSI.ControllerExpandSecretRef == nil && newSource.CSI != nil && newSource.CSI.ControllerExpandSecretRef != nil {
		csi := *newSource.CSI
		csi.ControllerExpandSecretRef = nil
		newSource.CSI = &csi
	}
	if !apiequality.Semantic.DeepEqual(newSource, old.Spec.PersistentVolumeSource) {
		allErrs = append(allErrs, field.Forbidden(field.NewPath("spec", "persistentvolumesource"),
			"spec.persistentvolumesource is immutable after creation\n"+internalDiff(old.Spec.PersistentVolumeSource, newSource)))
	}
	allErrs = append(allErrs, apivalidation.ValidateImmutableField(pv.Spec.VolumeMode, old.Spec.VolumeMode, field.NewPath("volumeMode"))...)
	if old.Spec.NodeAffinity != nil && !nodeAffinityEqualUpToGALabels(pv.Spec.NodeAffinity, old.Spec.NodeAffinity) {
		allErrs = append(allErrs, field.Invalid(field.NewPath("nodeAffinity"), internalJSON(pv.Spec.NodeAffinity), apivalidation.FieldImmutableErrorMsg+", except for updating from beta label to GA"))
	}
	if old.Spec.VolumeAttributesClassName != nil && pv.Spec.VolumeAttributesClassName == nil {
		allErrs = append(allErrs, field.Forbidden(specPath.Child("volumeAttributesClassName"), "update from non-nil value to nil is forbidden"))
	}
	return allErrs
}

// betaToGALabels are the beta node labels and the names they have since
// they went GA.
var betaToGALabels = map[string]string{
	v1.LabelFailureDomainBetaZone:   v1.LabelTopologyZone,
	v1.LabelFailureDomainBetaRegion: v1.LabelTopologyRegion,
	"beta.kubernetes.io/os":         v1.LabelOSStable,
	"beta.kubernetes.io/arch":       v1.LabelArchStable,
	v1.LabelInstanceType:            v1.LabelInstanceTypeStable,
}

// nodeAffinityEqualUpToGALabels reports whether a volume's node affinity
// is unchanged, allowing only the keys of requirements to move from a beta
// label to its GA name.
func nodeAffinityEqualUpToGALabels(affinity, old *v1.VolumeNodeAffinity) bool {
	if affinity != nil && old != nil && affinity.Required != nil && old.Required != nil &&
		len(affinity.Required.NodeSelectorTerms) == len(old.Required.NodeSelectorTerms) {
		old = old.DeepCopy()
		for i, term := range affinity.Required.NodeSelectorTerms {
			oldTerm := &old.Required.NodeSelectorTerms[i]
			renameToGA(term.MatchExpressions, oldTerm.MatchExpressions)
			renameToGA(term.MatchFields, oldTerm.MatchFields)
		}
	}
	return apiequality.Semantic.DeepEqual(affinity, old)
}

func renameToGA(reqs, oldReqs []v1.NodeSelectorRequirement) {
	if len(reqs) != len(oldReqs) {
		return
	}
	for j := range reqs {
		if ga, ok := betaToGALabels[oldReqs[j].Key]; ok && reqs[j].Key == ga {
			oldReqs[j].Key = ga
		}
	}
}

// ValidatePersistentVolumeStatusUpdate validates a write of a volume's
// /status.
func ValidatePersistentVolumeStatusUpdate(pv, old *v1.PersistentVolume) field.ErrorList {
	allErrs := ValidateObjectMetaUpdate(&pv.ObjectMeta, &old.ObjectMeta, metadataPath)
	if pv.ResourceVersion == "" {
		allErrs = append(allErrs, field.Required(field.NewPath("resourceVersion"), ""))
	}
	return allErrs
}

// claimOptions are the rules an update of a claim may relax: what the old
// claim already had is allowed to stay.
type claimOptions struct {
	allowInvalidSelectorValues bool
	allowInvalidAPIGroup       bool
}

func claimOptionsFor(old *v1.PersistentVolumeClaim) claimOptions {
	var opts claimOptions
	if old == nil {
		return opts
	}
	spec := &old.Spec
	opts.allowInvalidAPIGroup = (spec.DataSource != nil && spec.DataSource.APIGroup != nil) || (spec.DataSourceRef != nil && spec.DataSourceRef.APIGroup != nil)
	opts.allowInvalidSelectorValues = len(metavalidation.ValidateLabelSelector(spec.Selector, metavalidation.LabelSelectorValidationOptions{}, nil)) > 0
	return opts
}

// NormalizeClaimDataSources makes a claim's data source fields agree, as
// kube-apiserver does before validating: a dataSource of a kind other
// than a claim or a volume snapshot is dropped (unless the old claim had
// one), and each of dataSource and dataSourceRef is filled in from the
// other (a reference to another namespace, which the registry has
// already dropped unless the CrossNamespaceVolumeDataSource gate is on,
// has no dataSource).
func NormalizeClaimDataSources(spec, old *v1.PersistentVolumeClaimSpec) {
	if ds := spec.DataSource; ds != nil && (old == nil || old.DataSource == nil) {
		group := ""
		if ds.APIGroup != nil {
			group = *ds.APIGroup
		}
		if !(group == "" && ds.Kind == "PersistentVolumeClaim") && !(group == "snapshot.storage.k8s.io" && ds.Kind == "VolumeSnapshot") {
			spec.DataSource = nil
		}
	}
	switch ds, ref := spec.DataSource, spec.DataSourceRef; {
	case ds != nil && ref == nil:
		spec.DataSourceRef = &v1.TypedObjectReference{APIGroup: ds.APIGroup, Kind: ds.Kind, Name: ds.Name}
	case ref != nil && ds == nil && (ref.Namespace == nil || *ref.Namespace == ""):
		spec.DataSource = &v1.TypedLocalObjectReference{APIGroup: ref.APIGroup, Kind: ref.Kind, Name: ref.Name}
	}
}

// ValidatePersistentVolumeClaim validates a claim on create.
func ValidatePersistentVolumeClaim(pvc *v1.PersistentVolumeClaim) field.ErrorList {
	return validatePersistentVolumeClaim(pvc, claimOptions{})
}

func validatePersistentVolumeClaim(pvc *v1.PersistentVolumeClaim, opts claimOptions) field.ErrorList {
	allErrs := ValidateObjectMeta(&pvc.ObjectMeta, true, apivalidation.NameIsDNSSubdomain, metadataPath)
	return append(allErrs, validatePersistentVolumeClaimSpec(&pvc.Spec, opts, specPath)...)
}

// ValidatePersistentVolumeClaimSpec validates the spec of a new claim
// template (a StatefulSet's volumeClaimTemplates) as a claim's.
func ValidatePersistentVolumeClaimSpec(spec *v1.PersistentVolumeClaimSpec, fldPath *field.Path) field.ErrorList {
	return validatePersistentVolumeClaimSpec(spec, claimOptions{}, fldPath)
}

func validatePersistentVolumeClaimSpec(spec *v1.PersistentVolumeClaimSpec, opts claimOptions, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if len(spec.AccessModes) == 0 {
		allErrs = append(allErrs, field.Required(fldPath.Child("accessModes"), "at least 1 access mode is required"))
	}
	if spec.Selector != nil {
		allErrs = append(allErrs, metavalidation.ValidateLabelSelector(spec.Selector, metavalidation.LabelSelectorValidationOptions{AllowInvalidLabelValueInSelector: opts.allowInvalidSelectorValues}, fldPath.Child("selector"))...)
	}
	if len(spec.AccessModes) > 0 {
		allErrs = append(allErrs, validateAccessModes(spec.AccessModes, "", fldPath.Child("accessModes"))...)
	}
	storagePath := fldPath.Child("resources").Key(string(v1.ResourceStorage))
	if storage, ok := spec.Resources.Requests[v1.ResourceStorage]; !ok {
		allErrs = append(allErrs, field.Required(storagePath, ""))
	} else if errs := validatePositiveQuantity(storage, storagePath); len(errs) > 0 {
		allErrs = append(allErrs, errs...)
	} else {
		allErrs = append(allErrs, validateResourceQuantity(v1.ResourceStorage, storage, storagePath)...)
	}
	if spec.StorageClassName != nil && *spec.StorageClassName != "" {
		allErrs = append(allErrs, validateClassName(*spec.StorageClassName, fldPath.Child("storageClassName"))...)
	}
	if spec.VolumeMode != nil && !sets.New(volumeModes...).Has(*spec.VolumeMode) {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("volumeMode"), *spec.VolumeMode, volumeModes))
	}
	if ds := spec.DataSource; ds != nil {
		allErrs = append(allErrs, validateDataSource(ds.Name, ds.Kind, ds.APIGroup, nil, opts.allowInvalidAPIGroup, fldPath.Child("dataSource"))...)
	}
	if ref := spec.DataSourceRef; ref != nil {
		allErrs = append(allErrs, validateDataSource(ref.Name, ref.Kind, ref.APIGroup, ref.Namespace, opts.allowInvalidAPIGroup, fldPath.Child("dataSourceRef"))...)
	}
	if ref := spec.DataSourceRef; ref != nil && ref.Namespace != nil && *ref.Namespace != "" {
		if spec.DataSource != nil {
			allErrs = append(allErrs, field.Invalid(fldPath, fldPath.Child("dataSource"), "may not be specified when dataSourceRef.namespace is specified"))
		}
	} else if ds := spec.DataSource; ds != nil && ref != nil {
		if !apiequality.Semantic.DeepEqual(ds.APIGroup, ref.APIGroup) || ds.Kind != ref.Kind || ds.Name != ref.Name {
			allErrs = append(allErrs, field.Invalid(fldPath, fldPath.Child("dataSource"), "must match dataSourceRef"))
		}
	}
	if vac := spec.VolumeAttributesClassName; vac != nil && *vac != "" {
		allErrs = append(allErrs, validateClassName(*vac, fldPath.Child("volumeAttributesClassName"))...)
	}
	return allErrs
}

// validateDataSource validates where a claim's data comes from: another
// claim (no API group) or an object of a named group.
func validateDataSource(name, kind string, apiGroup, namespace *string, allowInvalidAPIGroup bool, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if name == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("name"), ""))
	}
	if kind == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("kind"), ""))
	}
	group := ""
	if apiGroup != nil {
		group = *apiGroup
	}
	if group == "" && kind != "PersistentVolumeClaim" {
		allErrs = append(allErrs, field.Invalid(fldPath, kind, "must be 'PersistentVolumeClaim' when referencing the default apiGroup"))
	}
	if group != "" && !allowInvalidAPIGroup {
		allErrs = append(allErrs, messagesToErrors(validation.IsDNS1123Subdomain(group), group, fldPath.Child("apiGroup"))...)
	}
	if namespace != nil && *namespace != "" {
		allErrs = append(allErrs, validateName(apivalidation.ValidateNamespaceName, *namespace, fldPath.Child("namespace"))...)
	}
	return allErrs
}

// ValidatePersistentVolumeClaimUpdate validates an update of a claim. Its
// spec is immutable, except that an unbound claim may get a volume name
// once, a claim without a storage class may get one, and a bound claim may
// change its requested storage (not below its capacity) and its volume
// attributes class.
func ValidatePersistentVolumeClaimUpdate(pvc, old *v1.PersistentVolumeClaim) field.ErrorList {
	opts := claimOptionsFor(old)
	allErrs := ValidateObjectMetaUpdate(&pvc.ObjectMeta, &old.ObjectMeta, metadataPath)
	allErrs = append(allErrs, validatePersistentVolumeClaim(pvc, opts)...)
	newSpec, oldSpec := pvc.Spec.DeepCopy(), old.Spec.DeepCopy()
	if old.Spec.VolumeName == "" {
		oldSpec.VolumeName = newSpec.VolumeName
	}
	oldClass, oldHasAnnotation := old.Annotations[betaStorageClass]
	newClass, newHasAnnotation := pvc.Annotations[betaStorageClass]
	switch {
	case oldHasAnnotation && old.Spec.StorageClassName == nil && pvc.Spec.StorageClassName != nil &&
		*pvc.Spec.StorageClassName == oldClass && (!newHasAnnotation || newClass == oldClass):
		// The class moves from the beta annotation to the field.
		newSpec.StorageClassName = nil
	default:
		if newClass != oldClass {
			allErrs = append(allErrs, field.Invalid(metadataPath.Child("annotations", betaStorageClass), newClass, apivalidation.FieldImmutableErrorMsg))
		}
		if pvc.Spec.StorageClassName != nil && old.Spec.StorageClassName == nil && (!oldHasAnnotation || *pvc.Spec.StorageClassName == oldClass) {
			newSpec.StorageClassName = oldSpec.StorageClassName
		}
	}
	if pvc.Status.Phase == v1.ClaimBound {
		if newSpec.Resources.Requests != nil {
			newSpec.Resources.Requests[v1.ResourceStorage] = old.Spec.Resources.Requests[v1.ResourceStorage]
		}
		// A bound claim may change its volume attributes class, or
		// drop it.
		newSpec.VolumeAttributesClassName = oldSpec.VolumeAttributesClassName
	}
	if !apiequality.Semantic.DeepEqual(newSpec, oldSpec) {
		allErrs = append(allErrs, field.Forbidden(specPath, "spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims\n"+internalDiff(oldSpec, newSpec)))
	}
	newSize := pvc.Spec.Resources.Requests[v1.ResourceStorage]
	oldSize := old.Spec.Resources.Requests[v1.ResourceStorage]
	capacity := old.Status.Capacity[v1.ResourceStorage]
	if newSize.Cmp(oldSize) < 0 && newSize.Cmp(capacity) <= 0 {
		allErrs = append(allErrs, field.Forbidden(specPath.Child("resources", "requests", "storage"), "field can not be less than status.capacity"))
	}
	allErrs = append(allErrs, apivalidation.ValidateImmutableField(pvc.Spec.VolumeMode, old.Spec.VolumeMode, field.NewPath("volumeMode"))...)
	if old.Spec.VolumeAttributesClassName != nil && pvc.Spec.VolumeAttributesClassName != nil && *pvc.Spec.VolumeAttributesClassName == "" &&
		*old.Spec.VolumeAttributesClassName != "" {
		allErrs = append(allErrs, field.Forbidden(specPath.Child("volumeAttributesClassName"), "update from non-nil value to an empty string is forbidden"))
	}
	return allErrs
}

// validateClaimResourceKey validates a resource named in a claim's
// status: a qualified name, and among Kubernetes' own only storage.
func validateClaimResourceKey(name string, fldPath *field.Path) field.ErrorList {
	allErrs := validateQualifiedName(name, fldPath)
	if len(allErrs) == 0 && isNativeResource(v1.ResourceName(name)) && name != string(v1.ResourceStorage) {
		allErrs = append(allErrs, field.NotSupported(fldPath, name, []v1.ResourceName{v1.ResourceStorage}))
	}
	return allErrs
}

// ValidatePersistentVolumeClaimStatusUpdate validates a write of a
// claim's /status.
func ValidatePersistentVolumeClaimStatusUpdate(pvc, old *v1.PersistentVolumeClaim) field.ErrorList {
	allErrs := ValidateObjectMetaUpdate(&pvc.ObjectMeta, &old.ObjectMeta, metadataPath)
	if pvc.ResourceVersion == "" {
		allErrs = append(allErrs, field.Required(field.NewPath("resourceVersion"), ""))
	}
	if len(pvc.Spec.AccessModes) == 0 {
		allErrs = append(allErrs, field.Required(field.NewPath("Spec", "accessModes"), ""))
	}
	capPath := statusPath.Child("capacity")
	for _, name := range sortedKeys(pvc.Status.Capacity) {
		allErrs = append(allErrs, validateBasicResource(pvc.Status.Capacity[name], capPath.Key(string(name)))...)
	}
	statusesPath := statusPath.Child("allocatedResourceStatuses")
	for _, name := range sortedKeys(pvc.Status.AllocatedResourceStatuses) {
		allErrs = append(allErrs, validateClaimResourceKey(string(name), statusesPath)...)
		if !sets.New(resizeStatuses...).Has(pvc.Status.AllocatedResourceStatuses[name]) {
			allErrs = append(allErrs, field.NotSupported(statusesPath, name, resizeStatuses))
		}
	}
	allocPath := statusPath.Child("allocatedResources")
	for _, name := range sortedKeys(pvc.Status.AllocatedResources) {
		if errs := validateClaimResourceKey(string(name), allocPath); len(errs) > 0 {
			allErrs = append(allErrs, errs...)
			continue
		}
		q := pvc.Status.AllocatedResources[name]
		if errs := validateBasicResource(q, allocPath.Key(string(name))); len(errs) > 0 {
			allErrs = append(allErrs, errs...)
		} else {
			allErrs = append(allErrs, validateResourceQuantity(v1.ResourceStorage, q, allocPath.Key(string(name)))...)
		}
	}
	return allErrs
}

const deprecatedStorageClassMessage = `deprecated since v1.8; use "storageClassName" attribute instead`

// deprecatedNodeLabels are the node labels kube-apiserver warns about in
// node affinity, with what to use instead.
var deprecatedNodeLabels = map[string]string{
	"beta.kubernetes.io/arch":       `deprecated since v1.14; use "kubernetes.io/arch" instead`,
	"beta.kubernetes.io/os":         `deprecated since v1.14; use "kubernetes.io/os" instead`,
	v1.LabelFailureDomainBetaRegion: `deprecated since v1.17; use "topology.kubernetes.io/region" instead`,
	v1.LabelFailureDomainBetaZone:   `deprecated since v1.17; use "topology.kubernetes.io/zone" instead`,
	v1.LabelInstanceType:            `deprecated since v1.17; use "node.kubernetes.io/instance-type" instead`,
}

func storageClassAnnotationWarnings(meta *metav1.ObjectMeta) []string {
	if _, ok := meta.Annotations[betaStorageClass]; ok {
		return []string{fmt.Sprintf("%s: %s", metadataPath.Child("annotations").Key(betaStorageClass), deprecatedStorageClassMessage)}
	}
	return nil
}

func fractionalStorageWarning(list v1.ResourceList, fldPath *field.Path) []string {
	q := list[v1.ResourceStorage]
	if q.MilliValue()%1000 != 0 {
		return []string{fmt.Sprintf("%s: fractional byte value %q is invalid, must be an integer", fldPath.Key(string(v1.ResourceStorage)), q.String())}
	}
	return nil
}

// PersistentVolumeWarnings are the warnings kube-apiserver gives on a
// write of a volume: deprecated annotations, reclaim policy, node labels
// and volume plugins.
func PersistentVolumeWarnings(pv *v1.PersistentVolume) []string {
	warnings := storageClassAnnotationWarnings(&pv.ObjectMeta)
	spec := &pv.Spec
	if spec.PersistentVolumeReclaimPolicy == v1.PersistentVolumeReclaimRecycle {
		warnings = append(warnings, fmt.Sprintf("%s: The Recycle reclaim policy is deprecated. Instead, the recommended approach is to use dynamic provisioning.", specPath.Child("persistentVolumeReclaimPolicy")))
	}
	if spec.NodeAffinity != nil && spec.NodeAffinity.Required != nil {
		termsPath := specPath.Child("nodeAffinity", "required", "nodeSelectorTerms")
		for i, term := range spec.NodeAffinity.Required.NodeSelectorTerms {
			for j, req := range term.MatchExpressions {
				if msg, ok := deprecatedNodeLabels[req.Key]; ok {
					warnings = append(warnings, fmt.Sprintf("%s: %s is %s", termsPath.Index(i).Child("matchExpressions").Index(j).Child("key"), req.Key, msg))
				}
			}
		}
	}
	for _, plugin := range []struct {
		set     bool
		name    string
		message string
	}{
		{spec.CephFS != nil, "cephfs", "deprecated in v1.28, non-functional in v1.31+"},
		{spec.PhotonPersistentDisk != nil, "photonPersistentDisk", "deprecated in v1.11, non-functional in v1.16+"},
		{spec.ScaleIO != nil, "scaleIO", "deprecated in v1.16, non-functional in v1.22+"},
		{spec.StorageOS != nil, "storageOS", "deprecated in v1.22, non-functional in v1.25+"},
		{spec.Glusterfs != nil, "glusterfs", "deprecated in v1.25, non-functional in v1.26+"},
		{spec.RBD != nil, "rbd", "deprecated in v1.28, non-functional in v1.31+"},
	} {
		if plugin.set {
			warnings = append(warnings, fmt.Sprintf("%s: %s", specPath.Child(plugin.name), plugin.message))
		}
	}
	return warnings
}

// PersistentVolumeClaimWarnings are the warnings kube-apiserver gives on a
// write of a claim: the deprecated storage class annotation and fractional
// byte counts.
func PersistentVolumeClaimWarnings(pvc *v1.PersistentVolumeClaim) []string {
	warnings := storageClassAnnotationWarnings(&pvc.ObjectMeta)
	resourcesPath := specPath.Child("resources")
	warnings = append(warnings, fractionalStorageWarning(pvc.Spec.Resources.Requests, resourcesPath.Child("requests"))...)
	return append(warnings, fractionalStorageWarning(pvc.Spec.Resources.Limits, resourcesPath.Child("limits"))...)
}
