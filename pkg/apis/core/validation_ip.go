package core

import (
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// kube-apiserver 1.37 validates the IP and CIDR fields of the core API
// that predate its strict IP validation (a Service's cluster, external
// and load-balancer addresses, Endpoints, a Pod's addresses, DNS servers
// and host aliases, a Node's pod CIDRs) as "legacy" fields: any form Go's
// old parsers took is accepted except IPv4 octets with leading zeros,
// IPv4-mapped IPv6 addresses and CIDRs with bits set past their prefix
// length, which are refused unless the old object had the very same value
// (so that objects stored before the rule came stay writable). Forms that
// are valid but not canonical (upper case, uncompressed IPv6) are only
// warned about. Fields added since (EndpointSlice addresses, ServiceCIDRs,
// IPAddress names) must be canonical: validation.IsValidIP and
// IsValidCIDR.

// validateLegacyIP validates an IP of a legacy field; old are the values
// the old object had.
func validateLegacyIP(fldPath *field.Path, value string, old []string) field.ErrorList {
	return validation.IsValidIPForLegacyField(fldPath, value, true, old)
}

// validateLegacyCIDR validates a CIDR of a legacy field; old are the
// values the old object had.
func validateLegacyCIDR(fldPath *field.Path, value string, old []string) field.ErrorList {
	return validation.IsValidCIDRForLegacyField(fldPath, value, true, old)
}

// ServiceWarnings are kube-apiserver's warnings on a Service's spec: its
// IPs and CIDRs in forms that are not canonical, and external IPs, which
// are deprecated.
func ServiceWarnings(svc *v1.Service) []string {
	var warnings []string
	if svc.Spec.ClusterIP != v1.ClusterIPNone {
		for i, ip := range svc.Spec.ClusterIPs {
			warnings = append(warnings, LegacyIPWarnings(clusterIPsPath.Index(i), ip)...)
		}
	}
	for i, ip := range svc.Spec.ExternalIPs {
		warnings = append(warnings, LegacyIPWarnings(specPath.Child("externalIPs").Index(i), ip)...)
	}
	if svc.Spec.LoadBalancerIP != "" {
		warnings = append(warnings, LegacyIPWarnings(specPath.Child("loadBalancerIP"), svc.Spec.LoadBalancerIP)...)
	}
	for i, cidr := range svc.Spec.LoadBalancerSourceRanges {
		warnings = append(warnings, LegacyCIDRWarnings(specPath.Child("loadBalancerSourceRanges").Index(i), strings.TrimSpace(cidr))...)
	}
	if len(svc.Spec.ExternalIPs) > 0 {
		warnings = append(warnings, "spec.externalIPs is deprecated and may no longer be implemented in some clusters")
	}
	return warnings
}

// ServiceStatusWarnings are kube-apiserver's warnings on a Service's
// status: load-balancer IPs in forms that are not canonical.
func ServiceStatusWarnings(svc *v1.Service) []string {
	var warnings []string
	for i, ingress := range svc.Status.LoadBalancer.Ingress {
		if ingress.IP != "" {
			warnings = append(warnings, LegacyIPWarnings(statusPath.Child("loadBalancer", "ingress").Index(i), ingress.IP)...)
		}
	}
	return warnings
}

// EndpointsWarnings are kube-apiserver's warnings on Endpoints: addresses
// in forms that are not canonical.
func EndpointsWarnings(ep *v1.Endpoints) []string {
	var warnings []string
	for i, ss := range ep.Subsets {
		p := field.NewPath("subsets").Index(i)
		for j, a := range ss.Addresses {
			warnings = append(warnings, LegacyIPWarnings(p.Child("addresses").Index(j).Child("ip"), a.IP)...)
		}
		for j, a := range ss.NotReadyAddresses {
			warnings = append(warnings, LegacyIPWarnings(p.Child("notReadyAddresses").Index(j).Child("ip"), a.IP)...)
		}
	}
	return warnings
}

// NodeWarnings are kube-apiserver's warnings on a Node: pod CIDRs in
// forms that are not canonical.
func NodeWarnings(node *v1.Node) []string {
	var warnings []string
	for i, cidr := range node.Spec.PodCIDRs {
		warnings = append(warnings, LegacyCIDRWarnings(specPath.Child("podCIDRs").Index(i), cidr)...)
	}
	return warnings
}

// LegacyIPWarnings are the warnings of an IP of a legacy field that
// validated: apimachinery's helper must not see any other.
func LegacyIPWarnings(fldPath *field.Path, value string) []string {
	if len(validation.IsValidIPForLegacyField(fldPath, value, false, nil)) != 0 {
		return nil
	}
	return validation.GetWarningsForIP(fldPath, value)
}

// LegacyCIDRWarnings are the warnings of a CIDR of a legacy field that
// validated.
func LegacyCIDRWarnings(fldPath *field.Path, value string) []string {
	if len(validation.IsValidCIDRForLegacyField(fldPath, value, false, nil)) != 0 {
		return nil
	}
	return validation.GetWarningsForCIDR(fldPath, value)
}
