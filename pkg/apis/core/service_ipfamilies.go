package core

import (
	"fmt"
	"slices"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// DefaultServiceIPFamilies fills in a service's ipFamilyPolicy and
// ipFamilies from what the user asked for and from the IP families the
// cluster serves (clusterFamilies, primary first), as kube-apiserver does
// just before allocating cluster IPs. It is not a scheme defaulter, since
// it depends on the cluster's configuration: the service registry calls it
// on create and update (oldSvc is nil on create), after SetDefaultsService
// and before allocating. It returns the errors that make the request
// impossible to satisfy, such as asking for dual-stack on a single-stack
// cluster; the service is then left partly defaulted.
func DefaultServiceIPFamilies(svc, oldSvc *v1.Service, clusterFamilies []v1.IPFamily) field.ErrorList {
	spec := &svc.Spec
	if spec.Type == v1.ServiceTypeExternalName {
		return nil
	}
	// A PreferDualStack service keeps the families it has when the cluster
	// gains or loses one: it only changes when the user says so.
	if oldSvc != nil && isPolicy(oldSvc.Spec.IPFamilyPolicy, v1.IPFamilyPolicyPreferDualStack) &&
		isPolicy(spec.IPFamilyPolicy, v1.IPFamilyPolicyPreferDualStack) &&
		slices.Equal(oldSvc.Spec.ClusterIPs, spec.ClusterIPs) && slices.Equal(oldSvc.Spec.IPFamilies, spec.IPFamilies) {
		return nil
	}
	if spec.IPFamilyPolicy == nil {
		spec.IPFamilyPolicy = inferIPFamilyPolicy(svc, oldSvc)
	}
	if errs := validateClusterIPFields(svc, oldSvc); len(errs) > 0 {
		return errs
	}

	var allErrs field.ErrorList
	if oldSvc != nil {
		allErrs = append(allErrs, applyPolicyToUpdate(svc, oldSvc)...)
	}
	if isPolicy(spec.IPFamilyPolicy, v1.IPFamilyPolicySingleStack) {
		if len(spec.ClusterIPs) == 2 {
			allErrs = append(allErrs, field.Invalid(ipFamilyPolicyPath, spec.IPFamilyPolicy, "must be 'RequireDualStack' or 'PreferDualStack' when multiple cluster IPs are specified"))
		}
		if len(spec.IPFamilies) == 2 {
			allErrs = append(allErrs, field.Invalid(ipFamilyPolicyPath, spec.IPFamilyPolicy, "must be 'RequireDualStack' or 'PreferDualStack' when multiple IP families are specified"))
		}
	}
	// Families of the cluster IPs the user chose.
	for i, ip := range spec.ClusterIPs {
		if ip == v1.ClusterIPNone {
			break
		}
		if i < len(spec.IPFamilies) {
			continue
		}
		family := ipFamilyOf(ip)
		if !slices.Contains(clusterFamilies, family) {
			allErrs = append(allErrs, field.Invalid(clusterIPsPath.Index(i), spec.ClusterIPs, fmt.Sprintf("%s is not configured on this cluster", family)))
		} else {
			spec.IPFamilies = append(spec.IPFamilies, family)
		}
	}
	if len(allErrs) > 0 {
		return allErrs
	}

	// Headless services without selectors have no IPs to allocate: their
	// families only say which endpoint addresses they accept, and may name
	// families the cluster does not have.
	if spec.ClusterIP == v1.ClusterIPNone && len(spec.Selector) == 0 {
		if len(spec.IPFamilies) == 0 {
			spec.IPFamilies = []v1.IPFamily{clusterFamilies[0]}
		}
		if len(spec.IPFamilies) < 2 && !isPolicy(spec.IPFamilyPolicy, v1.IPFamilyPolicySingleStack) {
			spec.IPFamilies = append(spec.IPFamilies, otherFamily(spec.IPFamilies[0]))
		}
		return nil
	}

	if isPolicy(spec.IPFamilyPolicy, v1.IPFamilyPolicyRequireDualStack) && len(clusterFamilies) < 2 {
		allErrs = append(allErrs, field.Invalid(ipFamilyPolicyPath, spec.IPFamilyPolicy, "this cluster is not configured for dual-stack services"))
	}
	for i, family := range spec.IPFamilies {
		if !slices.Contains(clusterFamilies, family) {
			allErrs = append(allErrs, field.Invalid(ipFamiliesPath.Index(i), family, "not configured on this cluster"))
		}
	}
	if len(allErrs) > 0 {
		return allErrs
	}
	if len(spec.IPFamilies) == 0 {
		spec.IPFamilies = []v1.IPFamily{clusterFamilies[0]}
	}
	if !isPolicy(spec.IPFamilyPolicy, v1.IPFamilyPolicySingleStack) && len(spec.IPFamilies) == 1 && len(clusterFamilies) == 2 {
		spec.IPFamilies = append(spec.IPFamilies, otherFamily(spec.IPFamilies[0]))
	}
	return nil
}

// inferIPFamilyPolicy picks the policy of a service that states none: the
// one it had, dual-stack for selectorless headless services (their
// endpoints may be of any family), single-stack otherwise.
func inferIPFamilyPolicy(svc, oldSvc *v1.Service) *v1.IPFamilyPolicy {
	policy := v1.IPFamilyPolicySingleStack
	switch {
	case oldSvc != nil && oldSvc.Spec.IPFamilyPolicy != nil:
		policy = *oldSvc.Spec.IPFamilyPolicy
	case svc.Spec.ClusterIP == v1.ClusterIPNone && len(svc.Spec.Selector) == 0:
		policy = v1.IPFamilyPolicyRequireDualStack
	}
	return &policy
}

// applyPolicyToUpdate handles a service moving to single-stack: with
// unchanged IPs and families, SingleStack means "drop the secondary one";
// with any other policy, dropping one is an error.
func applyPolicyToUpdate(svc, oldSvc *v1.Service) field.ErrorList {
	spec := &svc.Spec
	sameIPs := slices.Equal(oldSvc.Spec.ClusterIPs, spec.ClusterIPs)
	sameFamilies := slices.Equal(oldSvc.Spec.IPFamilies, spec.IPFamilies)
	if isPolicy(spec.IPFamilyPolicy, v1.IPFamilyPolicySingleStack) {
		if sameIPs && len(spec.ClusterIPs) > 1 {
			spec.ClusterIPs = spec.ClusterIPs[:1]
		}
		if sameFamilies && len(spec.IPFamilies) > 1 {
			spec.IPFamilies = spec.IPFamilies[:1]
		}
		return nil
	}
	// An empty list was not given (and is defaulted below), not reduced.
	var allErrs field.ErrorList
	if len(spec.ClusterIPs) > 0 && len(spec.ClusterIPs) < len(oldSvc.Spec.ClusterIPs) {
		allErrs = append(allErrs, field.Invalid(ipFamilyPolicyPath, spec.IPFamilyPolicy, "must be 'SingleStack' to release the secondary cluster IP"))
	}
	if len(spec.IPFamilies) > 0 && len(spec.IPFamilies) < len(oldSvc.Spec.IPFamilies) {
		allErrs = append(allErrs, field.Invalid(ipFamilyPolicyPath, spec.IPFamilyPolicy, "must be 'SingleStack' to release the secondary IP family"))
	}
	return allErrs
}

func isPolicy(policy *v1.IPFamilyPolicy, want v1.IPFamilyPolicy) bool {
	return policy != nil && *policy == want
}

func ipFamilyOf(ip string) v1.IPFamily {
	if isIPv6(ip) {
		return v1.IPv6Protocol
	}
	return v1.IPv4Protocol
}

func otherFamily(family v1.IPFamily) v1.IPFamily {
	if family == v1.IPv4Protocol {
		return v1.IPv6Protocol
	}
	return v1.IPv4Protocol
}
