package networking

import (
	networkingv1 "k8s.io/api/networking/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	netutils "k8s.io/utils/net"

	"github.com/kapi-dev/kapi/pkg/apis/core"
)

// ServiceCIDR

var cidrsPath = specPath.Child("cidrs")

// ValidateServiceCIDR validates a ServiceCIDR on create: one or two CIDRs
// in canonical form, at most one of each IP family.
func ValidateServiceCIDR(sc *networkingv1.ServiceCIDR) field.ErrorList {
	allErrs := core.ValidateObjectMeta(&sc.ObjectMeta, false, apivalidation.NameIsDNSSubdomain, metadataPath)
	return append(allErrs, validateServiceCIDRSpec(&sc.Spec)...)
}

func validateServiceCIDRSpec(spec *networkingv1.ServiceCIDRSpec) field.ErrorList {
	switch {
	case len(spec.CIDRs) == 0:
		return field.ErrorList{field.Required(cidrsPath, "at least one CIDR required")}
	case len(spec.CIDRs) > 2:
		// kube-apiserver shows its internal type, whose fields have no
		// JSON names.
		shown := struct{ CIDRs []string }{spec.CIDRs}
		return field.ErrorList{field.Invalid(cidrsPath, shown, "may only hold up to 2 values")}
	}
	var allErrs field.ErrorList
	for i, cidr := range spec.CIDRs {
		allErrs = append(allErrs, validation.IsValidCIDR(cidrsPath.Index(i), cidr)...)
	}
	if len(spec.CIDRs) == 2 {
		a, b := familyOfCIDR(spec.CIDRs[0]), familyOfCIDR(spec.CIDRs[1])
		if a != "" && a == b {
			allErrs = append(allErrs, field.Invalid(cidrsPath, spec.CIDRs, "may specify no more than one IP for each IP family, i.e 192.168.0.0/24 and 2001:db8::/64"))
		}
	}
	return allErrs
}

// familyOfCIDR is "4" or "6", or "" for a value that is not a CIDR.
// kube-apiserver takes the family as k8s.io/utils/net does: an
// IPv4-mapped IPv6 CIDR is IPv4.
func familyOfCIDR(s string) string {
	switch netutils.IPFamilyOfCIDRString(s) {
	case netutils.IPv4:
		return "4"
	case netutils.IPv6:
		return "6"
	}
	return ""
}

// ValidateServiceCIDRUpdate validates an update of a ServiceCIDR. Its
// CIDRs are immutable, except that a single-stack ServiceCIDR may gain a
// CIDR of the other family and become dual-stack.
func ValidateServiceCIDRUpdate(sc, old *networkingv1.ServiceCIDR) field.ErrorList {
	allErrs := core.ValidateObjectMetaUpdate(&sc.ObjectMeta, &old.ObjectMeta, metadataPath)
	newCIDRs, oldCIDRs := sc.Spec.CIDRs, old.Spec.CIDRs
	switch {
	case len(newCIDRs) == len(oldCIDRs):
		for i := range oldCIDRs {
			if newCIDRs[i] != oldCIDRs[i] {
				allErrs = append(allErrs, field.Invalid(cidrsPath.Index(i), newCIDRs[i], apivalidation.FieldImmutableErrorMsg))
			}
		}
	case len(oldCIDRs) == 1 && len(newCIDRs) == 2:
		if newCIDRs[0] != oldCIDRs[0] {
			allErrs = append(allErrs, field.Invalid(cidrsPath.Index(0), newCIDRs[0], apivalidation.FieldImmutableErrorMsg))
		}
		allErrs = append(allErrs, validateServiceCIDRSpec(&sc.Spec)...)
	default:
		allErrs = append(allErrs, field.Invalid(cidrsPath, newCIDRs, apivalidation.FieldImmutableErrorMsg))
	}
	return allErrs
}

// ValidateServiceCIDRStatusUpdate validates a write of a ServiceCIDR's
// status: kube-apiserver checks only the metadata.
func ValidateServiceCIDRStatusUpdate(sc, old *networkingv1.ServiceCIDR) field.ErrorList {
	return core.ValidateObjectMetaUpdate(&sc.ObjectMeta, &old.ObjectMeta, metadataPath)
}

// IPAddress

// ValidateIPAddress validates an IPAddress on create: its name is an IP
// in canonical form, and it names the object it is allocated to.
func ValidateIPAddress(ip *networkingv1.IPAddress) field.ErrorList {
	allErrs := core.ValidateObjectMeta(&ip.ObjectMeta, false, ipAddressName, metadataPath)
	return append(allErrs, validateParentReference(ip.Spec.ParentRef, specPath.Child("parentRef"))...)
}

// ipAddressName accepts an IP address in canonical form. Names are never
// generated: an IPAddress is named by the address it reserves.
func ipAddressName(name string, _ bool) []string {
	var msgs []string
	for _, err := range validation.IsValidIP(field.NewPath(""), name) {
		msgs = append(msgs, err.Detail)
	}
	return msgs
}

func validateParentReference(ref *networkingv1.ParentReference, fldPath *field.Path) field.ErrorList {
	if ref == nil {
		return field.ErrorList{field.Required(fldPath, "")}
	}
	var allErrs field.ErrorList
	// The core group, that of Services, is the empty string: the group
	// cannot be required.
	if ref.Group != "" {
		for _, msg := range validation.IsDNS1123Subdomain(ref.Group) {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("group"), ref.Group, msg))
		}
	}
	allErrs = append(allErrs, validatePathSegment(ref.Resource, fldPath.Child("resource"))...)
	allErrs = append(allErrs, validatePathSegment(ref.Name, fldPath.Child("name"))...)
	if ref.Namespace != "" {
		allErrs = append(allErrs, optionalPathSegment(ref.Namespace, fldPath.Child("namespace"))...)
	}
	return allErrs
}

// ValidateIPAddressUpdate validates an update of an IPAddress: the
// object it is allocated to cannot change.
func ValidateIPAddressUpdate(ip, old *networkingv1.IPAddress) field.ErrorList {
	allErrs := ValidateIPAddress(ip)
	allErrs = append(allErrs, core.ValidateObjectMetaUpdate(&ip.ObjectMeta, &old.ObjectMeta, metadataPath)...)
	// kube-apiserver's declarative validation reports the change without
	// the value.
	if !apiequality.Semantic.DeepEqual(ip.Spec.ParentRef, old.Spec.ParentRef) {
		allErrs = append(allErrs, field.Invalid(specPath.Child("parentRef"), nil, apivalidation.FieldImmutableErrorMsg))
	}
	return allErrs
}
