package storage

import (
	"fmt"
	"math"
	"strings"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/api/validate/content"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/apis/core"
)

var (
	metadataPath = field.NewPath("metadata")
	specPath     = field.NewPath("spec")
)

const (
	maxParameters         = 512
	maxParametersSize     = 256 * (1 << 10) // 256 kB of keys and values
	maxAttachmentMetadata = 256 * (1 << 10)
	maxVolumeErrorMessage = 1024
	maxCSINodeIDLength    = 256
	maxCSIDriverName      = 63
)

// immutable is the error of kube-apiserver's declarative +k8s:immutable
// rule: the value is not repeated.
func immutable(fldPath *field.Path) *field.Error {
	return field.Invalid(fldPath, nil, "field is immutable")
}

// ---- StorageClass ----------------------------------------------------------

// ValidateStorageClass validates a StorageClass on create.
func ValidateStorageClass(sc *storagev1.StorageClass) field.ErrorList {
	allErrs := storageClassErrors(sc)
	// Declarative: +k8s:required.
	if sc.Provisioner == "" {
		allErrs = append(allErrs, field.Required(field.NewPath("provisioner"), ""))
	}
	return allErrs
}

// ValidateStorageClassUpdate validates an update of a StorageClass: the
// provisioner, its parameters, the reclaim policy and the binding mode
// are fixed once the class exists.
func ValidateStorageClassUpdate(sc, old *storagev1.StorageClass) field.ErrorList {
	allErrs := storageClassErrors(sc)
	allErrs = append(allErrs, core.ValidateObjectMetaUpdate(&sc.ObjectMeta, &old.ObjectMeta, metadataPath)...)
	if sc.Provisioner == "" {
		allErrs = append(allErrs, field.Required(field.NewPath("provisioner"), ""))
	}
	if sc.Provisioner != old.Provisioner {
		allErrs = append(allErrs, immutable(field.NewPath("provisioner")))
	}
	if !apiequality.Semantic.DeepEqual(sc.Parameters, old.Parameters) {
		allErrs = append(allErrs, immutable(field.NewPath("parameters")))
	}
	if !apiequality.Semantic.DeepEqual(sc.ReclaimPolicy, old.ReclaimPolicy) {
		allErrs = append(allErrs, immutable(field.NewPath("reclaimPolicy")))
	}
	if !apiequality.Semantic.DeepEqual(sc.VolumeBindingMode, old.VolumeBindingMode) {
		allErrs = append(allErrs, immutable(field.NewPath("volumeBindingMode")))
	}
	return uniqueErrors(allErrs)
}

// storageClassErrors are the hand-written rules of a storage class.
func storageClassErrors(sc *storagev1.StorageClass) field.ErrorList {
	allErrs := core.ValidateObjectMeta(&sc.ObjectMeta, false, apivalidation.NameIsDNSSubdomain, metadataPath)
	allErrs = append(allErrs, validateProvisionerFormat(sc.Provisioner, field.NewPath("provisioner"))...)
	allErrs = append(allErrs, validateParameters(sc.Parameters, true, field.NewPath("parameters"))...)
	if p := sc.ReclaimPolicy; p != nil && *p != "" && *p != corev1.PersistentVolumeReclaimDelete && *p != corev1.PersistentVolumeReclaimRetain {
		allErrs = append(allErrs, field.NotSupported(field.NewPath("reclaimPolicy"), *p, []string{string(corev1.PersistentVolumeReclaimDelete), string(corev1.PersistentVolumeReclaimRetain)}))
	}
	modePath := field.NewPath("volumeBindingMode")
	switch m := sc.VolumeBindingMode; {
	case m == nil:
		allErrs = append(allErrs, field.Required(modePath, ""))
	case *m != storagev1.VolumeBindingImmediate && *m != storagev1.VolumeBindingWaitForFirstConsumer:
		allErrs = append(allErrs, field.NotSupported(modePath, *m, []string{string(storagev1.VolumeBindingImmediate), string(storagev1.VolumeBindingWaitForFirstConsumer)}))
	}
	return append(allErrs, validateAllowedTopologies(sc.AllowedTopologies, field.NewPath("allowedTopologies"))...)
}

// validateProvisionerFormat checks a non-empty provisioner (or driver
// name) as a qualified name, ignoring case; the value in the error is the
// lower-cased one, as kube-apiserver reports it.
func validateProvisionerFormat(provisioner string, fldPath *field.Path) field.ErrorList {
	if provisioner == "" {
		return nil
	}
	lower := strings.ToLower(provisioner)
	var allErrs field.ErrorList
	for _, msg := range validation.IsQualifiedName(lower) {
		allErrs = append(allErrs, field.Invalid(fldPath, lower, msg))
	}
	return allErrs
}

// validateParameters bounds the parameters handed to a provisioner or a
// driver: at most 512 entries, no empty key, 256 kB in all.
func validateParameters(params map[string]string, allowEmpty bool, fldPath *field.Path) field.ErrorList {
	if len(params) > maxParameters {
		return field.ErrorList{field.TooLong(fldPath, "", maxParameters)}
	}
	var allErrs field.ErrorList
	var size int64
	for k, v := range params {
		if k == "" {
			allErrs = append(allErrs, field.Invalid(fldPath, k, "field can not be empty."))
		}
		size += int64(len(k)) + int64(len(v))
	}
	if size > maxParametersSize {
		allErrs = append(allErrs, field.TooLong(fldPath, "", maxParametersSize))
	}
	if !allowEmpty && len(params) == 0 {
		allErrs = append(allErrs, field.Required(fldPath, "must contain at least one key/value pair"))
	}
	return allErrs
}

// validateAllowedTopologies validates each term and rejects a term equal
// to an earlier one. kube-apiserver compares each term with a list that
// starts with one empty entry per term, so an empty term is always a
// duplicate; it reports a duplicate term once.
func validateAllowedTopologies(terms []corev1.TopologySelectorTerm, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	var seen []map[string]sets.Set[string]
	for i, term := range terms {
		idxPath := fldPath.Index(i)
		exprs, errs := validateTopologySelectorTerm(term, idxPath)
		allErrs = append(allErrs, errs...)
		dup := len(exprs) == 0
		for _, prev := range seen {
			if apiequality.Semantic.DeepEqual(exprs, prev) {
				dup = true
			}
		}
		if dup {
			allErrs = append(allErrs, field.Duplicate(idxPath.Child("matchLabelExpressions"), ""))
		}
		seen = append(seen, exprs)
	}
	return allErrs
}

func validateTopologySelectorTerm(term corev1.TopologySelectorTerm, fldPath *field.Path) (map[string]sets.Set[string], field.ErrorList) {
	var allErrs field.ErrorList
	exprs := map[string]sets.Set[string]{}
	exprPath := fldPath.Child("matchLabelExpressions")
	for i, req := range term.MatchLabelExpressions {
		idxPath := exprPath.Index(i)
		values := sets.New[string]()
		valuesPath := idxPath.Child("values")
		if len(req.Values) == 0 {
			allErrs = append(allErrs, field.Required(valuesPath, ""))
		}
		for j, v := range req.Values {
			if values.Has(v) {
				allErrs = append(allErrs, field.Duplicate(valuesPath.Index(j), v))
			}
			values.Insert(v)
		}
		allErrs = append(allErrs, validateQualifiedName(req.Key, idxPath.Child("key"))...)
		if _, ok := exprs[req.Key]; ok {
			allErrs = append(allErrs, field.Duplicate(idxPath.Child("key"), req.Key))
		}
		exprs[req.Key] = values
	}
	return exprs, allErrs
}

// ---- VolumeAttributesClass -------------------------------------------------

// ValidateVolumeAttributesClass validates a VolumeAttributesClass on
// create: a driver name and at least one parameter.
func ValidateVolumeAttributesClass(vac *storagev1.VolumeAttributesClass) field.ErrorList {
	allErrs := core.ValidateObjectMeta(&vac.ObjectMeta, false, apivalidation.NameIsDNSSubdomain, metadataPath)
	driverPath := field.NewPath("driverName")
	if vac.DriverName == "" {
		allErrs = append(allErrs, field.Required(driverPath, ""))
	}
	allErrs = append(allErrs, validateProvisionerFormat(vac.DriverName, driverPath)...)
	return append(allErrs, validateParameters(vac.Parameters, false, field.NewPath("parameters"))...)
}

// ValidateVolumeAttributesClassUpdate validates an update: the driver
// and the parameters are fixed.
func ValidateVolumeAttributesClassUpdate(vac, old *storagev1.VolumeAttributesClass) field.ErrorList {
	allErrs := core.ValidateObjectMetaUpdate(&vac.ObjectMeta, &old.ObjectMeta, metadataPath)
	if vac.DriverName != old.DriverName {
		allErrs = append(allErrs, field.Forbidden(field.NewPath("driverName"), "updates to driverName are forbidden."))
	}
	if !apiequality.Semantic.DeepEqual(vac.Parameters, old.Parameters) {
		allErrs = append(allErrs, field.Forbidden(field.NewPath("parameters"), "updates to parameters are forbidden."))
	}
	return uniqueErrors(append(allErrs, ValidateVolumeAttributesClass(vac)...))
}

// ---- CSIDriver -------------------------------------------------------------

// ValidateCSIDriver validates a CSIDriver on create.
func ValidateCSIDriver(d *storagev1.CSIDriver) field.ErrorList {
	allErrs := core.ValidateObjectMeta(&d.ObjectMeta, false, apivalidation.NameIsDNSSubdomain, metadataPath)
	return append(allErrs, validateCSIDriverSpec(&d.Spec, specPath)...)
}

// ValidateCSIDriverUpdate validates an update of a CSIDriver: whether it
// needs attaching and which volume lifecycles it serves are fixed.
func ValidateCSIDriverUpdate(d, old *storagev1.CSIDriver) field.ErrorList {
	allErrs := core.ValidateObjectMetaUpdate(&d.ObjectMeta, &old.ObjectMeta, metadataPath)
	allErrs = append(allErrs, validateCSIDriverSpec(&d.Spec, specPath)...)
	// kube-apiserver's path says "attachedRequired".
	allErrs = append(allErrs, apivalidation.ValidateImmutableField(d.Spec.AttachRequired, old.Spec.AttachRequired, specPath.Child("attachedRequired"))...)
	return append(allErrs, apivalidation.ValidateImmutableField(d.Spec.VolumeLifecycleModes, old.Spec.VolumeLifecycleModes, specPath.Child("volumeLifecycleModes"))...)
}

func validateCSIDriverSpec(spec *storagev1.CSIDriverSpec, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	// The booleans are defaulted; a nil one can only come from a bug.
	for _, f := range []struct {
		name string
		v    *bool
	}{{"attachedRequired", spec.AttachRequired}, {"podInfoOnMount", spec.PodInfoOnMount}, {"storageCapacity", spec.StorageCapacity}} {
		if f.v == nil {
			allErrs = append(allErrs, field.Required(fldPath.Child(f.name), ""))
		}
	}
	if p := spec.FSGroupPolicy; p != nil {
		switch *p {
		case storagev1.ReadWriteOnceWithFSTypeFSGroupPolicy, storagev1.FileFSGroupPolicy, storagev1.NoneFSGroupPolicy:
		default:
			allErrs = append(allErrs, field.NotSupported(fldPath.Child("fsGroupPolicy"), *p, []string{
				string(storagev1.FileFSGroupPolicy), string(storagev1.NoneFSGroupPolicy), string(storagev1.ReadWriteOnceWithFSTypeFSGroupPolicy)}))
		}
	}
	allErrs = append(allErrs, validateTokenRequests(spec.TokenRequests, fldPath.Child("tokenRequests"))...)
	for _, mode := range spec.VolumeLifecycleModes {
		if mode != storagev1.VolumeLifecyclePersistent && mode != storagev1.VolumeLifecycleEphemeral {
			allErrs = append(allErrs, field.NotSupported(fldPath.Child("volumeLifecycleModes"), mode, []string{
				string(storagev1.VolumeLifecyclePersistent), string(storagev1.VolumeLifecycleEphemeral)}))
		}
	}
	if spec.SELinuxMount == nil {
		allErrs = append(allErrs, field.Required(fldPath.Child("seLinuxMount"), ""))
	}
	if p := spec.NodeAllocatableUpdatePeriodSeconds; p != nil && *p < 10 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("nodeAllocatableUpdatePeriodSeconds"), *p, "must be greater than or equal to 10 seconds"))
	}
	// Tokens can only be handed over in secrets if there are tokens.
	if s := spec.ServiceAccountTokenInSecrets; s != nil && len(spec.TokenRequests) == 0 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("serviceAccountTokenInSecrets"), *s, "serviceAccountTokenInSecrets is set but no tokenRequests are specified"))
	}
	return allErrs
}

// validateTokenRequests allows one request per audience, each token
// living between ten minutes and 2^32 seconds.
func validateTokenRequests(requests []storagev1.TokenRequest, fldPath *field.Path) field.ErrorList {
	const minSeconds = 10 * 60
	var allErrs field.ErrorList
	audiences := sets.New[string]()
	for i, r := range requests {
		idxPath := fldPath.Index(i)
		if audiences.Has(r.Audience) {
			allErrs = append(allErrs, field.Duplicate(idxPath.Child("audience"), r.Audience))
			continue
		}
		audiences.Insert(r.Audience)
		if r.ExpirationSeconds == nil {
			continue
		}
		if s := *r.ExpirationSeconds; s < minSeconds {
			allErrs = append(allErrs, field.Invalid(idxPath.Child("expirationSeconds"), s, "may not specify a duration less than 10 minutes"))
		}
		if s := *r.ExpirationSeconds; s > 1<<32 {
			allErrs = append(allErrs, field.Invalid(idxPath.Child("expirationSeconds"), s, "may not specify a duration larger than 2^32 seconds"))
		}
	}
	return allErrs
}

// ---- CSINode ---------------------------------------------------------------

// ValidateCSINode validates a CSINode on create. Its name is a node's.
func ValidateCSINode(n *storagev1.CSINode) field.ErrorList {
	allErrs := core.ValidateObjectMeta(&n.ObjectMeta, false, apivalidation.NameIsDNSSubdomain, metadataPath)
	return append(allErrs, validateCSINodeDrivers(n.Spec.Drivers, specPath.Child("drivers"))...)
}

// ValidateCSINodeUpdate validates an update of a CSINode: a driver may
// come and go, but a driver that stays keeps what it said of itself,
// except its allocatable volume count.
func ValidateCSINodeUpdate(n, old *storagev1.CSINode) field.ErrorList {
	allErrs := ValidateCSINode(n)
	allErrs = append(allErrs, core.ValidateObjectMetaUpdate(&n.ObjectMeta, &old.ObjectMeta, metadataPath)...)
	for _, oldDriver := range old.Spec.Drivers {
		for _, newDriver := range n.Spec.Drivers {
			if oldDriver.Name != newDriver.Name {
				continue
			}
			o, nw := oldDriver.DeepCopy(), newDriver.DeepCopy()
			o.Allocatable, nw.Allocatable = nil, nil
			if !apiequality.Semantic.DeepEqual(o, nw) {
				allErrs = append(allErrs, field.Invalid(specPath.Child("drivers"), csiNodeDriverValue(nw), "field is immutable"))
			}
		}
	}
	return uniqueErrors(allErrs)
}

// ValidateCSINodeStatusUpdate validates a write of a CSINode's status.
func ValidateCSINodeStatusUpdate(n, old *storagev1.CSINode) field.ErrorList {
	return core.ValidateObjectMetaUpdate(&n.ObjectMeta, &old.ObjectMeta, metadataPath)
}

// internalCSINodeDriver mirrors kube-apiserver's internal type, which has
// no JSON tags: its errors print the driver with Go field names.
type internalCSINodeDriver struct {
	Name         string
	NodeID       string
	TopologyKeys []string
	Allocatable  *internalVolumeNodeResources
}

type internalVolumeNodeResources struct {
	Count *int32
}

func csiNodeDriverValue(d *storagev1.CSINodeDriver) internalCSINodeDriver {
	v := internalCSINodeDriver{Name: d.Name, NodeID: d.NodeID, TopologyKeys: d.TopologyKeys}
	if d.Allocatable != nil {
		v.Allocatable = &internalVolumeNodeResources{Count: d.Allocatable.Count}
	}
	return v
}

func validateCSINodeDrivers(drivers []storagev1.CSINodeDriver, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	names := sets.New[string]()
	for i, d := range drivers {
		idxPath := fldPath.Index(i)
		allErrs = append(allErrs, ValidateCSIDriverName(d.Name, idxPath.Child("name"))...)
		nodeIDPath := idxPath.Child("nodeID")
		if d.NodeID == "" {
			allErrs = append(allErrs, field.Required(nodeIDPath, ""))
		}
		if len(d.NodeID) > maxCSINodeIDLength {
			allErrs = append(allErrs, field.Invalid(nodeIDPath, d.NodeID, fmt.Sprintf("must be %d characters or less", maxCSINodeIDLength)))
		}
		if a := d.Allocatable; a != nil && a.Count != nil && *a.Count < 0 {
			allErrs = append(allErrs, field.Invalid(idxPath.Child("allocatable", "count"), int64(*a.Count), apivalidation.IsNegativeErrorMsg))
		}
		if names.Has(d.Name) {
			allErrs = append(allErrs, field.Duplicate(idxPath.Child("name"), d.Name))
		}
		names.Insert(d.Name)
		keys := sets.New[string]()
		for _, key := range d.TopologyKeys {
			if key == "" {
				allErrs = append(allErrs, field.Required(idxPath, ""))
			}
			if keys.Has(key) {
				allErrs = append(allErrs, field.Duplicate(idxPath, key))
			}
			keys.Insert(key)
			allErrs = append(allErrs, validateQualifiedName(key, idxPath)...)
		}
	}
	return allErrs
}

// ValidateCSIDriverName validates the name of a CSI driver where another
// object refers to it: a DNS subdomain of at most 63 characters, in any
// case.
func ValidateCSIDriverName(name string, fldPath *field.Path) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(fldPath, "")}
	}
	var allErrs field.ErrorList
	if len(name) > maxCSIDriverName {
		allErrs = append(allErrs, field.TooLong(fldPath, name, maxCSIDriverName))
	}
	for _, msg := range validation.IsDNS1123Subdomain(strings.ToLower(name)) {
		allErrs = append(allErrs, field.Invalid(fldPath, name, msg))
	}
	return allErrs
}

// ---- CSIStorageCapacity ----------------------------------------------------

// ValidateCSIStorageCapacity validates a CSIStorageCapacity on create.
func ValidateCSIStorageCapacity(c *storagev1.CSIStorageCapacity) field.ErrorList {
	return validateCSIStorageCapacity(c, false)
}

func validateCSIStorageCapacity(c *storagev1.CSIStorageCapacity, allowInvalidLabelValues bool) field.ErrorList {
	allErrs := core.ValidateObjectMeta(&c.ObjectMeta, true, apivalidation.NameIsDNSSubdomain, metadataPath)
	opts := metav1validation.LabelSelectorValidationOptions{AllowInvalidLabelValueInSelector: allowInvalidLabelValues}
	allErrs = append(allErrs, metav1validation.ValidateLabelSelector(c.NodeTopology, opts, field.NewPath("nodeTopology"))...)
	for _, msg := range apivalidation.NameIsDNSSubdomain(c.StorageClassName, false) {
		allErrs = append(allErrs, field.Invalid(field.NewPath("storageClassName"), c.StorageClassName, msg))
	}
	if c.Capacity != nil {
		allErrs = append(allErrs, validateNonnegativeQuantity(*c.Capacity, field.NewPath("capacity"))...)
	}
	return allErrs
}

// ValidateCSIStorageCapacityUpdate validates an update: the topology and
// the class a capacity was computed for are fixed; an invalid label value
// stored before the selector rules tightened is kept.
func ValidateCSIStorageCapacityUpdate(c, old *storagev1.CSIStorageCapacity) field.ErrorList {
	allowInvalid := metav1validation.ValidateLabelSelector(old.NodeTopology, metav1validation.LabelSelectorValidationOptions{}, nil) != nil
	allErrs := validateCSIStorageCapacity(c, allowInvalid)
	allErrs = append(allErrs, core.ValidateObjectMetaUpdate(&c.ObjectMeta, &old.ObjectMeta, metadataPath)...)
	if !apiequality.Semantic.DeepEqual(c.NodeTopology, old.NodeTopology) {
		allErrs = append(allErrs, field.Invalid(field.NewPath("nodeTopology"), c.NodeTopology, "field is immutable"))
	}
	if c.StorageClassName != old.StorageClassName {
		allErrs = append(allErrs, field.Invalid(field.NewPath("storageClassName"), c.StorageClassName, "field is immutable"))
	}
	return uniqueErrors(allErrs)
}

// ---- VolumeAttachment ------------------------------------------------------

// ValidateVolumeAttachment validates a VolumeAttachment on create: the
// hand-written rules, then the declarative ones of the attacher.
func ValidateVolumeAttachment(va *storagev1.VolumeAttachment) field.ErrorList {
	allErrs := core.ValidateObjectMeta(&va.ObjectMeta, false, apivalidation.NameIsDNSSubdomain, metadataPath)
	allErrs = append(allErrs, validateVolumeAttachmentSource(&va.Spec.Source, specPath.Child("source"))...)
	allErrs = append(allErrs, validateNodeName(va.Spec.NodeName, specPath.Child("nodeName"))...)
	allErrs = append(allErrs, validateVolumeAttachmentStatus(&va.Status, field.NewPath("status"))...)
	allErrs = append(allErrs, validatePersistentVolumeName(va.Spec.Source.PersistentVolumeName)...)
	// Declarative: +k8s:required, +k8s:format=k8s-long-name-caseless,
	// +k8s:maxLength=63.
	attacherPath := specPath.Child("attacher")
	if va.Spec.Attacher == "" {
		return append(allErrs, field.Required(attacherPath, ""))
	}
	for _, msg := range content.IsDNS1123SubdomainCaseless(va.Spec.Attacher) {
		allErrs = append(allErrs, field.Invalid(attacherPath, va.Spec.Attacher, msg))
	}
	if len(va.Spec.Attacher) > maxCSIDriverName {
		allErrs = append(allErrs, field.TooLongCharacters(attacherPath, va.Spec.Attacher, maxCSIDriverName))
	}
	return allErrs
}

// ValidateVolumeAttachmentUpdate validates an update of a
// VolumeAttachment. The spec is fixed; kube-apiserver reports the
// attacher with its hand-written rules here.
func ValidateVolumeAttachmentUpdate(va, old *storagev1.VolumeAttachment) field.ErrorList {
	allErrs := core.ValidateObjectMeta(&va.ObjectMeta, false, apivalidation.NameIsDNSSubdomain, metadataPath)
	allErrs = append(allErrs, core.ValidateObjectMetaUpdate(&va.ObjectMeta, &old.ObjectMeta, metadataPath)...)
	allErrs = append(allErrs, ValidateCSIDriverName(va.Spec.Attacher, specPath.Child("attacher"))...)
	allErrs = append(allErrs, validateVolumeAttachmentSource(&va.Spec.Source, specPath.Child("source"))...)
	allErrs = append(allErrs, validateNodeName(va.Spec.NodeName, specPath.Child("nodeName"))...)
	allErrs = append(allErrs, validateVolumeAttachmentStatus(&va.Status, field.NewPath("status"))...)
	allErrs = append(allErrs, validatePersistentVolumeName(va.Spec.Source.PersistentVolumeName)...)
	if !apiequality.Semantic.DeepEqual(va.Spec, old.Spec) {
		allErrs = append(allErrs, immutable(specPath))
	}
	return uniqueErrors(allErrs)
}

func validatePersistentVolumeName(name *string) field.ErrorList {
	if name == nil {
		return nil
	}
	var allErrs field.ErrorList
	for _, msg := range apivalidation.NameIsDNSSubdomain(*name, false) {
		allErrs = append(allErrs, field.Invalid(specPath.Child("source", "persistentVolumeName"), *name, msg))
	}
	return allErrs
}

func validateNodeName(name string, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for _, msg := range apivalidation.NameIsDNSSubdomain(name, false) {
		allErrs = append(allErrs, field.Invalid(fldPath, name, msg))
	}
	return allErrs
}

func validateVolumeAttachmentSource(source *storagev1.VolumeAttachmentSource, fldPath *field.Path) field.ErrorList {
	switch {
	case source.InlineVolumeSpec == nil && source.PersistentVolumeName == nil:
		return field.ErrorList{field.Required(fldPath, "must specify exactly one of inlineVolumeSpec and persistentVolumeName")}
	case source.InlineVolumeSpec != nil && source.PersistentVolumeName != nil:
		return field.ErrorList{field.Forbidden(fldPath, "must specify exactly one of inlineVolumeSpec and persistentVolumeName")}
	case source.PersistentVolumeName != nil:
		if *source.PersistentVolumeName == "" {
			return field.ErrorList{field.Required(fldPath.Child("persistentVolumeName"), "must specify non empty persistentVolumeName")}
		}
		return nil
	default:
		return validateInlineVolumeSpec(source.InlineVolumeSpec, fldPath.Child("inlineVolumeSpec"))
	}
}

// validateInlineVolumeSpec validates the persistent volume spec of an
// inline (CSI ephemeral) volume: a CSI source, access modes, nothing of a
// claim or a capacity. The checks of the other volume sources are the
// persistent volumes' and are not repeated here.
func validateInlineVolumeSpec(spec *corev1.PersistentVolumeSpec, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if spec.ClaimRef != nil {
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("claimRef"), "may not be specified in the context of inline volumes"))
	}
	if len(spec.Capacity) != 0 {
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("capacity"), "may not be specified in the context of inline volumes"))
	}
	if spec.CSI == nil {
		allErrs = append(allErrs, field.Required(fldPath.Child("csi"), "has to be specified in the context of inline volumes"))
	}
	if len(spec.AccessModes) == 0 {
		allErrs = append(allErrs, field.Required(fldPath.Child("accessModes"), ""))
	}
	modes := []string{string(corev1.ReadOnlyMany), string(corev1.ReadWriteMany), string(corev1.ReadWriteOnce), string(corev1.ReadWriteOncePod)}
	var rwop, other bool
	for _, m := range spec.AccessModes {
		if !sets.New(modes...).Has(string(m)) {
			allErrs = append(allErrs, field.NotSupported(fldPath.Child("accessModes"), m, modes))
		}
		if m == corev1.ReadWriteOncePod {
			rwop = true
		} else {
			other = true
		}
	}
	if rwop && other {
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("accessModes"), "may not use ReadWriteOncePod with other access modes"))
	}
	if spec.StorageClassName != "" {
		for _, msg := range apivalidation.NameIsDNSSubdomain(spec.StorageClassName, false) {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("storageClassName"), spec.StorageClassName, msg))
		}
	}
	if m := spec.VolumeMode; m != nil && *m != corev1.PersistentVolumeBlock && *m != corev1.PersistentVolumeFilesystem {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("volumeMode"), *m, []string{string(corev1.PersistentVolumeBlock), string(corev1.PersistentVolumeFilesystem)}))
	}
	if spec.CSI != nil {
		csiPath := fldPath.Child("csi")
		allErrs = append(allErrs, ValidateCSIDriverName(spec.CSI.Driver, csiPath.Child("driver"))...)
		if spec.CSI.VolumeHandle == "" {
			allErrs = append(allErrs, field.Required(csiPath.Child("volumeHandle"), ""))
		}
	} else if spec.PersistentVolumeSource == (corev1.PersistentVolumeSource{}) {
		allErrs = append(allErrs, field.Required(fldPath, "must specify a volume type"))
	}
	return allErrs
}

func validateVolumeAttachmentStatus(status *storagev1.VolumeAttachmentStatus, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	var size int64
	for k, v := range status.AttachmentMetadata {
		size += int64(len(k)) + int64(len(v))
	}
	if size > maxAttachmentMetadata {
		allErrs = append(allErrs, field.TooLong(fldPath.Child("attachmentMetadata"), "", maxAttachmentMetadata))
	}
	allErrs = append(allErrs, validateVolumeError(status.AttachError, fldPath.Child("attachError"))...)
	return append(allErrs, validateVolumeError(status.DetachError, fldPath.Child("detachError"))...)
}

func validateVolumeError(e *storagev1.VolumeError, fldPath *field.Path) field.ErrorList {
	if e == nil {
		return nil
	}
	var allErrs field.ErrorList
	if len(e.Message) > maxVolumeErrorMessage {
		// kube-apiserver names the metadata's bound here.
		allErrs = append(allErrs, field.TooLong(fldPath.Child("message"), "", maxAttachmentMetadata))
	}
	if e.ErrorCode != nil && *e.ErrorCode < 0 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("errorCode"), *e.ErrorCode, validation.InclusiveRangeError(0, math.MaxInt32)))
	}
	return allErrs
}

// ValidateVolumeAttachmentStatusUpdate validates a write of the status.
func ValidateVolumeAttachmentStatusUpdate(va, old *storagev1.VolumeAttachment) field.ErrorList {
	return ValidateVolumeAttachmentUpdate(va, old)
}

// ---- helpers ---------------------------------------------------------------

func validateQualifiedName(value string, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for _, msg := range validation.IsQualifiedName(value) {
		allErrs = append(allErrs, field.Invalid(fldPath, value, msg))
	}
	return allErrs
}

func validateNonnegativeQuantity(q resource.Quantity, fldPath *field.Path) field.ErrorList {
	if q.Sign() < 0 {
		return field.ErrorList{field.Invalid(fldPath, q.String(), apivalidation.IsNegativeErrorMsg)}
	}
	return nil
}

// uniqueErrors drops repeated errors, keeping the first of each. An
// update is validated as a new object and as a change, and both check
// the metadata; kube-apiserver reports each error once.
func uniqueErrors(errs field.ErrorList) field.ErrorList {
	seen := sets.New[string]()
	out := errs[:0:0]
	for _, e := range errs {
		if key := e.Error(); !seen.Has(key) {
			seen.Insert(key)
			out = append(out, e)
		}
	}
	return out
}
