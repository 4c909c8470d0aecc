package networking

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/validate/content"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	netutils "k8s.io/utils/net"

	"github.com/kapi-dev/kapi/pkg/apis/core"
)

var (
	metadataPath = field.NewPath("metadata")
	specPath     = field.NewPath("spec")
)

// Ingress

// ingressClassAnnotation is the annotation that named an Ingress's class
// before spec.ingressClassName existed.
const ingressClassAnnotation = "kubernetes.io/ingress.class"

// pathTypes are the supported path types, sorted as kube-apiserver lists
// them in its error.
var pathTypes = []string{string(networkingv1.PathTypeExact), string(networkingv1.PathTypeImplementationSpecific), string(networkingv1.PathTypePrefix)}

// Sequences and suffixes an Exact or Prefix path may not have: they are
// ambiguous once the path is normalised.
var (
	badPathSequences = []string{"//", "/./", "/../", "%2f", "%2F"}
	badPathSuffixes  = []string{"/..", "/."}
)

// ingressOptions relax the checks an update makes of values that older
// servers accepted and the stored object already has.
type ingressOptions struct {
	allowInvalidSecretName       bool
	allowInvalidWildcardHostRule bool
}

// ValidateIngress validates an Ingress on create. A class named both by
// annotation and by field must be the same class.
func ValidateIngress(ing *networkingv1.Ingress) field.ErrorList {
	allErrs := validateIngress(ing, ingressOptions{})
	if class, ok := ing.Annotations[ingressClassAnnotation]; ok && ing.Spec.IngressClassName != nil && class != *ing.Spec.IngressClassName {
		allErrs = append(allErrs, field.Invalid(field.NewPath("annotations").Child(ingressClassAnnotation), class, "must match `ingressClassName` when both are specified"))
	}
	return allErrs
}

// ValidateIngressUpdate validates an update of an Ingress. TLS secret
// names and the rules of wildcard hosts are checked only if the stored
// object's already pass.
func ValidateIngressUpdate(ing, old *networkingv1.Ingress) field.ErrorList {
	allErrs := core.ValidateObjectMetaUpdate(&ing.ObjectMeta, &old.ObjectMeta, metadataPath)
	opts := ingressOptions{allowInvalidSecretName: hasInvalidSecretName(old), allowInvalidWildcardHostRule: hasInvalidWildcardHostRule(old)}
	return append(allErrs, validateIngress(ing, opts)...)
}

// ValidateIngressStatusUpdate validates a write of an Ingress's status:
// the addresses of its load balancer.
func ValidateIngressStatusUpdate(ing, old *networkingv1.Ingress) field.ErrorList {
	allErrs := core.ValidateObjectMetaUpdate(&ing.ObjectMeta, &old.ObjectMeta, metadataPath)
	var oldIPs []string
	for _, in := range old.Status.LoadBalancer.Ingress {
		if in.IP != "" {
			oldIPs = append(oldIPs, in.IP)
		}
	}
	lbPath := field.NewPath("status", "loadBalancer", "ingress")
	for i, in := range ing.Status.LoadBalancer.Ingress {
		p := lbPath.Index(i)
		if in.IP != "" {
			allErrs = append(allErrs, validation.IsValidIPForLegacyField(p.Child("ip"), in.IP, true, oldIPs)...)
		}
		if in.Hostname != "" {
			for _, msg := range validation.IsDNS1123Subdomain(in.Hostname) {
				allErrs = append(allErrs, field.Invalid(p.Child("hostname"), in.Hostname, msg))
			}
			if isIP(in.Hostname) {
				allErrs = append(allErrs, field.Invalid(p.Child("hostname"), in.Hostname, "must be a DNS name, not an IP address"))
			}
		}
	}
	return allErrs
}

func validateIngress(ing *networkingv1.Ingress, opts ingressOptions) field.ErrorList {
	allErrs := core.ValidateObjectMeta(&ing.ObjectMeta, true, apivalidation.NameIsDNSSubdomain, metadataPath)
	return append(allErrs, validateIngressSpec(&ing.Spec, specPath, opts)...)
}

func validateIngressSpec(spec *networkingv1.IngressSpec, fldPath *field.Path, opts ingressOptions) field.ErrorList {
	var allErrs field.ErrorList
	if len(spec.Rules) == 0 && spec.DefaultBackend == nil {
		allErrs = append(allErrs, field.Invalid(fldPath, spec.Rules, "either `defaultBackend` or `rules` must be specified"))
	}
	if spec.DefaultBackend != nil {
		allErrs = append(allErrs, validateIngressBackend(spec.DefaultBackend, fldPath.Child("defaultBackend"))...)
	}
	for i, rule := range spec.Rules {
		allErrs = append(allErrs, validateIngressRule(&rule, fldPath.Child("rules").Index(i), opts)...)
	}
	for i, tls := range spec.TLS {
		tlsPath := fldPath.Child("tls").Index(i)
		for j, host := range tls.Hosts {
			allErrs = append(allErrs, validateHost(host, tlsPath.Child("hosts").Index(j))...)
		}
		if !opts.allowInvalidSecretName && tls.SecretName != "" {
			for _, msg := range apivalidation.NameIsDNSSubdomain(tls.SecretName, false) {
				allErrs = append(allErrs, field.Invalid(tlsPath.Child("secretName"), tls.SecretName, msg))
			}
		}
	}
	if spec.IngressClassName != nil {
		for _, msg := range apivalidation.NameIsDNSSubdomain(*spec.IngressClassName, false) {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("ingressClassName"), *spec.IngressClassName, msg))
		}
	}
	return allErrs
}

// validateHost checks a host name, which may start with a wildcard label.
func validateHost(host string, fldPath *field.Path) field.ErrorList {
	check := validation.IsDNS1123Subdomain
	if strings.Contains(host, "*") {
		check = validation.IsWildcardDNS1123Subdomain
	}
	var allErrs field.ErrorList
	for _, msg := range check(host) {
		allErrs = append(allErrs, field.Invalid(fldPath, host, msg))
	}
	return allErrs
}

func validateIngressRule(rule *networkingv1.IngressRule, fldPath *field.Path, opts ingressOptions) field.ErrorList {
	var allErrs field.ErrorList
	wildcard := false
	if rule.Host != "" {
		hostPath := fldPath.Child("host")
		if isIP(rule.Host) {
			allErrs = append(allErrs, field.Invalid(hostPath, rule.Host, "must be a DNS name, not an IP address"))
		}
		wildcard = strings.Contains(rule.Host, "*")
		allErrs = append(allErrs, validateHost(rule.Host, hostPath)...)
	}
	if !wildcard || !opts.allowInvalidWildcardHostRule {
		allErrs = append(allErrs, validateIngressRuleValue(&rule.IngressRuleValue, fldPath)...)
	}
	return allErrs
}

func validateIngressRuleValue(value *networkingv1.IngressRuleValue, fldPath *field.Path) field.ErrorList {
	if value.HTTP == nil {
		return nil
	}
	var allErrs field.ErrorList
	httpPath := fldPath.Child("http")
	if len(value.HTTP.Paths) == 0 {
		allErrs = append(allErrs, field.Required(httpPath.Child("paths"), ""))
	}
	for i, p := range value.HTTP.Paths {
		allErrs = append(allErrs, validateHTTPIngressPath(&p, httpPath.Child("paths").Index(i))...)
	}
	return allErrs
}

func validateHTTPIngressPath(p *networkingv1.HTTPIngressPath, fldPath *field.Path) field.ErrorList {
	if p.PathType == nil {
		return field.ErrorList{field.Required(fldPath.Child("pathType"), "pathType must be specified")}
	}
	var allErrs field.ErrorList
	pathPath := fldPath.Child("path")
	switch *p.PathType {
	case networkingv1.PathTypeExact, networkingv1.PathTypePrefix:
		if !strings.HasPrefix(p.Path, "/") {
			allErrs = append(allErrs, field.Invalid(pathPath, p.Path, "must be an absolute path"))
		}
		for _, seq := range badPathSequences {
			if strings.Contains(p.Path, seq) {
				allErrs = append(allErrs, field.Invalid(pathPath, p.Path, fmt.Sprintf("must not contain '%s'", seq)))
			}
		}
		for _, suffix := range badPathSuffixes {
			if strings.HasSuffix(p.Path, suffix) {
				allErrs = append(allErrs, field.Invalid(pathPath, p.Path, fmt.Sprintf("cannot end with '%s'", suffix)))
			}
		}
	case networkingv1.PathTypeImplementationSpecific:
		if p.Path != "" && !strings.HasPrefix(p.Path, "/") {
			allErrs = append(allErrs, field.Invalid(pathPath, p.Path, "must be an absolute path"))
		}
	default:
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("pathType"), *p.PathType, pathTypes))
	}
	return append(allErrs, validateIngressBackend(&p.Backend, fldPath.Child("backend"))...)
}

// validateIngressBackend checks that a backend is a service or a resource,
// not both. Service names are DNS labels (kube-apiserver 1.37 relaxes them
// from RFC 1035 labels).
func validateIngressBackend(b *networkingv1.IngressBackend, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	switch {
	case b.Resource != nil && b.Service != nil:
		return field.ErrorList{field.Invalid(fldPath, "", "cannot set both resource and service backends")}
	case b.Resource != nil:
		return validateTypedLocalObjectReference(b.Resource, fldPath.Child("resource"))
	case b.Service != nil:
		namePath := fldPath.Child("service", "name")
		if b.Service.Name == "" {
			allErrs = append(allErrs, field.Required(namePath, ""))
		} else {
			for _, msg := range apivalidation.NameIsDNSLabel(b.Service.Name, false) {
				allErrs = append(allErrs, field.Invalid(namePath, b.Service.Name, msg))
			}
		}
		port := b.Service.Port
		switch {
		case port.Name != "" && port.Number != 0:
			allErrs = append(allErrs, field.Invalid(fldPath, "", "cannot set both port name & port number"))
		case port.Name != "":
			for _, msg := range validation.IsValidPortName(port.Name) {
				allErrs = append(allErrs, field.Invalid(fldPath.Child("service", "port", "name"), port.Name, msg))
			}
		case port.Number != 0:
			for _, msg := range validation.IsValidPortNum(int(port.Number)) {
				allErrs = append(allErrs, field.Invalid(fldPath.Child("service", "port", "number"), port.Number, msg))
			}
		default:
			allErrs = append(allErrs, field.Required(fldPath, "port name or number is required"))
		}
		return allErrs
	}
	return field.ErrorList{field.Invalid(fldPath, "", "resource or service backend is required")}
}

func validateTypedLocalObjectReference(ref *corev1.TypedLocalObjectReference, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if ref.APIGroup != nil {
		for _, msg := range validation.IsDNS1123Subdomain(*ref.APIGroup) {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("apiGroup"), *ref.APIGroup, msg))
		}
	}
	allErrs = append(allErrs, validatePathSegment(ref.Kind, fldPath.Child("kind"))...)
	return append(allErrs, validatePathSegment(ref.Name, fldPath.Child("name"))...)
}

// validatePathSegment requires a name that can be a segment of a URL path.
func validatePathSegment(name string, fldPath *field.Path) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(fldPath, "")}
	}
	return optionalPathSegment(name, fldPath)
}

func optionalPathSegment(name string, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for _, msg := range content.IsPathSegmentName(name) {
		allErrs = append(allErrs, field.Invalid(fldPath, name, msg))
	}
	return allErrs
}

// hasInvalidSecretName reports whether a stored Ingress names a TLS
// secret that is not a valid Secret name.
func hasInvalidSecretName(ing *networkingv1.Ingress) bool {
	for _, tls := range ing.Spec.TLS {
		if tls.SecretName != "" && len(apivalidation.NameIsDNSSubdomain(tls.SecretName, false)) > 0 {
			return true
		}
	}
	return false
}

// hasInvalidWildcardHostRule reports whether a stored Ingress has a rule
// for a wildcard host whose paths are invalid.
func hasInvalidWildcardHostRule(ing *networkingv1.Ingress) bool {
	for _, rule := range ing.Spec.Rules {
		if strings.Contains(rule.Host, "*") && len(validateIngressRuleValue(&rule.IngressRuleValue, nil)) > 0 {
			return true
		}
	}
	return false
}

// isIP reports whether s parses as an IP address the way legacy fields
// take one (leading zeros allowed), as kube-apiserver asks.
func isIP(s string) bool {
	return netutils.ParseIPSloppy(s) != nil
}

// IngressClass

// maxControllerLength is the longest an IngressClass's controller may be.
const maxControllerLength = 250

var parameterScopes = []string{networkingv1.IngressClassParametersReferenceScopeCluster, networkingv1.IngressClassParametersReferenceScopeNamespace}

// ValidateIngressClass validates an IngressClass on create.
func ValidateIngressClass(ic *networkingv1.IngressClass) field.ErrorList {
	allErrs := core.ValidateObjectMeta(&ic.ObjectMeta, false, apivalidation.NameIsDNSSubdomain, metadataPath)
	controllerPath := specPath.Child("controller")
	if ic.Spec.Controller == "" {
		allErrs = append(allErrs, field.Required(controllerPath, ""))
	} else {
		if len(ic.Spec.Controller) > maxControllerLength {
			allErrs = append(allErrs, field.TooLong(controllerPath, "", maxControllerLength))
		}
		allErrs = append(allErrs, validation.IsDomainPrefixedPath(controllerPath, ic.Spec.Controller)...)
	}
	var declared field.ErrorList
	if p := ic.Spec.Parameters; p != nil {
		errs, required := validateParameters(p, specPath.Child("parameters"))
		allErrs, declared = append(allErrs, errs...), required
	}
	return append(allErrs, declared...)
}

// ValidateIngressClassUpdate validates an update of an IngressClass: its
// controller is immutable.
func ValidateIngressClassUpdate(ic, old *networkingv1.IngressClass) field.ErrorList {
	allErrs := core.ValidateObjectMetaUpdate(&ic.ObjectMeta, &old.ObjectMeta, metadataPath)
	allErrs = append(allErrs, apivalidation.ValidateImmutableField(ic.Spec.Controller, old.Spec.Controller, specPath.Child("controller"))...)
	return append(allErrs, ValidateIngressClass(ic)...)
}

// validateParameters checks the parameters of an IngressClass. The
// required kind and name are checked by kube-apiserver's declarative
// validation, whose errors follow all the others: they are returned
// apart, as required.
func validateParameters(p *networkingv1.IngressClassParametersReference, fldPath *field.Path) (allErrs, required field.ErrorList) {
	if p.APIGroup != nil {
		for _, msg := range validation.IsDNS1123Subdomain(*p.APIGroup) {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("apiGroup"), *p.APIGroup, msg))
		}
	}
	for _, f := range []struct{ name, value string }{{"kind", p.Kind}, {"name", p.Name}} {
		if f.value == "" {
			required = append(required, field.Required(fldPath.Child(f.name), ""))
		} else {
			allErrs = append(allErrs, optionalPathSegment(f.value, fldPath.Child(f.name))...)
		}
	}
	if p.Scope == nil {
		return append(allErrs, field.Required(fldPath.Child("scope"), "")), required
	}
	nsPath := fldPath.Child("namespace")
	switch *p.Scope {
	case networkingv1.IngressClassParametersReferenceScopeNamespace:
		if p.Namespace == nil {
			allErrs = append(allErrs, field.Required(nsPath, "`parameters.scope` is set to 'Namespace'"))
		} else {
			for _, msg := range apivalidation.ValidateNamespaceName(*p.Namespace, false) {
				allErrs = append(allErrs, field.Invalid(nsPath, *p.Namespace, msg))
			}
		}
	case networkingv1.IngressClassParametersReferenceScopeCluster:
		if p.Namespace != nil {
			allErrs = append(allErrs, field.Forbidden(nsPath, "`parameters.scope` is set to 'Cluster'"))
		}
	default:
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("scope"), *p.Scope, parameterScopes))
	}
	return allErrs, required
}

// NetworkPolicy

var policyTypes = []string{string(networkingv1.PolicyTypeIngress), string(networkingv1.PolicyTypeEgress)}

var protocols = []string{string(corev1.ProtocolTCP), string(corev1.ProtocolUDP), string(corev1.ProtocolSCTP)}

// networkPolicyOptions relax the checks an update makes of values the
// stored object already has.
type networkPolicyOptions struct {
	// selector: label values in selectors are not checked if the stored
	// pod selector has an invalid one.
	selector metav1validation.LabelSelectorValidationOptions
	// oldCIDRs are the CIDRs of the stored object, accepted as they are.
	oldCIDRs []string
	// required collects the errors of missing CIDRs.
	required field.ErrorList
}

// ValidateNetworkPolicy validates a NetworkPolicy on create.
func ValidateNetworkPolicy(np *networkingv1.NetworkPolicy) field.ErrorList {
	allErrs := core.ValidateObjectMeta(&np.ObjectMeta, true, apivalidation.NameIsDNSSubdomain, metadataPath)
	return append(allErrs, validateNetworkPolicySpec(&np.Spec, networkPolicyOptions{}, specPath)...)
}

// ValidateNetworkPolicyUpdate validates an update of a NetworkPolicy. The
// CIDRs of the stored policy and its selector's label values, if the
// stored pod selector already had invalid ones, are not checked again.
func ValidateNetworkPolicyUpdate(np, old *networkingv1.NetworkPolicy) field.ErrorList {
	opts := networkPolicyOptions{}
	if len(metav1validation.ValidateLabelSelector(&old.Spec.PodSelector, metav1validation.LabelSelectorValidationOptions{}, nil)) > 0 {
		opts.selector.AllowInvalidLabelValueInSelector = true
	}
	for _, rule := range old.Spec.Ingress {
		opts.oldCIDRs = appendCIDRs(opts.oldCIDRs, rule.From)
	}
	for _, rule := range old.Spec.Egress {
		opts.oldCIDRs = appendCIDRs(opts.oldCIDRs, rule.To)
	}
	allErrs := core.ValidateObjectMetaUpdate(&np.ObjectMeta, &old.ObjectMeta, metadataPath)
	return append(allErrs, validateNetworkPolicySpec(&np.Spec, opts, specPath)...)
}

func appendCIDRs(cidrs []string, peers []networkingv1.NetworkPolicyPeer) []string {
	for _, peer := range peers {
		if peer.IPBlock != nil {
			cidrs = append(cidrs, peer.IPBlock.CIDR)
			cidrs = append(cidrs, peer.IPBlock.Except...)
		}
	}
	return cidrs
}

// validateNetworkPolicySpec checks the spec of a NetworkPolicy. An IP
// block's required CIDR is checked by kube-apiserver's declarative
// validation, whose errors follow all the others.
func validateNetworkPolicySpec(spec *networkingv1.NetworkPolicySpec, opts networkPolicyOptions, fldPath *field.Path) field.ErrorList {
	allErrs := validateNetworkPolicyRules(spec, &opts, fldPath)
	return append(allErrs, opts.required...)
}

func validateNetworkPolicyRules(spec *networkingv1.NetworkPolicySpec, opts *networkPolicyOptions, fldPath *field.Path) field.ErrorList {
	allErrs := metav1validation.ValidateLabelSelector(&spec.PodSelector, opts.selector, fldPath.Child("podSelector"))
	for i, rule := range spec.Ingress {
		rulePath := fldPath.Child("ingress").Index(i)
		for j := range rule.Ports {
			allErrs = append(allErrs, validateNetworkPolicyPort(&rule.Ports[j], rulePath.Child("ports").Index(j))...)
		}
		for j := range rule.From {
			allErrs = append(allErrs, validateNetworkPolicyPeer(&rule.From[j], opts, rulePath.Child("from").Index(j))...)
		}
	}
	for i, rule := range spec.Egress {
		rulePath := fldPath.Child("egress").Index(i)
		for j := range rule.Ports {
			allErrs = append(allErrs, validateNetworkPolicyPort(&rule.Ports[j], rulePath.Child("ports").Index(j))...)
		}
		for j := range rule.To {
			allErrs = append(allErrs, validateNetworkPolicyPeer(&rule.To[j], opts, rulePath.Child("to").Index(j))...)
		}
	}
	typesPath := fldPath.Child("policyTypes")
	if len(spec.PolicyTypes) > len(policyTypes) {
		return append(allErrs, field.Invalid(typesPath, &spec.PolicyTypes, "may not specify more than two policyTypes"))
	}
	for i, t := range spec.PolicyTypes {
		if !slices.Contains(policyTypes, string(t)) {
			allErrs = append(allErrs, field.NotSupported(typesPath.Index(i), t, policyTypes))
		}
	}
	return allErrs
}

// validateNetworkPolicyPort checks a port: a number or a name, and a range
// [port, endPort] only of numbers.
func validateNetworkPolicyPort(port *networkingv1.NetworkPolicyPort, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if port.Protocol != nil && !slices.Contains(protocols, string(*port.Protocol)) {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("protocol"), *port.Protocol, protocols))
	}
	endPath := fldPath.Child("endPort")
	switch {
	case port.Port == nil:
		if port.EndPort != nil {
			allErrs = append(allErrs, field.Invalid(endPath, *port.EndPort, "may not be specified when `port` is not specified"))
		}
	case port.Port.Type == intstr.Int:
		for _, msg := range validation.IsValidPortNum(int(port.Port.IntVal)) {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("port"), port.Port.IntVal, msg))
		}
		if port.EndPort != nil {
			if *port.EndPort < port.Port.IntVal {
				allErrs = append(allErrs, field.Invalid(endPath, *port.EndPort, "must be greater than or equal to `port`"))
			}
			for _, msg := range validation.IsValidPortNum(int(*port.EndPort)) {
				allErrs = append(allErrs, field.Invalid(endPath, *port.EndPort, msg))
			}
		}
	default:
		if port.EndPort != nil {
			allErrs = append(allErrs, field.Invalid(endPath, *port.EndPort, "may not be specified when `port` is non-numeric"))
		}
		for _, msg := range validation.IsValidPortName(port.Port.StrVal) {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("port"), port.Port.StrVal, msg))
		}
	}
	return allErrs
}

// validateNetworkPolicyPeer checks a peer: pods, namespaces or both, or an
// IP block alone.
func validateNetworkPolicyPeer(peer *networkingv1.NetworkPolicyPeer, opts *networkPolicyOptions, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	n := 0
	if peer.PodSelector != nil {
		n++
		allErrs = append(allErrs, metav1validation.ValidateLabelSelector(peer.PodSelector, opts.selector, fldPath.Child("podSelector"))...)
	}
	if peer.NamespaceSelector != nil {
		n++
		allErrs = append(allErrs, metav1validation.ValidateLabelSelector(peer.NamespaceSelector, opts.selector, fldPath.Child("namespaceSelector"))...)
	}
	if peer.IPBlock != nil {
		n++
		if peer.IPBlock.CIDR == "" {
			opts.required = append(opts.required, field.Required(fldPath.Child("ipBlock", "cidr"), ""))
		} else {
			allErrs = append(allErrs, validateIPBlock(peer.IPBlock, opts.oldCIDRs, fldPath.Child("ipBlock"))...)
		}
	}
	switch {
	case n == 0:
		allErrs = append(allErrs, field.Required(fldPath, "must specify a peer"))
	case n > 1 && peer.IPBlock != nil:
		allErrs = append(allErrs, field.Forbidden(fldPath, "may not specify both ipBlock and another peer"))
	}
	return allErrs
}

// validateIPBlock checks an IP block with a CIDR: the CIDR, and exceptions that are
// strict subsets of it.
func validateIPBlock(b *networkingv1.IPBlock, oldCIDRs []string, fldPath *field.Path) field.ErrorList {
	cidrPath := fldPath.Child("cidr")
	allErrs := validation.IsValidCIDRForLegacyField(cidrPath, b.CIDR, true, oldCIDRs)
	_, outer, err := netutils.ParseCIDRSloppy(b.CIDR)
	if err != nil {
		return allErrs
	}
	outerBits, _ := outer.Mask.Size()
	for i, except := range b.Except {
		exceptPath := fldPath.Child("except").Index(i)
		allErrs = append(allErrs, validation.IsValidCIDRForLegacyField(exceptPath, except, true, oldCIDRs)...)
		_, inner, err := netutils.ParseCIDRSloppy(except)
		if err != nil {
			continue
		}
		if innerBits, _ := inner.Mask.Size(); !outer.Contains(inner.IP) || outerBits >= innerBits {
			allErrs = append(allErrs, field.Invalid(exceptPath, except, "must be a strict subset of `cidr`"))
		}
	}
	return allErrs
}

// NetworkPolicyWarnings are kube-apiserver's warnings on a NetworkPolicy:
// ipBlock CIDRs in forms that are not canonical.
func NetworkPolicyWarnings(np *networkingv1.NetworkPolicy) []string {
	var warnings []string
	peers := func(path *field.Path, peers []networkingv1.NetworkPolicyPeer) {
		for j, peer := range peers {
			if peer.IPBlock == nil {
				continue
			}
			p := path.Index(j).Child("ipBlock")
			warnings = append(warnings, core.LegacyCIDRWarnings(p.Child("cidr"), peer.IPBlock.CIDR)...)
			for k, except := range peer.IPBlock.Except {
				warnings = append(warnings, core.LegacyCIDRWarnings(p.Child("except").Index(k), except)...)
			}
		}
	}
	for i, rule := range np.Spec.Ingress {
		peers(specPath.Child("ingress").Index(i).Child("from"), rule.From)
	}
	for i, rule := range np.Spec.Egress {
		peers(specPath.Child("egress").Index(i).Child("to"), rule.To)
	}
	return warnings
}

// IngressStatusWarnings are kube-apiserver's warnings on an Ingress's
// status: load-balancer IPs in forms that are not canonical.
func IngressStatusWarnings(ing *networkingv1.Ingress) []string {
	var warnings []string
	for i, in := range ing.Status.LoadBalancer.Ingress {
		if in.IP != "" {
			warnings = append(warnings, core.LegacyIPWarnings(field.NewPath("status", "loadBalancer", "ingress").Index(i), in.IP)...)
		}
	}
	return warnings
}
