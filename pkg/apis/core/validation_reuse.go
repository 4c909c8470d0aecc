package core

import (
	v1 "k8s.io/api/core/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metavalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The checks of core/v1 fields that other groups embed or repeat, exported
// for their validation: EndpointSlices (discovery.k8s.io), RuntimeClasses
// (node.k8s.io) and PriorityClasses (scheduling.k8s.io) use them with
// kube-apiserver's messages.

// ValidateDNS1123Label checks that value is an RFC 1123 label.
func ValidateDNS1123Label(value string, fldPath *field.Path) field.ErrorList {
	return validateDNS1123Label(value, fldPath)
}

// ValidateQualifiedName checks that value is a qualified name
// ("prefix/name" or "name").
func ValidateQualifiedName(value string, fldPath *field.Path) field.ErrorList {
	return validateQualifiedName(value, fldPath)
}

// ValidateEndpointIP refuses addresses an endpoint may not have:
// unparseable, unspecified, loopback and link-local ones.
func ValidateEndpointIP(address string, fldPath *field.Path) field.ErrorList {
	return validateNonSpecialIP(address, fldPath)
}

// ValidateNodeName checks a reference to a Node by name.
func ValidateNodeName(name string, fldPath *field.Path) field.ErrorList {
	return validateDNS1123Subdomain(name, fldPath)
}

// ValidateTolerations validates tolerations as a pod's.
func ValidateTolerations(tolerations []v1.Toleration, fldPath *field.Path) field.ErrorList {
	return validateTolerations(tolerations, fldPath)
}

// ValidateResourceLimits validates a list of resources as the limits of a
// container (a RuntimeClass's pod overhead is validated so).
func ValidateResourceLimits(limits v1.ResourceList, fldPath *field.Path) field.ErrorList {
	return validateResourceRequirements(&v1.ResourceRequirements{Limits: limits}, nil, false, fldPath)
}

// ValidatePreemptionPolicy accepts PreemptLowerPriority and Never.
func ValidatePreemptionPolicy(policy v1.PreemptionPolicy, fldPath *field.Path) field.ErrorList {
	return validatePreemptionPolicy(policy, fldPath)
}

// ValidateNodeSelector validates a node selector as a pod's required node
// affinity (ResourceClaims and ResourceSlices carry one).
func ValidateNodeSelector(sel *v1.NodeSelector, fldPath *field.Path) field.ErrorList {
	return validateNodeSelector(sel, false, fldPath)
}

// ValidateDNS1123Subdomain checks that value is an RFC 1123 subdomain.
func ValidateDNS1123Subdomain(value string, fldPath *field.Path) field.ErrorList {
	return validateDNS1123Subdomain(value, fldPath)
}

// ValidateTemplateObjectMeta validates the metadata of a template for
// objects made from it: labels and annotations, and nothing else set.
func ValidateTemplateObjectMeta(meta *metav1.ObjectMeta, fldPath *field.Path) field.ErrorList {
	allErrs := apivalidation.ValidateAnnotations(meta.Annotations, fldPath.Child("annotations"))
	allErrs = append(allErrs, metavalidation.ValidateLabels(meta.Labels, fldPath.Child("labels"))...)
	stripped := meta.DeepCopy()
	stripped.Labels, stripped.Annotations = nil, nil
	return append(allErrs, validateOnlyFieldsSet(*stripped, sets.New[string](), "cannot be set", fldPath)...)
}
