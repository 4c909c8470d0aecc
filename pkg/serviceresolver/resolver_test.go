package serviceresolver

import (
	"net/url"
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
	r := &Endpoints{
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

// A service reference resolves to the service's cluster IP and the port
// named, as kube-apiserver's default resolver does.
func TestClusterIPResolvesToTheClusterIPOrTheExternalName(t *testing.T) {
	services := map[string]*corev1.Service{
		"hooks": {ObjectMeta: metav1.ObjectMeta{Name: "hooks"}, Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, ClusterIP: "10.0.0.7",
			Ports: []corev1.ServicePort{{Port: 443}, {Port: 8443}}}},
		"headless": {ObjectMeta: metav1.ObjectMeta{Name: "headless"}, Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, ClusterIP: "None"}},
		"external": {ObjectMeta: metav1.ObjectMeta{Name: "external"}, Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "hooks.example.com"}},
	}
	r := &ClusterIP{Services: func(namespace, name string) (*corev1.Service, error) {
		if s, ok := services[name]; ok {
			return s, nil
		}
		return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "services"}, name)
	}}
	cases := []struct {
		name    string
		port    int32
		want    string
		wantErr string
	}{
		{name: "hooks", port: 8443, want: "https://10.0.0.7:8443"},
		{name: "hooks", port: 9443, wantErr: `no service port 9443 found for service "hooks"`},
		{name: "headless", port: 443, wantErr: `cannot route to service with ClusterIP "None"`},
		{name: "external", port: 443, want: "https://hooks.example.com:443"},
		{name: "missing", port: 443, wantErr: `services "missing" not found`},
	}
	for _, tc := range cases {
		u, err := r.ResolveEndpoint("ns", tc.name, tc.port)
		switch {
		case tc.wantErr != "":
			if err == nil || err.Error() != tc.wantErr {
				t.Errorf("%s:%d: error %v, want %s", tc.name, tc.port, err, tc.wantErr)
			}
		case err != nil || u.String() != tc.want:
			t.Errorf("%s:%d: %v, %v; want %s", tc.name, tc.port, u, err, tc.want)
		}
	}
}

// The kubernetes Service of the default namespace on port 443 is the
// server itself; any other reference, even to that Service on another
// port, is the delegate's.
func TestLoopbackAnswersForTheKubernetesService(t *testing.T) {
	self := &url.URL{Scheme: "https", Host: "127.0.0.1:6443"}
	r := &Loopback{Host: self, Delegate: &ClusterIP{Services: func(namespace, name string) (*corev1.Service, error) {
		return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}, Spec: corev1.ServiceSpec{
			Type: corev1.ServiceTypeClusterIP, ClusterIP: "10.96.0.1", Ports: []corev1.ServicePort{{Port: 443}, {Port: 80}}}}, nil
	}}}
	for _, tc := range []struct {
		namespace, name string
		port            int32
		want            string
	}{
		{"default", "kubernetes", 443, "https://127.0.0.1:6443"},
		{"default", "kubernetes", 80, "https://10.96.0.1:80"},
		{"kube-system", "kubernetes", 443, "https://10.96.0.1:443"},
		{"default", "other", 443, "https://10.96.0.1:443"},
	} {
		u, err := r.ResolveEndpoint(tc.namespace, tc.name, tc.port)
		if err != nil || u.String() != tc.want {
			t.Errorf("%s/%s:%d resolved to %v, %v; want %s", tc.namespace, tc.name, tc.port, u, err, tc.want)
		}
	}
	u, _ := r.ResolveEndpoint("default", "kubernetes", 443)
	u.Host = "changed"
	if self.Host != "127.0.0.1:6443" {
		t.Errorf("the caller changed the loopback address through the URL it got")
	}
}

// The endpoints resolver refuses, with kube-apiserver's words, a Service
// without a cluster IP, a port the Service does not have, and a Service
// with no ready endpoint for the port; the valid function of
// RandomEndpoint (services/proxy accepts only pods) rules endpoints out.
func TestEndpointsRefusals(t *testing.T) {
	services := map[string]*corev1.Service{
		"ext":  {ObjectMeta: metav1.ObjectMeta{Name: "ext"}, Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "example.com"}},
		"hook": {ObjectMeta: metav1.ObjectMeta{Name: "hook"}, Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort, ClusterIP: "10.0.0.1", Ports: []corev1.ServicePort{{Name: "https", Port: 443}}}},
	}
	slices := []*discoveryv1.EndpointSlice{{AddressType: discoveryv1.AddressTypeIPv4,
		Ports:     []discoveryv1.EndpointPort{{Name: ptr.To("https"), Port: ptr.To[int32](8443)}},
		Endpoints: []discoveryv1.Endpoint{{Addresses: []string{"192.0.2.1"}}}}}
	get := func(namespace, name string) (*corev1.Service, error) {
		if s, ok := services[name]; ok {
			return s, nil
		}
		return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "services"}, name)
	}
	withSlices := &Endpoints{Services: get, Slices: func(string, string) ([]*discoveryv1.EndpointSlice, error) { return slices, nil }}
	for _, tc := range []struct {
		r       *Endpoints
		name    string
		port    int32
		wantErr string
	}{
		{withSlices, "ext", 443, `unsupported service type "ExternalName"`},
		{withSlices, "hook", 8443, `no service port 8443 found for service "hook"`},
		{withSlices, "missing", 443, `services "missing" not found`},
		{&Endpoints{Services: get}, "hook", 443, `no endpoints available for service "hook"`},
	} {
		_, err := tc.r.ResolveEndpoint("ns", tc.name, tc.port)
		if err == nil || err.Error() != tc.wantErr {
			t.Errorf("%s:%d: %v, want %s", tc.name, tc.port, err, tc.wantErr)
		}
	}
	if u, err := withSlices.ResolveEndpoint("ns", "hook", 443); err != nil || u.String() != "https://192.0.2.1:8443" {
		t.Errorf("hook:443 resolved to %v, %v", u, err)
	}
	_, err := RandomEndpoint("hook", slices, "https", corev1.IPv4Protocol, func(*discoveryv1.Endpoint) bool { return false })
	if !apierrors.IsServiceUnavailable(err) || err.Error() != `no endpoints available for service "hook"` {
		t.Errorf("every endpoint refused: %v", err)
	}
}

// An APIService's Service has endpoints when one slice has both a ready
// endpoint and the port's name, whatever the addresses.
func TestHasReadyEndpoint(t *testing.T) {
	slice := func(port string, ready ...*bool) *discoveryv1.EndpointSlice {
		s := &discoveryv1.EndpointSlice{Ports: []discoveryv1.EndpointPort{{Name: ptr.To(port), Port: ptr.To[int32](1)}}}
		for _, r := range ready {
			s.Endpoints = append(s.Endpoints, discoveryv1.Endpoint{Conditions: discoveryv1.EndpointConditions{Ready: r}})
		}
		return s
	}
	for _, tc := range []struct {
		slices []*discoveryv1.EndpointSlice
		want   bool
	}{
		{nil, false},
		{[]*discoveryv1.EndpointSlice{slice("https", ptr.To(false))}, false},
		{[]*discoveryv1.EndpointSlice{slice("https", ptr.To(false), nil)}, true},
		{[]*discoveryv1.EndpointSlice{slice("https", ptr.To(true))}, true},
		{[]*discoveryv1.EndpointSlice{slice("metrics", ptr.To(true))}, false},
		// The ready endpoint and the port are in different slices.
		{[]*discoveryv1.EndpointSlice{slice("metrics", ptr.To(true)), slice("https", ptr.To(false))}, false},
	} {
		if got := HasReadyEndpoint("https", tc.slices); got != tc.want {
			t.Errorf("%d slices: %v, want %v", len(tc.slices), got, tc.want)
		}
	}
}
