package webhook

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
)

// With --enable-aggregator-routing a service resolves, as in
// kube-apiserver, to a ready endpoint (readiness unknown counts as ready)
// of a slice serving the service port's name, the service's first IP
// family's slices first; never to one that is not ready or serves
// another port. (The refusals, recorded from kube-apiserver, are checked
// by TestWebhookServicesThroughEndpointsAsKubeAPIServer.)
func TestEndpointsResolverPicksAReadyEndpointOfThePortNamed(t *testing.T) {
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "hook"}, Spec: corev1.ServiceSpec{
		Type: corev1.ServiceTypeClusterIP, ClusterIP: "10.96.0.10", IPFamilies: []corev1.IPFamily{corev1.IPv6Protocol, corev1.IPv4Protocol},
		Ports: []corev1.ServicePort{{Name: "metrics", Port: 9090}, {Name: "https", Port: 443}},
	}}
	slice := func(addressType discoveryv1.AddressType, port string, endpoints ...discoveryv1.Endpoint) *discoveryv1.EndpointSlice {
		return &discoveryv1.EndpointSlice{AddressType: addressType, Endpoints: endpoints,
			Ports: []discoveryv1.EndpointPort{{Name: ptr.To(port), Port: ptr.To[int32](8443)}}}
	}
	ep := func(addr string, ready *bool) discoveryv1.Endpoint {
		return discoveryv1.Endpoint{Addresses: []string{addr}, Conditions: discoveryv1.EndpointConditions{Ready: ready}}
	}
	slices := []*discoveryv1.EndpointSlice{
		slice(discoveryv1.AddressTypeIPv4, "https", ep("192.0.2.1", ptr.To(true)), ep("192.0.2.2", nil), ep("192.0.2.3", ptr.To(false))),
		slice(discoveryv1.AddressTypeIPv6, "metrics", ep("2001:db8::9", ptr.To(true))),
		slice(discoveryv1.AddressTypeIPv6, "https", ep("2001:db8::1", ptr.To(false))),
		slice(discoveryv1.AddressTypeIPv4, "https", ep("192.0.2.4", ptr.To(false))),
	}
	r := &EndpointsResolver{
		Services: func(namespace, name string) (*corev1.Service, error) {
			if namespace == "ns" && name == "hook" {
				return svc, nil
			}
			return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "services"}, name)
		},
		Slices: func(namespace, service string) ([]*discoveryv1.EndpointSlice, error) { return slices, nil },
	}
	seen := map[string]bool{}
	for range 200 {
		u, err := r.ResolveEndpoint("ns", "hook", 443)
		if err != nil {
			t.Fatal(err)
		}
		if u.Scheme != "https" {
			t.Fatalf("scheme %q", u.Scheme)
		}
		seen[u.Host] = true
	}
	want := map[string]bool{"192.0.2.1:8443": true, "192.0.2.2:8443": true}
	if len(seen) != len(want) || !seen["192.0.2.1:8443"] || !seen["192.0.2.2:8443"] {
		t.Fatalf("resolved to %v, want each of %v", seen, want)
	}
	// The IPv6 slice of the port, ready, is preferred: the service's first
	// family.
	slices[2].Endpoints[0].Conditions.Ready = ptr.To(true)
	for range 50 {
		u, err := r.ResolveEndpoint("ns", "hook", 443)
		if err != nil {
			t.Fatal(err)
		}
		if u.Host != "[2001:db8::1]:8443" {
			t.Fatalf("resolved to %s, want the IPv6 endpoint", u.Host)
		}
	}
	if _, err := r.ResolveEndpoint("ns", "hook", 9090); err != nil {
		t.Fatalf("the metrics port: %v", err)
	}
}
