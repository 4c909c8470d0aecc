package core

import (
	"fmt"
	"net"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	v1 "k8s.io/api/core/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metavalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// validateVolumes validates a pod's volumes and returns the valid ones by
// name, for mounts to refer to.
func validateVolumes(volumes []v1.Volume, ctx podSpecContext, fldPath *field.Path) (map[string]v1.VolumeSource, field.ErrorList) {
	var allErrs field.ErrorList
	// The claims the pod's ephemeral volumes will create, which other
	// volumes must not use directly. Their names depend on the pod's name.
	createdClaims := sets.New[string]()
	if ctx.podMeta != nil && ctx.podMeta.Name != "" {
		for _, vol := range volumes {
			if vol.Ephemeral != nil {
				createdClaims.Insert(ctx.podMeta.Name + "-" + vol.Name)
			}
		}
	}
	valid := make(map[string]v1.VolumeSource, len(volumes))
	for i := range volumes {
		vol := &volumes[i]
		idxPath := fldPath.Index(i)
		errs := validateVolumeSource(&vol.VolumeSource, vol.Name, ctx, idxPath)
		if vol.Name == "" {
			errs = append(errs, field.Required(idxPath.Child("name"), ""))
		} else {
			errs = append(errs, validateDNS1123Label(vol.Name, idxPath.Child("name"))...)
		}
		if _, dup := valid[vol.Name]; dup {
			errs = append(errs, field.Duplicate(idxPath.Child("name"), vol.Name))
		}
		if len(errs) == 0 {
			valid[vol.Name] = vol.VolumeSource
		}
		allErrs = append(allErrs, errs...)
		if pvc := vol.PersistentVolumeClaim; pvc != nil && createdClaims.Has(pvc.ClaimName) {
			allErrs = append(allErrs, field.Invalid(idxPath.Child("persistentVolumeClaim", "claimName"), pvc.ClaimName, "must not reference a PVC that gets created for an ephemeral volume"))
		}
	}
	return valid, allErrs
}

// volumeType is one kind of volume source: its JSON name, whether it is set
// and how to validate it.
type volumeType struct {
	name     string
	set      bool
	validate func(*field.Path) field.ErrorList
}

// validateVolumeSource requires exactly one source and validates it. Each
// source is validated at its own path, except for a few that
// kube-apiserver reports under another name; those names are kept.
func validateVolumeSource(src *v1.VolumeSource, volName string, ctx podSpecContext, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	count := 0
	for _, t := range volumeTypes(src, volName, ctx, fldPath) {
		if !t.set {
			continue
		}
		if count > 0 {
			allErrs = append(allErrs, field.Forbidden(fldPath.Child(t.name), "may not specify more than 1 volume type"))
			continue
		}
		count++
		allErrs = append(allErrs, t.validate(fldPath.Child(t.name))...)
	}
	if count == 0 {
		allErrs = append(allErrs, field.Required(fldPath, "must specify a volume type"))
	}
	if src.ISCSI != nil && src.ISCSI.InitiatorName != nil && len(volName+":"+src.ISCSI.TargetPortal) > 64 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("name"), volName, "Total length of <volume name>:<iscsi.targetPortal> must be under 64 characters if iscsi.initiatorName is specified."))
	}
	return allErrs
}

// volumeTypes lists the volume sources in kube-apiserver's order, which
// decides which of several sources is reported as the extra one.
func volumeTypes(src *v1.VolumeSource, volName string, ctx podSpecContext, volPath *field.Path) []volumeType {
	return []volumeType{
		{"emptyDir", src.EmptyDir != nil, func(p *field.Path) field.ErrorList {
			if limit := src.EmptyDir.SizeLimit; limit != nil && limit.Sign() < 0 {
				return field.ErrorList{field.Forbidden(p.Child("sizeLimit"), "SizeLimit field must be a valid resource quantity")}
			}
			return nil
		}},
		{"hostPath", src.HostPath != nil, func(p *field.Path) field.ErrorList { return validateHostPath(src.HostPath, p) }},
		{"gitRepo", src.GitRepo != nil, func(p *field.Path) field.ErrorList {
			allErrs := requireString(src.GitRepo.Repository, p.Child("repository"))
			return append(allErrs, validateLocalDescendingPath(src.GitRepo.Directory, p.Child("directory"))...)
		}},
		{"gcePersistentDisk", src.GCEPersistentDisk != nil, func(*field.Path) field.ErrorList {
			// Reported as "persistentDisk" by kube-apiserver.
			p := volPath.Child("persistentDisk")
			allErrs := requireString(src.GCEPersistentDisk.PDName, p.Child("pdName"))
			return append(allErrs, validatePartition(src.GCEPersistentDisk.Partition, p.Child("partition"))...)
		}},
		{"awsElasticBlockStore", src.AWSElasticBlockStore != nil, func(p *field.Path) field.ErrorList {
			allErrs := requireString(src.AWSElasticBlockStore.VolumeID, p.Child("volumeID"))
			return append(allErrs, validatePartition(src.AWSElasticBlockStore.Partition, p.Child("partition"))...)
		}},
		{"secret", src.Secret != nil, func(p *field.Path) field.ErrorList {
			allErrs := requireString(src.Secret.SecretName, p.Child("secretName"))
			allErrs = append(allErrs, validateFileMode(src.Secret.DefaultMode, p.Child("defaultMode"))...)
			return append(allErrs, validateKeyToPaths(src.Secret.Items, p.Child("items"))...)
		}},
		{"nfs", src.NFS != nil, func(p *field.Path) field.ErrorList {
			allErrs := requireString(src.NFS.Server, p.Child("server"))
			allErrs = append(allErrs, requireString(src.NFS.Path, p.Child("path"))...)
			if !path.IsAbs(src.NFS.Path) {
				allErrs = append(allErrs, field.Invalid(p.Child("path"), src.NFS.Path, "must be an absolute path"))
			}
			return allErrs
		}},
		{"iscsi", src.ISCSI != nil, func(p *field.Path) field.ErrorList { return validateISCSI(src.ISCSI, p) }},
		{"glusterfs", src.Glusterfs != nil, func(p *field.Path) field.ErrorList {
			allErrs := requireString(src.Glusterfs.EndpointsName, p.Child("endpoints"))
			return append(allErrs, requireString(src.Glusterfs.Path, p.Child("path"))...)
		}},
		{"flocker", src.Flocker != nil, func(p *field.Path) field.ErrorList { return validateFlocker(src.Flocker, p) }},
		{"persistentVolumeClaim", src.PersistentVolumeClaim != nil, func(p *field.Path) field.ErrorList {
			return requireString(src.PersistentVolumeClaim.ClaimName, p.Child("claimName"))
		}},
		{"rbd", src.RBD != nil, func(p *field.Path) field.ErrorList {
			var allErrs field.ErrorList
			if len(src.RBD.CephMonitors) == 0 {
				allErrs = append(allErrs, field.Required(p.Child("monitors"), ""))
			}
			return append(allErrs, requireString(src.RBD.RBDImage, p.Child("image"))...)
		}},
		{"cinder", src.Cinder != nil, func(p *field.Path) field.ErrorList {
			allErrs := requireString(src.Cinder.VolumeID, p.Child("volumeID"))
			if ref := src.Cinder.SecretRef; ref != nil {
				allErrs = append(allErrs, requireString(ref.Name, p.Child("secretRef", "name"))...)
			}
			return allErrs
		}},
		{"cephFS", src.CephFS != nil, func(*field.Path) field.ErrorList {
			if len(src.CephFS.Monitors) == 0 {
				return field.ErrorList{field.Required(volPath.Child("cephfs", "monitors"), "")}
			}
			return nil
		}},
		{"quobyte", src.Quobyte != nil, func(p *field.Path) field.ErrorList { return validateQuobyte(src.Quobyte, p) }},
		// The error for a second source is reported as "downwarAPI" by
		// kube-apiserver; the source itself as "downwardAPI".
		{"downwarAPI", src.DownwardAPI != nil, func(*field.Path) field.ErrorList {
			return validateDownwardAPIVolume(src.DownwardAPI, volPath.Child("downwardAPI"))
		}},
		{"fc", src.FC != nil, func(p *field.Path) field.ErrorList { return validateFC(src.FC, p) }},
		{"flexVolume", src.FlexVolume != nil, func(p *field.Path) field.ErrorList { return validateFlexVolume(src.FlexVolume, p) }},
		{"configMap", src.ConfigMap != nil, func(p *field.Path) field.ErrorList {
			allErrs := requireString(src.ConfigMap.Name, p.Child("name"))
			allErrs = append(allErrs, validateFileMode(src.ConfigMap.DefaultMode, p.Child("defaultMode"))...)
			return append(allErrs, validateKeyToPaths(src.ConfigMap.Items, p.Child("items"))...)
		}},
		{"azureFile", src.AzureFile != nil, func(p *field.Path) field.ErrorList {
			allErrs := requireString(src.AzureFile.SecretName, p.Child("secretName"))
			return append(allErrs, requireString(src.AzureFile.ShareName, p.Child("shareName"))...)
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
		{"storageos", src.StorageOS != nil, func(p *field.Path) field.ErrorList { return validateStorageOS(src.StorageOS, p) }},
		{"projected", src.Projected != nil, func(p *field.Path) field.ErrorList {
			return validateProjectedVolume(src.Projected, ctx.opts.AllowNonLocalTokenPath, p)
		}},
		{"scaleIO", src.ScaleIO != nil, func(p *field.Path) field.ErrorList {
			allErrs := requireString(src.ScaleIO.Gateway, p.Child("gateway"))
			allErrs = append(allErrs, requireString(src.ScaleIO.System, p.Child("system"))...)
			return append(allErrs, requireString(src.ScaleIO.VolumeName, p.Child("volumeName"))...)
		}},
		{"csi", src.CSI != nil, func(p *field.Path) field.ErrorList { return validateCSIVolume(src.CSI, p) }},
		{"ephemeral", src.Ephemeral != nil, func(p *field.Path) field.ErrorList {
			return validateEphemeralVolume(src.Ephemeral, volName, ctx, volPath, p)
		}},
		{"image", src.Image != nil, func(p *field.Path) field.ErrorList {
			var allErrs field.ErrorList
			// Templates may leave the reference to be filled in later.
			if ctx.isPod && src.Image.Reference == "" && !ctx.opts.AllowEmptyImageReference {
				allErrs = append(allErrs, field.Required(p.Child("reference"), ""))
			}
			return append(allErrs, validatePullPolicy(src.Image.PullPolicy, p.Child("pullPolicy"))...)
		}},
	}
}

func requireString(value string, fldPath *field.Path) field.ErrorList {
	if value == "" {
		return field.ErrorList{field.Required(fldPath, "")}
	}
	return nil
}

func validatePartition(partition int32, fldPath *field.Path) field.ErrorList {
	if partition < 0 || partition > 255 {
		return field.ErrorList{field.Invalid(fldPath, partition, validation.InclusiveRangeError(1, 255))}
	}
	return nil
}

const fileModeMessage = "must be a number between 0 and 0777 (octal), both inclusive"

func validateFileMode(mode *int32, fldPath *field.Path) field.ErrorList {
	if mode != nil && (*mode < 0 || *mode > 0o777) {
		return field.ErrorList{field.Invalid(fldPath, *mode, fileModeMessage)}
	}
	return nil
}

var hostPathTypes = []v1.HostPathType{
	v1.HostPathUnset, v1.HostPathBlockDev, v1.HostPathCharDev, v1.HostPathDirectory,
	v1.HostPathDirectoryOrCreate, v1.HostPathFile, v1.HostPathFileOrCreate, v1.HostPathSocket,
}

func validateHostPath(hp *v1.HostPathVolumeSource, fldPath *field.Path) field.ErrorList {
	if hp.Path == "" {
		return field.ErrorList{field.Required(fldPath.Child("path"), "")}
	}
	allErrs := validateNoBacksteps(hp.Path, fldPath.Child("path"))
	if hp.Type != nil && !sets.New(hostPathTypes...).Has(*hp.Type) {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("type"), hp.Type, hostPathTypes))
	}
	return allErrs
}

var (
	iqnRE = regexp.MustCompile(`iqn\.\d{4}-\d{2}\.([[:alnum:]-.]+)(:[^,;*&$|\s]+)$`)
	euiRE = regexp.MustCompile(`^eui.[[:alnum:]]{16}$`)
	naaRE = regexp.MustCompile(`^naa.[[:alnum:]]{32}$`)
)

// validISCSIName reports whether name is an iSCSI qualified name in one of
// its three formats. known is false when it has none of their prefixes.
func validISCSIName(name string) (valid, known bool) {
	switch {
	case strings.HasPrefix(name, "iqn"):
		return iqnRE.MatchString(name), true
	case strings.HasPrefix(name, "eui"):
		return euiRE.MatchString(name), true
	case strings.HasPrefix(name, "naa"):
		return naaRE.MatchString(name), true
	}
	return false, false
}

func validateISCSI(iscsi *v1.ISCSIVolumeSource, fldPath *field.Path) field.ErrorList {
	allErrs := requireString(iscsi.TargetPortal, fldPath.Child("targetPortal"))
	if iscsi.IQN == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("iqn"), ""))
	} else if valid, known := validISCSIName(iscsi.IQN); !known {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("iqn"), iscsi.IQN, "must be valid format starting with iqn, eui, or naa"))
	} else if !valid {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("iqn"), iscsi.IQN, "must be valid format"))
	}
	if iscsi.Lun < 0 || iscsi.Lun > 255 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("lun"), iscsi.Lun, validation.InclusiveRangeError(0, 255)))
	}
	if (iscsi.DiscoveryCHAPAuth || iscsi.SessionCHAPAuth) && iscsi.SecretRef == nil {
		allErrs = append(allErrs, field.Required(fldPath.Child("secretRef"), ""))
	}
	if iscsi.InitiatorName != nil {
		initiator := *iscsi.InitiatorName
		if valid, known := validISCSIName(initiator); !known {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("initiatorname"), initiator, "must be valid format starting with iqn, eui, or naa"))
		} else if !valid {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("initiatorname"), initiator, "must be valid format"))
		}
	}
	return allErrs
}

func validateFlocker(f *v1.FlockerVolumeSource, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if f.DatasetName == "" && f.DatasetUUID == "" {
		allErrs = append(allErrs, field.Required(fldPath, "one of datasetName and datasetUUID is required"))
	}
	if f.DatasetName != "" && f.DatasetUUID != "" {
		allErrs = append(allErrs, field.Invalid(fldPath, "resource", "datasetName and datasetUUID can not be specified simultaneously"))
	}
	if strings.Contains(f.DatasetName, "/") {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("datasetName"), f.DatasetName, "must not contain '/'"))
	}
	return allErrs
}

func validateQuobyte(q *v1.QuobyteVolumeSource, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	const registryDetail = "must be a host:port pair or multiple pairs separated by commas"
	switch {
	case q.Registry == "":
		allErrs = append(allErrs, field.Required(fldPath.Child("registry"), registryDetail))
	case len(q.Tenant) >= 65:
		allErrs = append(allErrs, field.Required(fldPath.Child("tenant"), "must be a UUID and may not exceed a length of 64 characters"))
	default:
		for _, hostPort := range strings.Split(q.Registry, ",") {
			if _, _, err := net.SplitHostPort(hostPort); err != nil {
				allErrs = append(allErrs, field.Invalid(fldPath.Child("registry"), q.Registry, registryDetail))
			}
		}
	}
	return append(allErrs, requireString(q.Volume, fldPath.Child("volume"))...)
}

func validateFC(fc *v1.FCVolumeSource, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if len(fc.TargetWWNs) == 0 && len(fc.WWIDs) == 0 {
		allErrs = append(allErrs, field.Required(fldPath.Child("targetWWNs"), "must specify either targetWWNs or wwids, but not both"))
	}
	if len(fc.TargetWWNs) != 0 && len(fc.WWIDs) != 0 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("targetWWNs"), fc.TargetWWNs, "targetWWNs and wwids can not be specified simultaneously"))
	}
	if len(fc.TargetWWNs) != 0 {
		if fc.Lun == nil {
			allErrs = append(allErrs, field.Required(fldPath.Child("lun"), "lun is required if targetWWNs is specified"))
		} else if *fc.Lun < 0 || *fc.Lun > 255 {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("lun"), fc.Lun, validation.InclusiveRangeError(0, 255)))
		}
	}
	return allErrs
}

// validateFlexVolume reserves the Kubernetes domains in driver options.
func validateFlexVolume(fv *v1.FlexVolumeSource, fldPath *field.Path) field.ErrorList {
	allErrs := requireString(fv.Driver, fldPath.Child("driver"))
	for _, key := range sortedKeys(fv.Options) {
		domain, _, _ := strings.Cut(key, "/")
		normalized := "." + strings.ToLower(domain)
		if strings.HasSuffix(normalized, ".kubernetes.io") || strings.HasSuffix(normalized, ".k8s.io") {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("options").Key(key), key, "kubernetes.io and k8s.io namespaces are reserved"))
		}
	}
	return allErrs
}

func validateAzureDisk(d *v1.AzureDiskVolumeSource, fldPath *field.Path) field.ErrorList {
	allErrs := requireString(d.DiskName, fldPath.Child("diskName"))
	allErrs = append(allErrs, requireString(d.DataDiskURI, fldPath.Child("diskURI"))...)
	cachingModes := []v1.AzureDataDiskCachingMode{v1.AzureDataDiskCachingNone, v1.AzureDataDiskCachingReadOnly, v1.AzureDataDiskCachingReadWrite}
	if d.CachingMode != nil && !sets.New(cachingModes...).Has(*d.CachingMode) {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("cachingMode"), *d.CachingMode, cachingModes))
	}
	kinds := []v1.AzureDataDiskKind{v1.AzureDedicatedBlobDisk, v1.AzureManagedDisk, v1.AzureSharedBlobDisk}
	if d.Kind != nil && !sets.New(kinds...).Has(*d.Kind) {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("kind"), *d.Kind, kinds))
	}
	if d.Kind != nil {
		if *d.Kind == v1.AzureManagedDisk && !strings.HasPrefix(d.DataDiskURI, "/subscriptions/") {
			allErrs = append(allErrs, field.NotSupported(fldPath.Child("diskURI"), d.DataDiskURI, []string{"/subscriptions/{sub-id}/resourcegroups/{group-name}/providers/microsoft.compute/disks/{disk-id}"}))
		}
		if *d.Kind != v1.AzureManagedDisk && !strings.HasPrefix(d.DataDiskURI, "https://") {
			allErrs = append(allErrs, field.NotSupported(fldPath.Child("diskURI"), d.DataDiskURI, []string{"https://{account-name}.blob.core.windows.net/{container-name}/{disk-name}.vhd"}))
		}
	}
	return allErrs
}

func validateStorageOS(s *v1.StorageOSVolumeSource, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if s.VolumeName == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("volumeName"), ""))
	} else {
		allErrs = append(allErrs, validateDNS1123Label(s.VolumeName, fldPath.Child("volumeName"))...)
	}
	if s.VolumeNamespace != "" {
		allErrs = append(allErrs, validateDNS1123Label(s.VolumeNamespace, fldPath.Child("volumeNamespace"))...)
	}
	if s.SecretRef != nil {
		allErrs = append(allErrs, requireString(s.SecretRef.Name, fldPath.Child("secretRef", "name"))...)
	}
	return allErrs
}

func validateCSIVolume(csi *v1.CSIVolumeSource, fldPath *field.Path) field.ErrorList {
	allErrs := validateCSIDriverName(csi.Driver, fldPath.Child("driver"))
	if ref := csi.NodePublishSecretRef; ref != nil {
		if ref.Name == "" {
			allErrs = append(allErrs, field.Required(fldPath.Child("nodePublishSecretRef", "name"), ""))
		} else {
			// Reported under "name" by kube-apiserver.
			allErrs = append(allErrs, validateName(apivalidation.NameIsDNSSubdomain, ref.Name, fldPath.Child("name"))...)
		}
	}
	return allErrs
}

func validateCSIDriverName(driver string, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if driver == "" {
		return field.ErrorList{field.Required(fldPath, "")}
	}
	if len(driver) > 63 {
		allErrs = append(allErrs, field.TooLong(fldPath, "", 63))
	}
	return append(allErrs, messagesToErrors(validation.IsDNS1123Subdomain(strings.ToLower(driver)), driver, fldPath)...)
}

// validateEphemeralVolume validates a generic ephemeral volume: the claim
// template, and the name of the claim it will create (pod name, dash,
// volume name).
func validateEphemeralVolume(e *v1.EphemeralVolumeSource, volName string, ctx podSpecContext, volPath, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if e.VolumeClaimTemplate == nil {
		allErrs = append(allErrs, field.Required(fldPath.Child("volumeClaimTemplate"), ""))
	} else {
		allErrs = append(allErrs, validateClaimTemplate(e.VolumeClaimTemplate, fldPath.Child("volumeClaimTemplate"))...)
	}
	if ctx.podMeta != nil && ctx.podMeta.Name != "" && volName != "" {
		claimName := ctx.podMeta.Name + "-" + volName
		for _, msg := range apivalidation.NameIsDNSSubdomain(claimName, false) {
			allErrs = append(allErrs, field.Invalid(volPath.Child("name"), volName, fmt.Sprintf("PVC name %q: %v", claimName, msg)))
		}
	}
	return allErrs
}

// validateClaimTemplate validates the claim template of an ephemeral
// volume: only labels and annotations of its metadata are used, and its
// spec must be a usable claim spec.
func validateClaimTemplate(t *v1.PersistentVolumeClaimTemplate, fldPath *field.Path) field.ErrorList {
	metaPath := fldPath.Child("metadata")
	allErrs := apivalidation.ValidateAnnotations(t.Annotations, metaPath.Child("annotations"))
	allErrs = append(allErrs, metavalidation.ValidateLabels(t.Labels, metaPath.Child("labels"))...)
	stripped := t.ObjectMeta.DeepCopy()
	stripped.Labels, stripped.Annotations = nil, nil
	allErrs = append(allErrs, validateOnlyFieldsSet(*stripped, sets.New[string](), "cannot be set", metaPath)...)

	specPath := fldPath.Child("spec")
	spec := &t.Spec
	if len(spec.AccessModes) == 0 {
		allErrs = append(allErrs, field.Required(specPath.Child("accessModes"), "at least 1 access mode is required"))
	}
	accessModes := []v1.PersistentVolumeAccessMode{v1.ReadOnlyMany, v1.ReadWriteMany, v1.ReadWriteOnce, v1.ReadWriteOncePod}
	for _, mode := range spec.AccessModes {
		if !sets.New(accessModes...).Has(mode) {
			allErrs = append(allErrs, field.NotSupported(specPath.Child("accessModes"), mode, accessModes))
		}
	}
	storage, ok := spec.Resources.Requests[v1.ResourceStorage]
	switch {
	case !ok:
		allErrs = append(allErrs, field.Required(specPath.Child("resources").Key(string(v1.ResourceStorage)), ""))
	case storage.Sign() <= 0:
		allErrs = append(allErrs, field.Invalid(specPath.Child("resources").Key(string(v1.ResourceStorage)), storage.String(), "must be greater than zero"))
	}
	if spec.VolumeMode != nil && *spec.VolumeMode != v1.PersistentVolumeBlock && *spec.VolumeMode != v1.PersistentVolumeFilesystem {
		allErrs = append(allErrs, field.NotSupported(specPath.Child("volumeMode"), *spec.VolumeMode, []v1.PersistentVolumeMode{v1.PersistentVolumeBlock, v1.PersistentVolumeFilesystem}))
	}
	if spec.Selector != nil {
		allErrs = append(allErrs, metavalidation.ValidateLabelSelector(spec.Selector, metavalidation.LabelSelectorValidationOptions{}, specPath.Child("selector"))...)
	}
	return allErrs
}

func validateKeyToPaths(items []v1.KeyToPath, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for i := range items {
		allErrs = append(allErrs, validateKeyToPath(&items[i], fldPath.Index(i))...)
	}
	return allErrs
}

func validateKeyToPath(kp *v1.KeyToPath, fldPath *field.Path) field.ErrorList {
	allErrs := requireString(kp.Key, fldPath.Child("key"))
	allErrs = append(allErrs, requireString(kp.Path, fldPath.Child("path"))...)
	allErrs = append(allErrs, validateLocalNonReservedPath(kp.Path, fldPath.Child("path"))...)
	return append(allErrs, validateFileMode(kp.Mode, fldPath.Child("mode"))...)
}

// The pod fields a downward API volume can expose.
var volumeFieldPaths = sets.New("metadata.name", "metadata.namespace", "metadata.labels", "metadata.annotations", "metadata.uid")

func validateDownwardAPIVolume(d *v1.DownwardAPIVolumeSource, fldPath *field.Path) field.ErrorList {
	allErrs := validateFileMode(d.DefaultMode, fldPath.Child("defaultMode"))
	for i := range d.Items {
		// Items are reported at the source's path, without an index.
		allErrs = append(allErrs, validateDownwardAPIFile(&d.Items[i], fldPath)...)
	}
	return allErrs
}

func validateDownwardAPIFile(file *v1.DownwardAPIVolumeFile, fldPath *field.Path) field.ErrorList {
	allErrs := requireString(file.Path, fldPath.Child("path"))
	allErrs = append(allErrs, validateLocalNonReservedPath(file.Path, fldPath.Child("path"))...)
	switch {
	case file.FieldRef != nil:
		allErrs = append(allErrs, validateObjectFieldSelector(file.FieldRef, volumeFieldPaths, fldPath.Child("fieldRef"))...)
		if file.ResourceFieldRef != nil {
			allErrs = append(allErrs, field.Invalid(fldPath, "resource", "fieldRef and resourceFieldRef can not be specified simultaneously"))
		}
	case file.ResourceFieldRef != nil:
		allErrs = append(allErrs, validateResourceFieldSelector(file.ResourceFieldRef, true, fldPath.Child("resourceFieldRef"))...)
	default:
		allErrs = append(allErrs, field.Required(fldPath, "one of fieldRef and resourceFieldRef is required"))
	}
	return append(allErrs, validateFileMode(file.Mode, fldPath.Child("mode"))...)
}

// validateProjectedVolume validates the sources of a projected volume,
// which all write into one directory: their paths must not collide.
func validateProjectedVolume(p *v1.ProjectedVolumeSource, allowNonLocalTokenPath bool, fldPath *field.Path) field.ErrorList {
	allErrs := validateFileMode(p.DefaultMode, fldPath.Child("defaultMode"))
	paths := sets.New[string]()
	claimPath := func(path string, value any) {
		if paths.Has(path) {
			allErrs = append(allErrs, field.Invalid(fldPath, value, "conflicting duplicate paths"))
		}
		paths.Insert(path)
	}
	for i, source := range p.Sources {
		srcPath := fldPath.Child("sources").Index(i)
		count := 0
		if source.Secret != nil {
			count++
			secretPath := srcPath.Child("secret")
			allErrs = append(allErrs, requireString(source.Secret.Name, secretPath.Child("name"))...)
			for j := range source.Secret.Items {
				item := &source.Secret.Items[j]
				allErrs = append(allErrs, validateKeyToPath(item, secretPath.Child("items").Index(j))...)
				if item.Path != "" {
					claimPath(item.Path, source.Secret.Name)
				}
			}
		}
		if source.ConfigMap != nil {
			count++
			cmPath := srcPath.Child("configMap")
			allErrs = append(allErrs, requireString(source.ConfigMap.Name, cmPath.Child("name"))...)
			for j := range source.ConfigMap.Items {
				item := &source.ConfigMap.Items[j]
				allErrs = append(allErrs, validateKeyToPath(item, cmPath.Child("items").Index(j))...)
				if item.Path != "" {
					claimPath(item.Path, source.ConfigMap.Name)
				}
			}
		}
		if source.DownwardAPI != nil {
			count++
			for j := range source.DownwardAPI.Items {
				item := &source.DownwardAPI.Items[j]
				allErrs = append(allErrs, validateDownwardAPIFile(item, srcPath.Child("downwardAPI"))...)
				if item.Path != "" {
					claimPath(item.Path, item.Path)
				}
			}
		}
		if token := source.ServiceAccountToken; token != nil {
			count++
			allErrs = append(allErrs, validateTokenProjection(token, allowNonLocalTokenPath, srcPath.Child("serviceAccountToken"), fldPath)...)
		}
		if bundle := source.ClusterTrustBundle; bundle != nil {
			count++
			allErrs = append(allErrs, validateClusterTrustBundleProjection(bundle, srcPath.Child("clusterTrustBundle"))...)
			claimPath(bundle.Path, bundle.Path)
		}
		if certs := source.PodCertificate; certs != nil {
			count++
		}
		if count > 1 {
			allErrs = append(allErrs, field.Forbidden(srcPath, "may not specify more than 1 volume type per source"))
		}
	}
	return allErrs
}

// validateTokenProjection checks a projected service account token: it
// lives between 10 minutes and 2^32 seconds. Its path is reported at the
// projected volume's path, as kube-apiserver does.
func validateTokenProjection(token *v1.ServiceAccountTokenProjection, allowNonLocalPath bool, fldPath, volumePath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if token.ExpirationSeconds != nil {
		expiration := *token.ExpirationSeconds
		if expiration < 10*60 {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("expirationSeconds"), expiration, "may not specify a duration less than 10 minutes"))
		}
		if expiration > 1<<32 {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("expirationSeconds"), expiration, "may not specify a duration larger than 2^32 seconds"))
		}
	}
	if token.Path == "" {
		allErrs = append(allErrs, field.Required(volumePath.Child("path"), ""))
	} else if !allowNonLocalPath {
		allErrs = append(allErrs, validateLocalNonReservedPath(token.Path, volumePath.Child("path"))...)
	}
	return allErrs
}

func validateClusterTrustBundleProjection(b *v1.ClusterTrustBundleProjection, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	switch {
	case b.Name != nil && b.SignerName != nil:
		allErrs = append(allErrs, field.Invalid(fldPath, b, "only one of name and signerName may be used"))
	case b.Name != nil:
		if *b.Name == "" {
			allErrs = append(allErrs, field.Required(fldPath.Child("name"), "must be a valid object name"))
		}
		if b.LabelSelector != nil {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("labelSelector"), b.LabelSelector, "labelSelector must be unset if name is specified"))
		}
	case b.SignerName != nil:
		if *b.SignerName == "" {
			allErrs = append(allErrs, field.Required(fldPath.Child("signerName"), "must be a valid signer name"))
		}
		allErrs = append(allErrs, metavalidation.ValidateLabelSelector(b.LabelSelector, metavalidation.LabelSelectorValidationOptions{}, fldPath.Child("labelSelector"))...)
	default:
		allErrs = append(allErrs, field.Required(fldPath, "either name or signerName must be specified"))
	}
	allErrs = append(allErrs, requireString(b.Path, fldPath.Child("path"))...)
	return append(allErrs, validateLocalNonReservedPath(b.Path, fldPath.Child("path"))...)
}

// validateLocalDescendingPath requires a relative path that stays below its
// starting directory.
func validateLocalDescendingPath(targetPath string, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if path.IsAbs(targetPath) {
		allErrs = append(allErrs, field.Invalid(fldPath, targetPath, "must be a relative path"))
	}
	return append(allErrs, validateNoBacksteps(targetPath, fldPath)...)
}

// validateLocalNonReservedPath is validateLocalDescendingPath, also
// refusing names starting with "..", which the kubelet uses for its own
// files in volume directories.
func validateLocalNonReservedPath(targetPath string, fldPath *field.Path) field.ErrorList {
	allErrs := validateLocalDescendingPath(targetPath, fldPath)
	// A "../" prefix has already been reported as a backstep.
	if strings.HasPrefix(targetPath, "..") && !strings.HasPrefix(targetPath, "../") {
		allErrs = append(allErrs, field.Invalid(fldPath, targetPath, "must not start with '..'"))
	}
	return allErrs
}

func validateNoBacksteps(targetPath string, fldPath *field.Path) field.ErrorList {
	if hasBacksteps(targetPath) {
		return field.ErrorList{field.Invalid(fldPath, targetPath, "must not contain '..'")}
	}
	return nil
}

func hasBacksteps(targetPath string) bool {
	for _, element := range strings.Split(filepath.ToSlash(targetPath), "/") {
		if element == ".." {
			return true
		}
	}
	return false
}
