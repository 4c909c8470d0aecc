package core

import (
	v1 "k8s.io/api/core/v1"
	metavalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// pvcAccessModes are the access modes a claim may ask for, in the order
// kube-apiserver lists them.
var pvcAccessModes = []v1.PersistentVolumeAccessMode{v1.ReadOnlyMany, v1.ReadWriteMany, v1.ReadWriteOnce, v1.ReadWriteOncePod}

// ValidatePersistentVolumeClaimSpec validates the spec of a claim, or of a
// claim template (a StatefulSet's volumeClaimTemplates): at least one
// known access mode, a positive storage request, valid class names and
// data sources.
func ValidatePersistentVolumeClaimSpec(spec *v1.PersistentVolumeClaimSpec, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if len(spec.AccessModes) == 0 {
		allErrs = append(allErrs, field.Required(fldPath.Child("accessModes"), "at least 1 access mode is required"))
	}
	if spec.Selector != nil {
		allErrs = append(allErrs, metavalidation.ValidateLabelSelector(spec.Selector, metavalidation.LabelSelectorValidationOptions{}, fldPath.Child("selector"))...)
	}
	known := sets.New(pvcAccessModes...)
	readWriteOncePod := false
	for _, mode := range spec.AccessModes {
		if !known.Has(mode) {
			allErrs = append(allErrs, field.NotSupported(fldPath.Child("accessModes"), mode, pvcAccessModes))
		}
		readWriteOncePod = readWriteOncePod || mode == v1.ReadWriteOncePod
	}
	if readWriteOncePod && len(spec.AccessModes) > 1 {
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("accessModes"), "may not use ReadWriteOncePod with other access modes"))
	}
	storagePath := fldPath.Child("resources").Key(string(v1.ResourceStorage))
	if storage, ok := spec.Resources.Requests[v1.ResourceStorage]; !ok {
		allErrs = append(allErrs, field.Required(storagePath, ""))
	} else if storage.Sign() <= 0 {
		allErrs = append(allErrs, field.Invalid(storagePath, storage.String(), "must be greater than zero"))
	} else {
		allErrs = append(allErrs, validateResourceQuantity(v1.ResourceStorage, storage, storagePath)...)
	}
	if spec.StorageClassName != nil && *spec.StorageClassName != "" {
		allErrs = append(allErrs, validateDNS1123Subdomain(*spec.StorageClassName, fldPath.Child("storageClassName"))...)
	}
	if mode := spec.VolumeMode; mode != nil && *mode != v1.PersistentVolumeBlock && *mode != v1.PersistentVolumeFilesystem {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("volumeMode"), *mode, []v1.PersistentVolumeMode{v1.PersistentVolumeBlock, v1.PersistentVolumeFilesystem}))
	}
	if ds := spec.DataSource; ds != nil {
		allErrs = append(allErrs, validateDataSource(ds.APIGroup, ds.Kind, ds.Name, fldPath.Child("dataSource"))...)
	}
	if ref := spec.DataSourceRef; ref != nil {
		allErrs = append(allErrs, validateDataSource(ref.APIGroup, ref.Kind, ref.Name, fldPath.Child("dataSourceRef"))...)
		if ref.Namespace != nil && *ref.Namespace != "" {
			allErrs = append(allErrs, validateDNS1123Label(*ref.Namespace, fldPath.Child("dataSourceRef", "namespace"))...)
		}
	}
	if ref := spec.DataSourceRef; ref != nil && ref.Namespace != nil && *ref.Namespace != "" {
		if spec.DataSource != nil {
			allErrs = append(allErrs, field.Invalid(fldPath, fldPath.Child("dataSource"), "may not be specified when dataSourceRef.namespace is specified"))
		}
	} else if ds := spec.DataSource; ds != nil && ref != nil {
		if ptrString(ds.APIGroup) != ptrString(ref.APIGroup) || ds.Kind != ref.Kind || ds.Name != ref.Name {
			allErrs = append(allErrs, field.Invalid(fldPath, fldPath.Child("dataSource"), "must match dataSourceRef"))
		}
	}
	if name := spec.VolumeAttributesClassName; name != nil && *name != "" {
		allErrs = append(allErrs, validateDNS1123Subdomain(*name, fldPath.Child("volumeAttributesClassName"))...)
	}
	return allErrs
}

// validateDataSource validates what a claim is populated from: a claim of
// the core group, or any named kind of another group.
func validateDataSource(apiGroup *string, kind, name string, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if name == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("name"), ""))
	}
	if kind == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("kind"), ""))
	}
	group := ptrString(apiGroup)
	if group == "" && kind != "PersistentVolumeClaim" {
		allErrs = append(allErrs, field.Invalid(fldPath, kind, "must be 'PersistentVolumeClaim' when referencing the default apiGroup"))
	}
	if group != "" {
		for _, msg := range validation.IsDNS1123Subdomain(group) {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("apiGroup"), group, msg))
		}
	}
	return allErrs
}

func ptrString(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
