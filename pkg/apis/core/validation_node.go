package core

import (
	"strings"

	v1 "k8s.io/api/core/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metavalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ValidateNode validates a Node on create. Its status is optional (the
// kubelet fills it in later) but must be valid when present.
func ValidateNode(node *v1.Node) field.ErrorList {
	allErrs := ValidateObjectMeta(&node.ObjectMeta, false, apivalidation.NameIsDNSSubdomain, metadataPath)
	// kube-apiserver reports taints under metadata; kept for compatibility.
	allErrs = append(allErrs, validateNodeTaints(node.Spec.Taints, metadataPath.Child("taints"))...)
	allErrs = append(allErrs, validateNodeResources(node)...)
	return append(allErrs, validatePodCIDRs(node.Spec.PodCIDRs, nil, specPath.Child("podCIDRs"))...)
}

// validatePodCIDRs requires valid CIDRs, at most one per IP family; old
// are the stored ones on update, kept even in forms no longer allowed.
func validatePodCIDRs(cidrs, old []string, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	valid := true
	for i, cidr := range cidrs {
		errs := validateLegacyCIDR(fldPath.Index(i), cidr, old)
		valid = valid && len(errs) == 0
		allErrs = append(allErrs, errs...)
	}
	if len(cidrs) <= 1 {
		return allErrs
	}
	if valid && (len(cidrs) > 2 || !isDualStack(cidrs)) {
		allErrs = append(allErrs, field.Invalid(fldPath, cidrs, "may specify no more than one CIDR for each IP family"))
	}
	seen := sets.New[string]()
	for i, cidr := range cidrs {
		if seen.Has(cidr) {
			allErrs = append(allErrs, field.Duplicate(fldPath.Index(i), cidr))
		}
		seen.Insert(cidr)
	}
	return allErrs
}

// validateNodeTaints validates taints, which must be unique per key and
// effect.
func validateNodeTaints(taints []v1.Taint, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	seen := map[v1.TaintEffect]sets.Set[string]{}
	for i, taint := range taints {
		idxPath := fldPath.Index(i)
		allErrs = append(allErrs, metavalidation.ValidateLabelName(taint.Key, idxPath.Child("key"))...)
		if msgs := validation.IsValidLabelValue(taint.Value); len(msgs) > 0 {
			allErrs = append(allErrs, field.Invalid(idxPath.Child("value"), taint.Value, strings.Join(msgs, ";")))
		}
		allErrs = append(allErrs, validateTaintEffect(taint.Effect, false, idxPath.Child("effect"))...)
		if seen[taint.Effect].Has(taint.Key) {
			err := field.Duplicate(idxPath, taint)
			err.Detail = "taints must be unique by key and effect pair"
			allErrs = append(allErrs, err)
			continue
		}
		if seen[taint.Effect] == nil {
			seen[taint.Effect] = sets.New[string]()
		}
		seen[taint.Effect].Insert(taint.Key)
	}
	return allErrs
}

// validateNodeResources validates the quantities of a node's capacity and
// allocatable resources.
func validateNodeResources(node *v1.Node) field.ErrorList {
	var allErrs field.ErrorList
	for _, name := range sortedKeys(node.Status.Capacity) {
		allErrs = append(allErrs, validateResourceQuantity(name, node.Status.Capacity[name], statusPath.Child("capacity", string(name)))...)
	}
	for _, name := range sortedKeys(node.Status.Allocatable) {
		allErrs = append(allErrs, validateResourceQuantity(name, node.Status.Allocatable[name], statusPath.Child("allocatable", string(name)))...)
	}
	return allErrs
}

// ValidateNodeUpdate validates an update of a Node. The node controller may
// set the pod CIDRs and the cloud provider the provider ID, once; status
// and the rest of the spec may change.
func ValidateNodeUpdate(newNode, oldNode *v1.Node) field.ErrorList {
	allErrs := ValidateObjectMetaUpdate(&newNode.ObjectMeta, &oldNode.ObjectMeta, metadataPath)
	allErrs = append(allErrs, validateNodeResources(newNode)...)
	seen := sets.New[v1.NodeAddress]()
	for i, address := range newNode.Status.Addresses {
		if seen.Has(address) {
			allErrs = append(allErrs, field.Duplicate(statusPath.Child("addresses").Index(i), address))
		}
		seen.Insert(address)
	}
	allErrs = append(allErrs, validatePodCIDRs(newNode.Spec.PodCIDRs, oldNode.Spec.PodCIDRs, specPath.Child("podCIDRs"))...)
	allErrs = append(allErrs, validatePodCIDRsUpdate(newNode.Spec.PodCIDRs, oldNode.Spec.PodCIDRs)...)
	if oldNode.Spec.ProviderID != "" && oldNode.Spec.ProviderID != newNode.Spec.ProviderID {
		allErrs = append(allErrs, field.Forbidden(specPath.Child("providerID"), "node updates may not change providerID except from \"\" to valid"))
	}
	allErrs = append(allErrs, validateNodeTaints(newNode.Spec.Taints, metadataPath.Child("taints"))...)
	if newNode.Spec.DoNotUseExternalID != oldNode.Spec.DoNotUseExternalID {
		allErrs = append(allErrs, field.Forbidden(specPath.Child("externalID"), "may not be updated"))
	}
	return allErrs
}

// validatePodCIDRsUpdate lets pod CIDRs be assigned once, never changed:
// pods already have addresses from them.
func validatePodCIDRsUpdate(newCIDRs, oldCIDRs []string) field.ErrorList {
	if len(oldCIDRs) == 0 {
		return nil
	}
	forbidden := field.Forbidden(specPath.Child("podCIDRs"), "node updates may not change podCIDR except from \"\" to valid")
	if len(newCIDRs) != len(oldCIDRs) {
		return field.ErrorList{forbidden}
	}
	var allErrs field.ErrorList
	for i := range oldCIDRs {
		if newCIDRs[i] != oldCIDRs[i] {
			allErrs = append(allErrs, forbidden)
		}
	}
	return allErrs
}

// ValidateNodeStatusUpdate validates an update of a Node's status. The
// rules are those of any node update: the status subresource only changes
// which part of the object is taken from the request.
func ValidateNodeStatusUpdate(newNode, oldNode *v1.Node) field.ErrorList {
	return ValidateNodeUpdate(newNode, oldNode)
}
