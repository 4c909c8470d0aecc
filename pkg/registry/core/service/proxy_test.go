package service

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
)

// fakePods are the pods behind a service.
type fakePods map[string]*corev1.Pod

func (f fakePods) Get(_ context.Context, name string, _ *metav1.GetOptions) (runtime.Object, error) {
	if p, ok := f[name]; ok {
		return p, nil
	}
	return nil, apierrors.NewNotFound(corev1.Resource("pods"), name)
}

// fakeSlices are a service's EndpointSlices.
type fakeSlices map[string][]*discoveryv1.EndpointSlice

func (f fakeSlices) EndpointSlices(_ context.Context, namespace, service string) ([]*discoveryv1.EndpointSlice, error) {
	return f[namespace+"/"+service], nil
}

func podWithIP(name, ip string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"}, Status: corev1.PodStatus{PodIPs: []corev1.PodIP{{IP: ip}}}}
}

func endpoint(ip, pod string, ready bool) discoveryv1.Endpoint {
	return discoveryv1.Endpoint{
		Addresses:  []string{ip},
		Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(ready)},
		TargetRef:  &corev1.ObjectReference{Kind: "Pod", Namespace: "default", Name: pod},
	}
}

func TestServiceProxyReachesAReadyPodEndpoint(t *testing.T) {
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, r.Method+" "+r.URL.Path+"?"+r.URL.RawQuery)
	}))
	defer backend.Close()
	host, portText, _ := net.SplitHostPort(backend.Listener.Addr().String())
	port, _ := strconv.Atoi(portText)

	s := newServer(t)
	if _, err := s.create(t, svc("web", corev1.ServiceTypeClusterIP, "80/TCP", "81/TCP")); err != nil {
		t.Fatal(err)
	}
	slices := fakeSlices{"default/web": {{
		AddressType: discoveryv1.AddressTypeIPv4,
		Ports:       []discoveryv1.EndpointPort{{Name: ptr.To("p0"), Port: ptr.To(int32(port))}},
		Endpoints: []discoveryv1.Endpoint{
			endpoint("10.9.9.9", "not-ready", false),
			endpoint("10.9.9.8", "gone", true),
			endpoint("10.9.9.7", "other-ip", true),
			endpoint(host, "web-1", true),
		},
	}}}
	pods := fakePods{"not-ready": podWithIP("not-ready", "10.9.9.9"), "other-ip": podWithIP("other-ip", "10.1.1.1"), "web-1": podWithIP("web-1", host)}
	st := &Storage{Service: s.REST, Status: s.status}
	p, err := NewProxy(st, pods, slices, http.DefaultTransport)
	if err != nil {
		t.Fatal(err)
	}

	// Port 80 is the port named p0: only web-1 is ready, a pod, and has
	// the endpoint's address.
	for range 5 {
		h, err := p.REST.Connect(nsContext(), "web:80", &corev1.ServiceProxyOptions{Path: "/hello"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/api/v1/namespaces/default/services/web:80/proxy/hello?x=1", nil))
		if got := rec.Body.String(); got != "POST /hello?x=1" {
			t.Fatalf("proxied answer %q", got)
		}
	}

	for _, tc := range []struct {
		id, want string
		code     int32
	}{
		{"web:81", `no endpoints available for service "web"`, http.StatusServiceUnavailable},
		{"web:82", `no service port 82 found for service "web"`, http.StatusServiceUnavailable},
		{"web:p1", `no endpoints available for service "web"`, http.StatusServiceUnavailable},
		{"a:b:c:d", `invalid service request "a:b:c:d"`, http.StatusBadRequest},
		{"missing:80", `services "missing" not found`, http.StatusNotFound},
	} {
		_, err := p.REST.Connect(nsContext(), tc.id, &corev1.ServiceProxyOptions{}, nil)
		status, ok := err.(apierrors.APIStatus)
		if !ok || status.Status().Message != tc.want || status.Status().Code != tc.code {
			t.Errorf("%s: %v, want %d %s", tc.id, err, tc.code, tc.want)
		}
	}

	unwired, _ := NewProxy(st, pods, nil, http.DefaultTransport)
	if _, err := unwired.REST.Connect(nsContext(), "web", &corev1.ServiceProxyOptions{}, nil); !apierrors.IsServiceUnavailable(err) {
		t.Errorf("without EndpointSlices: %v, want 503", err)
	}
}
