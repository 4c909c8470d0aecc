package discovery

import (
	"fmt"
	"net"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metavalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/apis/core"
)

// Bounds of an EndpointSlice, as kube-apiserver's.
const (
	maxEndpoints      = 1000
	maxAddresses      = 100
	maxPorts          = 20000
	maxTopologyLabels = 16
	maxZoneHints      = 8
)

var (
	addressTypes    = []string{string(discoveryv1.AddressTypeFQDN), string(discoveryv1.AddressTypeIPv4), string(discoveryv1.AddressTypeIPv6)}
	portProtocols   = []string{string(corev1.ProtocolSCTP), string(corev1.ProtocolTCP), string(corev1.ProtocolUDP)}
	addressTypePath = field.NewPath("addressType")
)

// ValidateEndpointSlice validates an EndpointSlice on create. As in
// kube-apiserver 1.37, the address type and the number of addresses of
// each endpoint are checked by the declarative rules of the type, whose
// errors come after the others.
func ValidateEndpointSlice(es *discoveryv1.EndpointSlice) field.ErrorList {
	allErrs := validateEndpointSlice(es)
	allErrs = append(allErrs, validateAddressType(es.AddressType)...)
	return append(allErrs, validateAddressCounts(es.Endpoints, field.NewPath("endpoints"))...)
}

func validateEndpointSlice(es *discoveryv1.EndpointSlice) field.ErrorList {
	allErrs := core.ValidateObjectMeta(&es.ObjectMeta, true, apivalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	allErrs = append(allErrs, validatePorts(es.Ports, field.NewPath("ports"))...)
	return append(allErrs, validateEndpoints(es.Endpoints, es.AddressType, field.NewPath("endpoints"))...)
}

// ValidateEndpointSliceUpdate validates an update: the whole slice again,
// and an address type that does not change.
func ValidateEndpointSliceUpdate(newES, oldES *discoveryv1.EndpointSlice) field.ErrorList {
	allErrs := core.ValidateObjectMetaUpdate(&newES.ObjectMeta, &oldES.ObjectMeta, field.NewPath("metadata"))
	allErrs = append(allErrs, validateEndpointSlice(newES)...)
	allErrs = append(allErrs, validateAddressType(newES.AddressType)...)
	if newES.AddressType != oldES.AddressType {
		// The declarative rule of 1.37 does not show the new value.
		allErrs = append(allErrs, field.Invalid(addressTypePath, nil, "field is immutable"))
	}
	return append(allErrs, validateAddressCounts(newES.Endpoints, field.NewPath("endpoints"))...)
}

// validateAddressCounts requires one to maxAddresses addresses per
// endpoint.
func validateAddressCounts(endpoints []discoveryv1.Endpoint, fldPath *field.Path) field.ErrorList {
	if len(endpoints) > maxEndpoints {
		return nil
	}
	var allErrs field.ErrorList
	for i := range endpoints {
		addrPath := fldPath.Index(i).Child("addresses")
		switch n := len(endpoints[i].Addresses); {
		case n == 0:
			allErrs = append(allErrs, field.Required(addrPath, ""))
		case n > maxAddresses:
			allErrs = append(allErrs, field.TooMany(addrPath, n, maxAddresses))
		}
	}
	return allErrs
}

func validateAddressType(t discoveryv1.AddressType) field.ErrorList {
	switch {
	case t == "":
		return field.ErrorList{field.Required(addressTypePath, "")}
	case !sets.New(addressTypes...).Has(string(t)):
		return field.ErrorList{field.NotSupported(addressTypePath, t, addressTypes)}
	}
	return nil
}

func validateEndpoints(endpoints []discoveryv1.Endpoint, addressType discoveryv1.AddressType, fldPath *field.Path) field.ErrorList {
	if len(endpoints) > maxEndpoints {
		return field.ErrorList{field.TooMany(fldPath, len(endpoints), maxEndpoints)}
	}
	var allErrs field.ErrorList
	for i := range endpoints {
		ep, idxPath := &endpoints[i], fldPath.Index(i)
		addrPath := idxPath.Child("addresses")
		for j, addr := range ep.Addresses {
			// Addresses of an unknown type are not checked: the type
			// itself is the error.
			switch addressType {
			case discoveryv1.AddressTypeIPv4, discoveryv1.AddressTypeIPv6:
				allErrs = append(allErrs, validateIP(addr, addressType, addrPath, j)...)
			case discoveryv1.AddressTypeFQDN:
				allErrs = append(allErrs, validation.IsFullyQualifiedDomainName(addrPath.Index(j), addr)...)
			}
		}
		if ep.NodeName != nil {
			allErrs = append(allErrs, core.ValidateNodeName(*ep.NodeName, idxPath.Child("nodeName"))...)
		}
		topoPath := idxPath.Child("deprecatedTopology")
		if len(ep.DeprecatedTopology) > maxTopologyLabels {
			allErrs = append(allErrs, field.TooMany(topoPath, len(ep.DeprecatedTopology), maxTopologyLabels))
		}
		allErrs = append(allErrs, metavalidation.ValidateLabels(ep.DeprecatedTopology, topoPath)...)
		// The zone of v1beta1's topology became a field of v1; it cannot
		// come back through v1.
		if _, ok := ep.DeprecatedTopology[corev1.LabelTopologyZone]; ok {
			allErrs = append(allErrs, field.InternalError(topoPath.Key(corev1.LabelTopologyZone), fmt.Errorf("reserved key was not removed in conversion")))
		}
		if ep.Hostname != nil {
			allErrs = append(allErrs, core.ValidateDNS1123Label(*ep.Hostname, idxPath.Child("hostname"))...)
		}
		if ep.Hints != nil {
			allErrs = append(allErrs, validateHints(ep.Hints, idxPath.Child("hints"))...)
		}
	}
	return allErrs
}

// validateIP checks address j of an endpoint: a valid IP in canonical
// form, of the slice's family, and not one an endpoint may not have.
// kube-apiserver reports the wrong family at the list of addresses, not
// at the address.
func validateIP(addr string, addressType discoveryv1.AddressType, addrPath *field.Path, j int) field.ErrorList {
	p := addrPath.Index(j)
	if errs := validation.IsValidIP(p, addr); len(errs) > 0 {
		return errs
	}
	var allErrs field.ErrorList
	isIPv4 := net.ParseIP(addr).To4() != nil
	switch {
	case addressType == discoveryv1.AddressTypeIPv4 && !isIPv4:
		allErrs = append(allErrs, field.Invalid(addrPath, addr, "must be an IPv4 address"))
	case addressType == discoveryv1.AddressTypeIPv6 && isIPv4:
		allErrs = append(allErrs, field.Invalid(addrPath, addr, "must be an IPv6 address"))
	}
	return append(allErrs, core.ValidateEndpointIP(addr, p)...)
}

func validateHints(hints *discoveryv1.EndpointHints, fldPath *field.Path) field.ErrorList {
	zonesPath := fldPath.Child("forZones")
	if len(hints.ForZones) > maxZoneHints {
		return field.ErrorList{field.TooMany(zonesPath, len(hints.ForZones), maxZoneHints)}
	}
	var allErrs field.ErrorList
	seen := sets.New[string]()
	for i, zone := range hints.ForZones {
		p := zonesPath.Index(i).Child("name")
		if seen.Has(zone.Name) {
			allErrs = append(allErrs, field.Duplicate(p, zone.Name))
		}
		seen.Insert(zone.Name)
		for _, msg := range validation.IsValidLabelValue(zone.Name) {
			allErrs = append(allErrs, field.Invalid(p, zone.Name, msg))
		}
	}
	return allErrs
}

func validatePorts(ports []discoveryv1.EndpointPort, fldPath *field.Path) field.ErrorList {
	if len(ports) > maxPorts {
		return field.ErrorList{field.TooMany(fldPath, len(ports), maxPorts)}
	}
	var allErrs field.ErrorList
	names := sets.New[string]()
	for i := range ports {
		port, idxPath := &ports[i], fldPath.Index(i)
		// Defaulting gives every port a name; a nil one is the empty one.
		name := ""
		if port.Name != nil {
			name = *port.Name
		}
		if name != "" {
			allErrs = append(allErrs, core.ValidateDNS1123Label(name, idxPath.Child("name"))...)
		}
		if names.Has(name) {
			allErrs = append(allErrs, field.Duplicate(idxPath.Child("name"), port.Name))
		}
		names.Insert(name)
		switch {
		case port.Protocol == nil:
			allErrs = append(allErrs, field.Required(idxPath.Child("protocol"), ""))
		case !sets.New(portProtocols...).Has(string(*port.Protocol)):
			allErrs = append(allErrs, field.NotSupported(idxPath.Child("protocol"), *port.Protocol, portProtocols))
		}
		if port.AppProtocol != nil {
			allErrs = append(allErrs, core.ValidateQualifiedName(*port.AppProtocol, idxPath.Child("appProtocol"))...)
		}
	}
	return allErrs
}

// WarningsForEndpointSlice are the warnings of a slice kube-apiserver
// gives on create (deprecatedAddressType too) and update: addresses written
// in a form that is accepted but not canonical. Slices written by the
// endpointslice controllers, named by the managed-by label, get none.
func WarningsForEndpointSlice(es *discoveryv1.EndpointSlice, onCreate bool) []string {
	var warnings []string
	if onCreate && es.AddressType == discoveryv1.AddressTypeFQDN {
		warnings = append(warnings, "spec.addressType: FQDN endpoints are deprecated")
	}
	switch es.Labels[discoveryv1.LabelManagedBy] {
	case "endpointslice-controller.k8s.io", "endpointslicemirroring-controller.k8s.io":
		return warnings
	}
	if es.AddressType != discoveryv1.AddressTypeIPv4 && es.AddressType != discoveryv1.AddressTypeIPv6 {
		return warnings
	}
	for i := range es.Endpoints {
		for j, addr := range es.Endpoints[i].Addresses {
			p := field.NewPath("endpoints").Index(i).Child("addresses").Index(j)
			warnings = append(warnings, validation.GetWarningsForIP(p, addr)...)
		}
	}
	return warnings
}
