package printers

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"
)

func TestIngress(t *testing.T) {
	rules := func(hosts ...string) []networkingv1.IngressRule {
		var r []networkingv1.IngressRule
		for _, h := range hosts {
			r = append(r, networkingv1.IngressRule{Host: h})
		}
		return r
	}
	tests := []struct {
		name string
		spec networkingv1.IngressSpec
		lb   []networkingv1.IngressLoadBalancerIngress
		// Class, Hosts, Address, Ports.
		want []any
	}{{
		name: "no class, no host, no address",
		spec: networkingv1.IngressSpec{Rules: rules("")},
		want: []any{"<none>", "*", "", "80"},
	}, {
		name: "a class, hosts and TLS",
		spec: networkingv1.IngressSpec{IngressClassName: ptr("nginx"), Rules: rules("a.example.com", "", "b.example.com"), TLS: []networkingv1.IngressTLS{{Hosts: []string{"a.example.com"}}}},
		lb:   []networkingv1.IngressLoadBalancerIngress{{Hostname: "lb.example.net"}, {IP: "203.0.113.7"}, {IP: "203.0.113.7"}},
		want: []any{"nginx", "a.example.com,b.example.com", "203.0.113.7,lb.example.net", "80, 443"},
	}, {
		name: "past three hosts, the remaining rules are counted, named or not",
		spec: networkingv1.IngressSpec{Rules: rules("", "a", "b", "c", "", "d")},
		want: []any{"<none>", "a,b,c + 3 more...", "", "80"},
	}, {
		name: "exactly three hosts",
		spec: networkingv1.IngressSpec{Rules: rules("a", "b", "c")},
		want: []any{"<none>", "a,b,c", "", "80"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ing := &networkingv1.Ingress{ObjectMeta: objectMeta("ing"), Spec: tt.spec}
			ing.Status.LoadBalancer.Ingress = tt.lb
			if diff := cmp.Diff(tt.want, rowCells(t, ing)[1:5]); diff != "" {
				t.Errorf("Class, Hosts, Address, Ports (-want +got):\n%s", diff)
			}
		})
	}
}

func TestIngressClassAndNetworkPolicy(t *testing.T) {
	tests := []struct {
		name string
		obj  runtime.Object
		want []any
	}{{
		name: "ingress class without parameters",
		obj:  &networkingv1.IngressClass{ObjectMeta: objectMeta("nginx"), Spec: networkingv1.IngressClassSpec{Controller: "k8s.io/ingress-nginx"}},
		want: []any{"nginx", "k8s.io/ingress-nginx", "<none>", "3h"},
	}, {
		name: "ingress class with core parameters",
		obj: &networkingv1.IngressClass{ObjectMeta: objectMeta("c"), Spec: networkingv1.IngressClassSpec{
			Controller: "example.com/ctl", Parameters: &networkingv1.IngressClassParametersReference{Kind: "ConfigMap", Name: "params"},
		}},
		want: []any{"c", "example.com/ctl", "ConfigMap/params", "3h"},
	}, {
		name: "ingress class with parameters of a group",
		obj: &networkingv1.IngressClass{ObjectMeta: objectMeta("c"), Spec: networkingv1.IngressClassSpec{
			Controller: "example.com/ctl", Parameters: &networkingv1.IngressClassParametersReference{APIGroup: ptr("k8s.example.com"), Kind: "Params", Name: "p"},
		}},
		want: []any{"c", "example.com/ctl", "Params.k8s.example.com/p", "3h"},
	}, {
		name: "network policy for every pod",
		obj:  &networkingv1.NetworkPolicy{ObjectMeta: objectMeta("deny-all")},
		want: []any{"deny-all", "<none>", "3h"},
	}, {
		name: "network policy for some pods",
		obj: &networkingv1.NetworkPolicy{ObjectMeta: objectMeta("db"), Spec: networkingv1.NetworkPolicySpec{
			PodSelector: metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}},
		}},
		want: []any{"db", "app=db", "3h"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, rowCells(t, tt.obj)); diff != "" {
				t.Errorf("cells (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEndpointSlice(t *testing.T) {
	port := func(n int32) discoveryv1.EndpointPort { return discoveryv1.EndpointPort{Port: ptr(n)} }
	endpoint := func(addrs ...string) discoveryv1.Endpoint { return discoveryv1.Endpoint{Addresses: addrs} }
	tests := []struct {
		name      string
		ports     []discoveryv1.EndpointPort
		endpoints []discoveryv1.Endpoint
		// Ports, Endpoints.
		want []any
	}{{
		name: "nothing yet",
		want: []any{"<unset>", "<unset>"},
	}, {
		name:      "a port by number, by name, or all ports",
		ports:     []discoveryv1.EndpointPort{port(80), {Name: ptr("metrics")}, {}},
		endpoints: []discoveryv1.Endpoint{endpoint("10.0.0.1"), endpoint("10.0.0.2")},
		want:      []any{"80,metrics,*", "10.0.0.1,10.0.0.2"},
	}, {
		name:      "past three, the rest are counted",
		ports:     []discoveryv1.EndpointPort{port(1), port(2), port(3), port(4)},
		endpoints: []discoveryv1.Endpoint{endpoint("10.0.0.1", "10.0.0.2"), endpoint("10.0.0.3", "10.0.0.4"), endpoint("10.0.0.5")},
		want:      []any{"1,2,3 + 1 more...", "10.0.0.1,10.0.0.2,10.0.0.3 + 2 more..."},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			es := &discoveryv1.EndpointSlice{ObjectMeta: objectMeta("svc-abc"), AddressType: discoveryv1.AddressTypeIPv4, Ports: tt.ports, Endpoints: tt.endpoints}
			if diff := cmp.Diff(tt.want, rowCells(t, es)[2:4]); diff != "" {
				t.Errorf("Ports, Endpoints (-want +got):\n%s", diff)
			}
		})
	}
}

// TestBootstrapEndpointSlice renders the slice of the kubernetes service.
func TestBootstrapEndpointSlice(t *testing.T) {
	var list discoveryv1.EndpointSliceList
	if err := yaml.Unmarshal(readFile(t, "bootstrap/endpointslices-default.yaml"), &list); err != nil {
		t.Fatal(err)
	}
	table, err := New(WithClock(fixedClock(t, "2026-11-22T03:42:04Z"))).ConvertToTable(t.Context(), &list, nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"Name", "AddressType", "Ports", "Endpoints", "Age"}, columnNames(table)); diff != "" {
		t.Errorf("columns (-want +got):\n%s", diff)
	}
	want := []any{"kubernetes", "IPv4", "6443", "192.0.2.2", "20s"}
	if diff := cmp.Diff(want, table.Rows[0].Cells); diff != "" {
		t.Errorf("cells (-want +got):\n%s", diff)
	}
}

// Cells recorded from kube-apiserver 1.37.1 (the corpus oracle).
func TestServiceCIDRAndIPAddress(t *testing.T) {
	now := time.Now()
	sc := &networkingv1.ServiceCIDR{ObjectMeta: metav1.ObjectMeta{Name: "tmp-print", CreationTimestamp: metav1.NewTime(now)},
		Spec: networkingv1.ServiceCIDRSpec{CIDRs: []string{"192.0.2.0/24", "2001:db8::/64"}}}
	if diff := cmp.Diff([]any{"tmp-print", "192.0.2.0/24,2001:db8::/64", "0s"}, printServiceCIDR(sc, now)); diff != "" {
		t.Errorf("ServiceCIDR cells (-want +got):\n%s", diff)
	}
	ip := &networkingv1.IPAddress{ObjectMeta: metav1.ObjectMeta{Name: "192.0.2.7", CreationTimestamp: metav1.NewTime(now)},
		Spec: networkingv1.IPAddressSpec{ParentRef: &networkingv1.ParentReference{Group: "gateway.networking.k8s.io", Resource: "Gateways", Name: "gw"}}}
	if diff := cmp.Diff([]any{"192.0.2.7", "gateways.gateway.networking.k8s.io/gw", "0s"}, printIPAddress(ip, now)); diff != "" {
		t.Errorf("IPAddress cells (-want +got):\n%s", diff)
	}
	ip.Spec.ParentRef = &networkingv1.ParentReference{Resource: "services", Namespace: "default", Name: "kubernetes"}
	if diff := cmp.Diff([]any{"192.0.2.7", "services/default/kubernetes", "0s"}, printIPAddress(ip, now)); diff != "" {
		t.Errorf("IPAddress cells (-want +got):\n%s", diff)
	}
}
