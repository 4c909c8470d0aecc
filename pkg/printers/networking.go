package printers

import (
	"slices"
	"strconv"
	"strings"
	"time"

	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The printers of networking.k8s.io/v1 and discovery.k8s.io/v1.

var ingressColumns = []metav1.TableColumnDefinition{
	nameColumn,
	column("Class", "string", "The name of the IngressClass resource that should be used for additional configuration"),
	column("Hosts", "string", "Hosts that incoming requests are matched against before the ingress rule"),
	column("Address", "string", "Address is a list containing ingress points for the load-balancer"),
	column("Ports", "string", "Ports of TLS configurations that open"),
	ageColumn,
}

func printIngress(ing *networkingv1.Ingress, now time.Time) []any {
	class := "<none>"
	if ing.Spec.IngressClassName != nil {
		class = *ing.Spec.IngressClassName
	}
	var addresses []string
	for _, in := range ing.Status.LoadBalancer.Ingress {
		switch {
		case in.IP != "":
			addresses = append(addresses, in.IP)
		case in.Hostname != "":
			addresses = append(addresses, in.Hostname)
		}
	}
	slices.Sort(addresses)
	ports := "80"
	if len(ing.Spec.TLS) > 0 {
		ports = "80, 443"
	}
	return []any{ing.Name, class, ingressHosts(ing.Spec.Rules), strings.Join(slices.Compact(addresses), ","), ports, since(ing.CreationTimestamp, now)}
}

// ingressHosts lists the hosts the rules name, "*" when none does. Once
// three are listed, any further rule, named or not, is counted.
func ingressHosts(rules []networkingv1.IngressRule) string {
	var hosts []string
	for _, r := range rules {
		if len(hosts) == maxListed {
			return strings.Join(hosts, ",") + " + " + strconv.Itoa(len(rules)-maxListed) + " more..."
		}
		if r.Host != "" {
			hosts = append(hosts, r.Host)
		}
	}
	if len(hosts) == 0 {
		return "*"
	}
	return strings.Join(hosts, ",")
}

var ingressClassColumns = []metav1.TableColumnDefinition{
	nameColumn,
	column("Controller", "string", "Controller that is responsible for handling this class"),
	column("Parameters", "string", "A reference to a resource with additional parameters"),
	ageColumn,
}

func printIngressClass(ic *networkingv1.IngressClass, now time.Time) []any {
	parameters := "<none>"
	if p := ic.Spec.Parameters; p != nil {
		parameters = p.Kind
		if p.APIGroup != nil {
			parameters += "." + *p.APIGroup
		}
		parameters += "/" + p.Name
	}
	return []any{ic.Name, ic.Spec.Controller, parameters, since(ic.CreationTimestamp, now)}
}

var networkPolicyColumns = []metav1.TableColumnDefinition{
	nameColumn,
	column("Pod-Selector", "string", networkingv1.NetworkPolicySpec{}.SwaggerDoc()["podSelector"]),
	ageColumn,
}

func printNetworkPolicy(np *networkingv1.NetworkPolicy, now time.Time) []any {
	return []any{np.Name, metav1.FormatLabelSelector(&np.Spec.PodSelector), since(np.CreationTimestamp, now)}
}

var endpointSliceColumns = []metav1.TableColumnDefinition{
	nameColumn,
	column("AddressType", "string", discoveryv1.EndpointSlice{}.SwaggerDoc()["addressType"]),
	column("Ports", "string", discoveryv1.EndpointSlice{}.SwaggerDoc()["ports"]),
	column("Endpoints", "string", discoveryv1.EndpointSlice{}.SwaggerDoc()["endpoints"]),
	ageColumn,
}

func printEndpointSlice(es *discoveryv1.EndpointSlice, now time.Time) []any {
	// A port without a number means all ports.
	var ports []string
	for _, p := range es.Ports[:min(len(es.Ports), maxListed)] {
		switch {
		case p.Port != nil:
			ports = append(ports, strconv.Itoa(int(*p.Port)))
		case p.Name != nil:
			ports = append(ports, *p.Name)
		default:
			ports = append(ports, "*")
		}
	}
	var addresses []string
	total := 0
	for _, ep := range es.Endpoints {
		for _, a := range ep.Addresses {
			total++
			if len(addresses) < maxListed {
				addresses = append(addresses, a)
			}
		}
	}
	return []any{
		es.Name,
		string(es.AddressType),
		orUnset(listWithMore(ports, len(es.Ports))),
		orUnset(listWithMore(addresses, total)),
		since(es.CreationTimestamp, now),
	}
}

// orUnset returns s, or "<unset>" when s is empty.
func orUnset(s string) string {
	if s == "" {
		return "<unset>"
	}
	return s
}

var serviceCIDRColumns = []metav1.TableColumnDefinition{
	nameColumn,
	column("CIDRs", "string", networkingv1.ServiceCIDRSpec{}.SwaggerDoc()["cidrs"]),
	ageColumn,
}

func printServiceCIDR(sc *networkingv1.ServiceCIDR, now time.Time) []any {
	return []any{sc.Name, strings.Join(sc.Spec.CIDRs, ","), since(sc.CreationTimestamp, now)}
}

var ipAddressColumns = []metav1.TableColumnDefinition{
	nameColumn,
	column("ParentRef", "string", networkingv1.IPAddressSpec{}.SwaggerDoc()["parentRef"]),
}

// printIPAddress names the parent as resource.group[/namespace]/name,
// lower-cased. As in kube-apiserver, the row has an age cell that no
// column announces.
func printIPAddress(ip *networkingv1.IPAddress, now time.Time) []any {
	parent := "<none>"
	if ref := ip.Spec.ParentRef; ref != nil {
		parent = strings.ToLower(schema.GroupResource{Group: ref.Group, Resource: ref.Resource}.String())
		if ref.Namespace != "" {
			parent += "/" + ref.Namespace
		}
		parent += "/" + ref.Name
	}
	return []any{ip.Name, parent, since(ip.CreationTimestamp, now)}
}
