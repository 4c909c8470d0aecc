package core

import (
	"fmt"
	"net"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metavalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	netutils "k8s.io/utils/net"
)

// maxClientIPServiceAffinitySeconds is the longest ClientIP session
// affinity a service may ask for: one day.
const maxClientIPServiceAffinitySeconds = 86400

// Annotations that matter to services.
const (
	topologyModeAnnotation             = "service.kubernetes.io/topology-mode"
	topologyAwareHintsAnnotation       = "service.kubernetes.io/topology-aware-hints"
	loadBalancerSourceRangesAnnotation = "service.beta.kubernetes.io/load-balancer-source-ranges"
)

var (
	serviceTypes              = []v1.ServiceType{v1.ServiceTypeClusterIP, v1.ServiceTypeExternalName, v1.ServiceTypeLoadBalancer, v1.ServiceTypeNodePort}
	sessionAffinities         = []v1.ServiceAffinity{v1.ServiceAffinityClientIP, v1.ServiceAffinityNone}
	ipFamilies                = []v1.IPFamily{v1.IPv4Protocol, v1.IPv6Protocol}
	ipFamilyPolicies          = []v1.IPFamilyPolicy{v1.IPFamilyPolicyPreferDualStack, v1.IPFamilyPolicyRequireDualStack, v1.IPFamilyPolicySingleStack}
	externalTrafficPolicies   = []v1.ServiceExternalTrafficPolicy{v1.ServiceExternalTrafficPolicyCluster, v1.ServiceExternalTrafficPolicyLocal}
	internalTrafficPolicies   = []v1.ServiceInternalTrafficPolicy{v1.ServiceInternalTrafficPolicyCluster, v1.ServiceInternalTrafficPolicyLocal}
	trafficDistributions      = []string{v1.ServiceTrafficDistributionPreferClose, v1.ServiceTrafficDistributionPreferSameZone, v1.ServiceTrafficDistributionPreferSameNode}
	loadBalancerIPModes       = []v1.LoadBalancerIPMode{v1.LoadBalancerIPModeProxy, v1.LoadBalancerIPModeVIP}
	clusterIPsPath            = specPath.Child("clusterIPs")
	ipFamiliesPath            = specPath.Child("ipFamilies")
	ipFamilyPolicyPath        = specPath.Child("ipFamilyPolicy")
	externalTrafficPolicyPath = specPath.Child("externalTrafficPolicy")
)

// ValidateService validates a Service on create. Its cluster IPs and IP
// families must already be allocated.
func ValidateService(svc *v1.Service) field.ErrorList {
	return validateService(svc, nil)
}

// validateService validates a Service; old is the stored one on update,
// whose IPs and CIDRs are kept even in forms no longer allowed.
func validateService(svc, old *v1.Service) field.ErrorList {
	if old == nil {
		old = &v1.Service{}
	}
	allErrs := ValidateObjectMeta(&svc.ObjectMeta, true, apivalidation.NameIsDNS1035Label, metadataPath)
	mode, hasMode := svc.Annotations[topologyModeAnnotation]
	if hints, hasHints := svc.Annotations[topologyAwareHintsAnnotation]; hasMode && hasHints && mode != hints {
		allErrs = append(allErrs, field.Invalid(metadataPath.Child("annotations").Key(topologyModeAnnotation), mode, fmt.Sprintf("must match annotations[%s] when both are specified", topologyAwareHintsAnnotation)))
	}

	spec := &svc.Spec
	headless := isHeadless(svc)
	if len(spec.Ports) == 0 && !headless && spec.Type != v1.ServiceTypeExternalName {
		allErrs = append(allErrs, field.Required(specPath.Child("ports"), ""))
	}
	allErrs = append(allErrs, validateServiceTypeFields(svc)...)
	portNames := sets.New[string]()
	for i := range spec.Ports {
		allErrs = append(allErrs, validateServicePort(&spec.Ports[i], len(spec.Ports) > 1, portNames, specPath.Child("ports").Index(i))...)
	}
	if spec.Selector != nil {
		allErrs = append(allErrs, metavalidation.ValidateLabels(spec.Selector, specPath.Child("selector"))...)
	}
	allErrs = append(allErrs, validateSessionAffinity(spec)...)
	allErrs = append(allErrs, validateClusterIPFields(svc, old)...)
	for i, ip := range spec.ExternalIPs {
		ipPath := specPath.Child("externalIPs").Index(i)
		if errs := validateLegacyIP(ipPath, ip, old.Spec.ExternalIPs); len(errs) > 0 {
			allErrs = append(allErrs, errs...)
		} else {
			allErrs = append(allErrs, validateNonSpecialIP(ip, ipPath)...)
		}
	}
	switch {
	case spec.Type == "":
		allErrs = append(allErrs, field.Required(specPath.Child("type"), ""))
	case !sets.New(serviceTypes...).Has(spec.Type):
		allErrs = append(allErrs, field.NotSupported(specPath.Child("type"), spec.Type, serviceTypes))
	}
	allErrs = append(allErrs, validateServicePortUniqueness(svc)...)
	allErrs = append(allErrs, validateLoadBalancerFields(svc, old)...)
	allErrs = append(allErrs, validateExternalTrafficPolicy(svc)...)
	if spec.InternalTrafficPolicy == nil {
		// Other types are not required to have one: they did not always,
		// and stored objects must stay valid.
		if hasClusterIP(spec.Type) {
			allErrs = append(allErrs, field.Required(specPath.Child("internalTrafficPolicy"), ""))
		}
	} else if !sets.New(internalTrafficPolicies...).Has(*spec.InternalTrafficPolicy) {
		allErrs = append(allErrs, field.NotSupported(specPath.Child("internalTrafficPolicy"), *spec.InternalTrafficPolicy, internalTrafficPolicies))
	}
	if d := spec.TrafficDistribution; d != nil && !sets.New(trafficDistributions...).Has(*d) {
		allErrs = append(allErrs, field.NotSupported(specPath.Child("trafficDistribution"), *d, trafficDistributions))
	}
	return allErrs
}

// validateServiceTypeFields checks what the service's type implies: no
// headless NodePort or LoadBalancer services, and for ExternalName a
// DNS name and no IP fields at all.
func validateServiceTypeFields(svc *v1.Service) field.ErrorList {
	var allErrs field.ErrorList
	spec := &svc.Spec
	switch spec.Type {
	case v1.ServiceTypeLoadBalancer, v1.ServiceTypeNodePort:
		if isHeadless(svc) {
			allErrs = append(allErrs, field.Invalid(clusterIPsPath.Index(0), spec.ClusterIPs[0], fmt.Sprintf("may not be set to 'None' for %s services", spec.Type)))
		}
	case v1.ServiceTypeExternalName:
		if len(spec.ClusterIPs) > 0 {
			allErrs = append(allErrs, field.Forbidden(clusterIPsPath, "may not be set for ExternalName services"))
		}
		if len(spec.IPFamilies) > 0 {
			allErrs = append(allErrs, field.Forbidden(ipFamiliesPath, "may not be set for ExternalName services"))
		}
		if spec.IPFamilyPolicy != nil {
			allErrs = append(allErrs, field.Forbidden(ipFamilyPolicyPath, "may not be set for ExternalName services"))
		}
		// A trailing dot marks a fully qualified name.
		if name := strings.TrimSuffix(spec.ExternalName, "."); name != "" {
			allErrs = append(allErrs, validateDNS1123Subdomain(name, specPath.Child("externalName"))...)
		} else {
			allErrs = append(allErrs, field.Required(specPath.Child("externalName"), ""))
		}
	}
	return allErrs
}

func validateServicePort(port *v1.ServicePort, requireName bool, names sets.Set[string], fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if requireName && port.Name == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("name"), ""))
	} else if port.Name != "" {
		allErrs = append(allErrs, validateDNS1123Label(port.Name, fldPath.Child("name"))...)
		if names.Has(port.Name) {
			allErrs = append(allErrs, field.Duplicate(fldPath.Child("name"), port.Name))
		}
		names.Insert(port.Name)
	}
	allErrs = append(allErrs, messagesToErrors(validation.IsValidPortNum(int(port.Port)), port.Port, fldPath.Child("port"))...)
	allErrs = append(allErrs, validateProtocol(port.Protocol, fldPath.Child("protocol"))...)
	allErrs = append(allErrs, validatePortNumOrName(port.TargetPort, fldPath.Child("targetPort"))...)
	if port.AppProtocol != nil {
		allErrs = append(allErrs, validateQualifiedName(*port.AppProtocol, fldPath.Child("appProtocol"))...)
	}
	return allErrs
}

func validateSessionAffinity(spec *v1.ServiceSpec) field.ErrorList {
	var allErrs field.ErrorList
	affinityPath, configPath := specPath.Child("sessionAffinity"), specPath.Child("sessionAffinityConfig")
	switch spec.SessionAffinity {
	case "":
		allErrs = append(allErrs, field.Required(affinityPath, ""))
	case v1.ServiceAffinityNone:
		if spec.SessionAffinityConfig != nil {
			allErrs = append(allErrs, field.Forbidden(configPath, fmt.Sprintf("must not be set when session affinity is %s", v1.ServiceAffinityNone)))
		}
	case v1.ServiceAffinityClientIP:
		allErrs = append(allErrs, validateClientIPAffinityConfig(spec.SessionAffinityConfig, configPath)...)
	default:
		allErrs = append(allErrs, field.NotSupported(affinityPath, spec.SessionAffinity, sessionAffinities))
	}
	return allErrs
}

func validateClientIPAffinityConfig(cfg *v1.SessionAffinityConfig, fldPath *field.Path) field.ErrorList {
	detail := fmt.Sprintf("when session affinity type is %s", v1.ServiceAffinityClientIP)
	switch {
	case cfg == nil:
		return field.ErrorList{field.Required(fldPath, detail)}
	case cfg.ClientIP == nil:
		return field.ErrorList{field.Required(fldPath.Child("clientIP"), detail)}
	case cfg.ClientIP.TimeoutSeconds == nil:
		return field.ErrorList{field.Required(fldPath.Child("clientIP", "timeoutSeconds"), detail)}
	}
	if timeout := cfg.ClientIP.TimeoutSeconds; *timeout <= 0 || *timeout > maxClientIPServiceAffinitySeconds {
		return field.ErrorList{field.Invalid(fldPath.Child("clientIP", "timeoutSeconds"), timeout, fmt.Sprintf("must be greater than 0 and less than %d", maxClientIPServiceAffinitySeconds))}
	}
	return nil
}

// validateClusterIPFields checks clusterIP, clusterIPs, ipFamilies and
// ipFamilyPolicy against each other: clusterIPs starts with clusterIP,
// holds at most one IP per family, and matches ipFamilies.
func validateClusterIPFields(svc, old *v1.Service) field.ErrorList {
	if old == nil {
		old = &v1.Service{}
	}
	spec := &svc.Spec
	// ExternalName services have none of these; that is checked with the
	// type.
	if spec.Type == v1.ServiceTypeExternalName {
		return nil
	}
	var allErrs field.ErrorList
	if spec.ClusterIP != "" {
		if len(spec.ClusterIPs) == 0 {
			allErrs = append(allErrs, field.Required(clusterIPsPath, ""))
		} else if spec.ClusterIPs[0] != spec.ClusterIP {
			allErrs = append(allErrs, field.Invalid(clusterIPsPath, spec.ClusterIPs, "first value must match `clusterIP`"))
		}
	} else if len(spec.ClusterIPs) != 0 {
		allErrs = append(allErrs, field.Invalid(clusterIPsPath, spec.ClusterIPs, "must be empty when `clusterIP` is not specified"))
	}

	seen := sets.New[v1.IPFamily]()
	for i, family := range spec.IPFamilies {
		if !sets.New(ipFamilies...).Has(family) {
			allErrs = append(allErrs, field.NotSupported(ipFamiliesPath.Index(i), family, ipFamilies))
		}
		if seen.Has(family) {
			allErrs = append(allErrs, field.Duplicate(ipFamiliesPath.Index(i), family))
		}
		seen.Insert(family)
	}
	if p := spec.IPFamilyPolicy; p != nil && !sets.New(ipFamilyPolicies...).Has(*p) {
		allErrs = append(allErrs, field.NotSupported(ipFamilyPolicyPath, p, ipFamilyPolicies))
	}

	invalidIPs := false
	for i, ip := range spec.ClusterIPs {
		// "None" (headless) is only valid as the one and only value.
		if i == 0 && ip == v1.ClusterIPNone {
			if len(spec.ClusterIPs) > 1 {
				invalidIPs = true
				allErrs = append(allErrs, field.Invalid(clusterIPsPath, spec.ClusterIPs, "'None' must be the first and only value"))
			}
			continue
		}
		errs := validateLegacyIP(clusterIPsPath.Index(i), ip, old.Spec.ClusterIPs)
		invalidIPs = invalidIPs || len(errs) > 0
		allErrs = append(allErrs, errs...)
	}
	if len(spec.ClusterIPs) > 2 {
		allErrs = append(allErrs, field.Invalid(clusterIPsPath, spec.ClusterIPs, "may only hold up to 2 values"))
	}
	// Family checks on invalid IPs would only add confusing errors.
	if invalidIPs {
		return allErrs
	}
	if len(spec.ClusterIPs) > 1 && !isDualStack(spec.ClusterIPs) {
		allErrs = append(allErrs, field.Invalid(clusterIPsPath, spec.ClusterIPs, "may specify no more than one IP for each IP family"))
	}
	if !isHeadless(svc) {
		for i, ip := range spec.ClusterIPs {
			if i >= len(spec.IPFamilies) {
				break
			}
			switch family := spec.IPFamilies[i]; {
			case family == v1.IPv4Protocol && isIPv6(ip):
				allErrs = append(allErrs, field.Invalid(clusterIPsPath.Index(i), ip, fmt.Sprintf("expected an IPv4 value as indicated by `ipFamilies[%v]`", i)))
			case family == v1.IPv6Protocol && !isIPv6(ip):
				allErrs = append(allErrs, field.Invalid(clusterIPsPath.Index(i), ip, fmt.Sprintf("expected an IPv6 value as indicated by `ipFamilies[%v]`", i)))
			}
		}
	}
	return allErrs
}

// servicePortKey identifies a service port for duplicate detection. It
// has no JSON tags on purpose: kube-apiserver prints the duplicate with the
// Go field names of its internal type, and so do we.
type servicePortKey struct {
	Name        string
	Protocol    v1.Protocol
	AppProtocol *string
	Port        int32
	TargetPort  intstr.IntOrString
	NodePort    int32
}

// validateServicePortUniqueness checks node ports (only ClusterIP services
// have none) and that no (protocol, port) or (protocol, nodePort) pair is
// used twice.
func validateServicePortUniqueness(svc *v1.Service) field.ErrorList {
	var allErrs field.ErrorList
	ports := svc.Spec.Ports
	portsPath := specPath.Child("ports")
	if svc.Spec.Type == v1.ServiceTypeClusterIP {
		for i := range ports {
			if ports[i].NodePort != 0 {
				allErrs = append(allErrs, field.Forbidden(portsPath.Index(i).Child("nodePort"), "may not be used when `type` is 'ClusterIP'"))
			}
		}
	}
	nodePorts := sets.New[servicePortKey]()
	for i, port := range ports {
		if port.NodePort == 0 {
			continue
		}
		key := servicePortKey{Protocol: port.Protocol, NodePort: port.NodePort}
		if nodePorts.Has(key) {
			allErrs = append(allErrs, field.Duplicate(portsPath.Index(i).Child("nodePort"), port.NodePort))
		}
		nodePorts.Insert(key)
	}
	seen := sets.New[servicePortKey]()
	for i, port := range ports {
		key := servicePortKey{Protocol: port.Protocol, Port: port.Port}
		if seen.Has(key) {
			allErrs = append(allErrs, field.Duplicate(portsPath.Index(i), key))
		}
		seen.Insert(key)
	}
	return allErrs
}

// validateLoadBalancerFields checks the fields that only LoadBalancer
// services may use.
func validateLoadBalancerFields(svc, old *v1.Service) field.ErrorList {
	var allErrs field.ErrorList
	spec := &svc.Spec
	isLB := spec.Type == v1.ServiceTypeLoadBalancer
	const lbOnly = "may only be used when `type` is 'LoadBalancer'"
	if len(spec.LoadBalancerSourceRanges) > 0 {
		rangesPath := specPath.Child("LoadBalancerSourceRanges")
		if !isLB {
			allErrs = append(allErrs, field.Forbidden(rangesPath, lbOnly))
		}
		for i, cidr := range spec.LoadBalancerSourceRanges {
			// Space padding is tolerated, a leftover of the annotation.
			allErrs = append(allErrs, validateLegacyCIDR(rangesPath.Index(i), strings.TrimSpace(cidr), trimmed(old.Spec.LoadBalancerSourceRanges))...)
		}
	} else if value, ok := svc.Annotations[loadBalancerSourceRangesAnnotation]; ok {
		annotationPath := metadataPath.Child("annotations").Key(loadBalancerSourceRangesAnnotation)
		if !isLB {
			allErrs = append(allErrs, field.Forbidden(annotationPath, lbOnly))
		}
		if value = strings.TrimSpace(value); value != "" {
			oldCIDRs := trimmed(strings.Split(old.Annotations[loadBalancerSourceRangesAnnotation], ","))
			for _, cidr := range strings.Split(value, ",") {
				allErrs = append(allErrs, validateLegacyCIDR(annotationPath, strings.TrimSpace(cidr), oldCIDRs)...)
			}
		}
	}
	if spec.AllocateLoadBalancerNodePorts != nil && !isLB {
		allErrs = append(allErrs, field.Forbidden(specPath.Child("allocateLoadBalancerNodePorts"), lbOnly))
	}
	if isLB && spec.AllocateLoadBalancerNodePorts == nil {
		// kube-apiserver reports this one without the spec prefix.
		allErrs = append(allErrs, field.Required(field.NewPath("allocateLoadBalancerNodePorts"), ""))
	}
	if spec.LoadBalancerClass != nil {
		classPath := specPath.Child("loadBalancerClass")
		if isLB {
			allErrs = append(allErrs, validateQualifiedName(*spec.LoadBalancerClass, classPath)...)
		} else {
			allErrs = append(allErrs, field.Forbidden(classPath, lbOnly))
		}
	}
	return allErrs
}

// needsHealthCheck reports whether the service has a node port for load
// balancers to check node health with.
func needsHealthCheck(svc *v1.Service) bool {
	return svc.Spec.Type == v1.ServiceTypeLoadBalancer && svc.Spec.ExternalTrafficPolicy == v1.ServiceExternalTrafficPolicyLocal
}

func validateExternalTrafficPolicy(svc *v1.Service) field.ErrorList {
	var allErrs field.ErrorList
	spec := &svc.Spec
	switch {
	case !externallyAccessible(svc):
		if spec.ExternalTrafficPolicy != "" {
			allErrs = append(allErrs, field.Invalid(externalTrafficPolicyPath, spec.ExternalTrafficPolicy, "may only be set for externally-accessible services"))
		}
	case spec.ExternalTrafficPolicy == "":
		allErrs = append(allErrs, field.Required(externalTrafficPolicyPath, ""))
	case !sets.New(externalTrafficPolicies...).Has(spec.ExternalTrafficPolicy):
		allErrs = append(allErrs, field.NotSupported(externalTrafficPolicyPath, spec.ExternalTrafficPolicy, externalTrafficPolicies))
	}
	hcPath := specPath.Child("healthCheckNodePort")
	switch {
	case !needsHealthCheck(svc):
		if spec.HealthCheckNodePort != 0 {
			allErrs = append(allErrs, field.Invalid(hcPath, spec.HealthCheckNodePort, "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'"))
		}
	case spec.HealthCheckNodePort == 0:
		allErrs = append(allErrs, field.Required(hcPath, ""))
	default:
		allErrs = append(allErrs, messagesToErrors(validation.IsValidPortNum(int(spec.HealthCheckNodePort)), spec.HealthCheckNodePort, hcPath)...)
	}
	return allErrs
}

// ValidateServiceUpdate validates an update of a Service. Cluster IPs and
// IP families never change, except that a service may gain or lose its
// secondary family, and except on the way to or from ExternalName.
func ValidateServiceUpdate(newSvc, oldSvc *v1.Service) field.ErrorList {
	allErrs := ValidateObjectMetaUpdate(&newSvc.ObjectMeta, &oldSvc.ObjectMeta, metadataPath)
	allErrs = append(allErrs, validateClusterIPsUpdate(oldSvc, newSvc)...)
	allErrs = append(allErrs, validateIPFamiliesUpdate(oldSvc, newSvc)...)
	if oldSvc.Spec.Type == v1.ServiceTypeLoadBalancer && newSvc.Spec.Type == v1.ServiceTypeLoadBalancer && !equalStringPointers(oldSvc.Spec.LoadBalancerClass, newSvc.Spec.LoadBalancerClass) {
		allErrs = append(allErrs, field.Invalid(specPath.Child("loadBalancerClass"), newSvc.Spec.LoadBalancerClass, "may not change once set"))
	}
	if needsHealthCheck(oldSvc) && needsHealthCheck(newSvc) && newSvc.Spec.HealthCheckNodePort != oldSvc.Spec.HealthCheckNodePort {
		allErrs = append(allErrs, field.Forbidden(specPath.Child("healthCheckNodePort"), "field is immutable"))
	}
	return append(allErrs, validateService(newSvc, oldSvc)...)
}

// trimmed is values without their surrounding spaces.
func trimmed(values []string) []string {
	out := make([]string, len(values))
	for i, v := range values {
		out[i] = strings.TrimSpace(v)
	}
	return out
}

// validateClusterIPsUpdate lets a service add or release its secondary
// cluster IP (releasing requires SingleStack) but never change its primary
// one.
func validateClusterIPsUpdate(oldSvc, newSvc *v1.Service) field.ErrorList {
	if newSvc.Spec.Type == v1.ServiceTypeExternalName || oldSvc.Spec.Type == v1.ServiceTypeExternalName {
		return nil
	}
	if isHeadless(oldSvc) && isHeadless(newSvc) {
		return nil
	}
	var allErrs field.ErrorList
	oldIPs, newIPs := oldSvc.Spec.ClusterIPs, newSvc.Spec.ClusterIPs
	const changed = "may not change once set"
	switch {
	case len(oldIPs) == len(newIPs):
		for i := range oldIPs {
			if oldIPs[i] != newIPs[i] {
				allErrs = append(allErrs, field.Invalid(clusterIPsPath.Index(i), newIPs, changed))
			}
		}
	case len(oldIPs) > len(newIPs):
		if len(newIPs) == 0 {
			allErrs = append(allErrs, field.Invalid(clusterIPsPath.Index(0), newIPs, "primary clusterIP can not be unset"))
		}
		if len(oldIPs) > 0 && len(newIPs) > 0 && newIPs[0] != oldIPs[0] {
			allErrs = append(allErrs, field.Invalid(clusterIPsPath.Index(0), newIPs, changed))
		}
		if len(newIPs) == 1 && !isSingleStack(newSvc.Spec.IPFamilyPolicy) {
			allErrs = append(allErrs, field.Invalid(ipFamilyPolicyPath, newSvc.Spec.IPFamilyPolicy, "must be set to 'SingleStack' when releasing the secondary clusterIP"))
		}
	default:
		if len(oldIPs) > 0 && newIPs[0] != oldIPs[0] {
			allErrs = append(allErrs, field.Invalid(clusterIPsPath.Index(0), newIPs, changed))
		}
	}
	return allErrs
}

// validateIPFamiliesUpdate is validateClusterIPsUpdate for ipFamilies.
// Headless services may change families freely.
func validateIPFamiliesUpdate(oldSvc, newSvc *v1.Service) field.ErrorList {
	if newSvc.Spec.Type == v1.ServiceTypeExternalName || oldSvc.Spec.Type == v1.ServiceTypeExternalName {
		return nil
	}
	if isHeadless(oldSvc) || isHeadless(newSvc) {
		return nil
	}
	var allErrs field.ErrorList
	oldFamilies, newFamilies := oldSvc.Spec.IPFamilies, newSvc.Spec.IPFamilies
	const changed = "may not change once set"
	first := ipFamiliesPath.Index(0)
	switch {
	case len(oldFamilies) == len(newFamilies):
		for i := range oldFamilies {
			if oldFamilies[i] != newFamilies[i] {
				allErrs = append(allErrs, field.Invalid(first, newFamilies, changed))
			}
		}
	case len(oldFamilies) > len(newFamilies):
		if len(newSvc.Spec.ClusterIPs) == 0 {
			allErrs = append(allErrs, field.Invalid(first, newFamilies, "primary ipFamily can not be unset"))
		}
		if len(newFamilies) > 0 && newFamilies[0] != oldFamilies[0] {
			allErrs = append(allErrs, field.Invalid(first, newSvc.Spec.ClusterIPs, changed))
		}
		if len(newFamilies) == 1 && !isSingleStack(newSvc.Spec.IPFamilyPolicy) {
			allErrs = append(allErrs, field.Invalid(ipFamilyPolicyPath, newSvc.Spec.IPFamilyPolicy, "must be set to 'SingleStack' when releasing the secondary ipFamily"))
		}
	default:
		if len(oldFamilies) > 0 && newFamilies[0] != oldFamilies[0] {
			allErrs = append(allErrs, field.Invalid(first, newSvc.Spec.ClusterIPs, changed))
		}
	}
	return allErrs
}

// ValidateServiceStatusUpdate validates an update of a Service's status:
// the addresses of its load balancer.
func ValidateServiceStatusUpdate(newSvc, oldSvc *v1.Service) field.ErrorList {
	allErrs := ValidateObjectMetaUpdate(&newSvc.ObjectMeta, &oldSvc.ObjectMeta, metadataPath)
	ingressPath := statusPath.Child("loadBalancer", "ingress")
	if newSvc.Spec.Type != v1.ServiceTypeLoadBalancer && len(newSvc.Status.LoadBalancer.Ingress) != 0 {
		return append(allErrs, field.Forbidden(ingressPath, "may only be used when `spec.type` is 'LoadBalancer'"))
	}
	var oldIPs []string
	for _, ingress := range oldSvc.Status.LoadBalancer.Ingress {
		oldIPs = append(oldIPs, ingress.IP)
	}
	for i, ingress := range newSvc.Status.LoadBalancer.Ingress {
		idxPath := ingressPath.Index(i)
		if ingress.IP != "" {
			allErrs = append(allErrs, validateLegacyIP(idxPath.Child("ip"), ingress.IP, oldIPs)...)
		}
		switch {
		case ingress.IPMode == nil && ingress.IP != "":
			allErrs = append(allErrs, field.Required(idxPath.Child("ipMode"), "must be specified when `ip` is set"))
		case ingress.IPMode != nil && ingress.IP == "":
			allErrs = append(allErrs, field.Forbidden(idxPath.Child("ipMode"), "may not be specified when `ip` is not set"))
		case ingress.IPMode != nil && !sets.New(loadBalancerIPModes...).Has(*ingress.IPMode):
			allErrs = append(allErrs, field.NotSupported(idxPath.Child("ipMode"), ingress.IPMode, loadBalancerIPModes))
		}
		if ingress.Hostname != "" {
			allErrs = append(allErrs, validateDNS1123Subdomain(ingress.Hostname, idxPath.Child("hostname"))...)
			if net.ParseIP(ingress.Hostname) != nil {
				allErrs = append(allErrs, field.Invalid(idxPath.Child("hostname"), ingress.Hostname, "must be a DNS name, not an IP address"))
			}
		}
	}
	return allErrs
}

// isHeadless reports whether the service has no cluster IP on purpose.
func isHeadless(svc *v1.Service) bool {
	return len(svc.Spec.ClusterIPs) == 1 && svc.Spec.ClusterIPs[0] == v1.ClusterIPNone
}

// isDualStack reports whether the (valid) IPs include both families.
func isDualStack(ips []string) bool {
	v4, v6 := false, false
	for _, ip := range ips {
		if isIPv6(ip) {
			v6 = true
		} else {
			v4 = true
		}
	}
	return v4 && v6
}

func isSingleStack(policy *v1.IPFamilyPolicy) bool {
	return policy != nil && *policy == v1.IPFamilyPolicySingleStack
}

func equalStringPointers(a, b *string) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// validateNonSpecialIP refuses addresses that make no sense as a service
// or endpoint address: unspecified, loopback and link-local ones.
func validateNonSpecialIP(address string, fldPath *field.Path) field.ErrorList {
	ip := netutils.ParseIPSloppy(address)
	if ip == nil {
		return field.ErrorList{field.Invalid(fldPath, address, "must be a valid IP address")}
	}
	var allErrs field.ErrorList
	if ip.IsUnspecified() {
		allErrs = append(allErrs, field.Invalid(fldPath, address, fmt.Sprintf("may not be unspecified (%v)", address)))
	}
	if ip.IsLoopback() {
		allErrs = append(allErrs, field.Invalid(fldPath, address, "may not be in the loopback range (127.0.0.0/8, ::1/128)"))
	}
	if ip.IsLinkLocalUnicast() {
		allErrs = append(allErrs, field.Invalid(fldPath, address, "may not be in the link-local range (169.254.0.0/16, fe80::/10)"))
	}
	if ip.IsLinkLocalMulticast() {
		allErrs = append(allErrs, field.Invalid(fldPath, address, "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)"))
	}
	return allErrs
}

// ValidateEndpoints validates Endpoints on create.
func ValidateEndpoints(ep *v1.Endpoints) field.ErrorList {
	return validateEndpoints(ep, nil)
}

// validateEndpoints validates Endpoints; oldIPs are the addresses of the
// stored ones on update, kept even in forms no longer allowed.
func validateEndpoints(ep *v1.Endpoints, oldIPs []string) field.ErrorList {
	allErrs := ValidateObjectMeta(&ep.ObjectMeta, true, apivalidation.NameIsDNSSubdomain, metadataPath)
	subsetsPath := field.NewPath("subsets")
	for i := range ep.Subsets {
		allErrs = append(allErrs, validateEndpointSubset(&ep.Subsets[i], oldIPs, subsetsPath.Index(i))...)
	}
	return allErrs
}

// ValidateEndpointsUpdate validates an update of Endpoints. Addresses may
// move to another node: node IPs and pod CIDRs get reused.
func ValidateEndpointsUpdate(newEP, oldEP *v1.Endpoints) field.ErrorList {
	allErrs := ValidateObjectMetaUpdate(&newEP.ObjectMeta, &oldEP.ObjectMeta, metadataPath)
	var oldIPs []string
	for _, ss := range oldEP.Subsets {
		for _, a := range append(slices.Clone(ss.Addresses), ss.NotReadyAddresses...) {
			oldIPs = append(oldIPs, a.IP)
		}
	}
	return append(allErrs, validateEndpoints(newEP, oldIPs)...)
}

// validateEndpointSubset requires addresses (ports are optional, for
// headless services) and validates them.
func validateEndpointSubset(ss *v1.EndpointSubset, oldIPs []string, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if len(ss.Addresses) == 0 && len(ss.NotReadyAddresses) == 0 {
		allErrs = append(allErrs, field.Required(fldPath, "must specify `addresses` or `notReadyAddresses`"))
	}
	for i := range ss.Addresses {
		allErrs = append(allErrs, validateEndpointAddress(&ss.Addresses[i], oldIPs, fldPath.Child("addresses").Index(i))...)
	}
	for i := range ss.NotReadyAddresses {
		allErrs = append(allErrs, validateEndpointAddress(&ss.NotReadyAddresses[i], oldIPs, fldPath.Child("notReadyAddresses").Index(i))...)
	}
	for i := range ss.Ports {
		allErrs = append(allErrs, validateEndpointPort(&ss.Ports[i], len(ss.Ports) > 1, fldPath.Child("ports").Index(i))...)
	}
	return allErrs
}

func validateEndpointAddress(addr *v1.EndpointAddress, oldIPs []string, fldPath *field.Path) field.ErrorList {
	allErrs := validateLegacyIP(fldPath.Child("ip"), addr.IP, oldIPs)
	if addr.Hostname != "" {
		allErrs = append(allErrs, validateDNS1123Label(addr.Hostname, fldPath.Child("hostname"))...)
	}
	if addr.NodeName != nil {
		allErrs = append(allErrs, validateName(apivalidation.NameIsDNSSubdomain, *addr.NodeName, fldPath.Child("nodeName"))...)
	}
	return append(allErrs, validateNonSpecialIP(addr.IP, fldPath.Child("ip"))...)
}

func validateEndpointPort(port *v1.EndpointPort, requireName bool, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if requireName && port.Name == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("name"), ""))
	} else if port.Name != "" {
		allErrs = append(allErrs, validateDNS1123Label(port.Name, fldPath.Child("name"))...)
	}
	allErrs = append(allErrs, messagesToErrors(validation.IsValidPortNum(int(port.Port)), port.Port, fldPath.Child("port"))...)
	allErrs = append(allErrs, validateProtocol(port.Protocol, fldPath.Child("protocol"))...)
	if port.AppProtocol != nil {
		allErrs = append(allErrs, validateQualifiedName(*port.AppProtocol, fldPath.Child("appProtocol"))...)
	}
	return allErrs
}
