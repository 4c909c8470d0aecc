package e2e

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/kapi-dev/kapi/internal/apiservicetest"
	"github.com/kapi-dev/kapi/internal/required"
	"github.com/kapi-dev/kapi/internal/testpki"
	"github.com/kapi-dev/kapi/pkg/api/scheme"
	"github.com/kapi-dev/kapi/pkg/app"
	"github.com/kapi-dev/kapi/pkg/client"
	"github.com/kapi-dev/kapi/pkg/testserver"
)

// The recordings of kube-apiserver 1.37.1 the proxy's and the
// availability controllers' unit tests compare with.
const (
	proxyRecording      = "../../pkg/aggregator/proxy/testdata/oracle-proxy.yaml"
	conditionsRecording = "../../pkg/aggregator/availability/testdata/oracle-conditions.yaml"
)

// The recordings' namespace and services.
const aggregatorNamespace = "proxy-rec"

type proxyAnswer struct {
	Code    int
	Headers map[string]string
	Body    string
}

type proxyRecordingFile struct {
	Unavailable, Unreachable proxyAnswer
	Request                  struct {
		Method, URI, Proto, SNI string
		Peers                   []string
		Headers                 http.Header
	}
}

type conditionsRecordingFile struct {
	StatusManagedFields struct {
		Manager, Operation, Subresource, FieldsV1 string
	}
	Cases []struct {
		Name      string
		Routing   bool
		Backend   *struct{ Stopped bool }
		Condition struct{ Status, Reason, Message string }
	}
}

func readYAML(t *testing.T, path string, into any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, into); err != nil {
		t.Fatal(err)
	}
}

// recordedCondition finds the recorded condition of a case.
func recordedCondition(t *testing.T, rec conditionsRecordingFile, name string, routing bool, stopped bool) (status, reason, message string) {
	t.Helper()
	for _, c := range rec.Cases {
		if c.Name == name && c.Routing == routing && (c.Backend != nil && c.Backend.Stopped) == stopped {
			return c.Condition.Status, c.Condition.Reason, c.Condition.Message
		}
	}
	t.Fatalf("no recorded case %s (routing %v, stopped %v)", name, routing, stopped)
	return
}

// aggregatorE2E is a kapi with a proxy client certificate, and what the
// tests create in it.
type aggregatorE2E struct {
	t          *testing.T
	server     *testserver.Server
	kube       kubernetes.Interface
	apiSvcs    client.WithStatus[*apiregistrationv1.APIService, *apiregistrationv1.APIServiceList]
	frontProxy *testpki.CA
	certFile   string
	keyFile    string
}

func startAggregatorE2E(t *testing.T, routing bool) *aggregatorE2E {
	e := &aggregatorE2E{t: t, frontProxy: testpki.NewCA(t, "front-proxy-ca")}
	dir := t.TempDir()
	e.certFile, e.keyFile = filepath.Join(dir, "front-proxy-client.crt"), filepath.Join(dir, "front-proxy-client.key")
	e.writeClientCert("front-proxy-client")
	e.server = testserver.Start(t, testserver.Options{
		Admission:  app.AdmissionConfig{EnableAggregatorRouting: routing},
		Aggregator: &app.AggregatorConfig{ProxyClientCertFile: e.certFile, ProxyClientKeyFile: e.keyFile, RejectForwardingRedirects: true},
	})
	var err error
	if e.kube, err = kubernetes.NewForConfig(e.server.ClientConfig); err != nil {
		t.Fatal(err)
	}
	clients, err := client.NewSet(e.server.ClientConfig, scheme.Scheme)
	if err != nil {
		t.Fatal(err)
	}
	e.apiSvcs = client.For[*apiregistrationv1.APIService, *apiregistrationv1.APIServiceList](clients, "apiservices", "")
	if _, err := e.kube.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: aggregatorNamespace}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return e
}

func (e *aggregatorE2E) writeClientCert(cn string) {
	certPEM, keyPEM := e.frontProxy.Client(e.t, cn)
	// The key first: a reload between the two writes sees a pair that
	// does not match and keeps the old one.
	if err := os.WriteFile(e.keyFile, keyPEM, 0o600); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(e.certFile, certPEM, 0o600); err != nil {
		e.t.Fatal(err)
	}
}

// backend starts a server for group's APIService, behind the Service svc.
func (e *aggregatorE2E) backend(group, svc, addr string) *apiservicetest.Server {
	return apiservicetest.Start(e.t, apiservicetest.Options{Group: group, Version: "v1", Addr: addr,
		DNSNames: []string{svc + "." + aggregatorNamespace + ".svc"}, ClientCAs: e.frontProxy.Pool})
}

func (e *aggregatorE2E) createService(s *corev1.Service) {
	e.t.Helper()
	if _, err := e.kube.CoreV1().Services(aggregatorNamespace).Create(context.Background(), s, metav1.CreateOptions{}); err != nil {
		e.t.Fatal(err)
	}
}

func (e *aggregatorE2E) createAPIService(group, svc string, port int32, caBundle []byte) {
	e.t.Helper()
	a := &apiregistrationv1.APIService{ObjectMeta: metav1.ObjectMeta{Name: "v1." + group},
		Spec: apiregistrationv1.APIServiceSpec{Group: group, Version: "v1", CABundle: caBundle, GroupPriorityMinimum: 100, VersionPriority: 10,
			Service: &apiregistrationv1.ServiceReference{Namespace: aggregatorNamespace, Name: svc, Port: ptr.To(port)}}}
	if _, err := e.apiSvcs.Create(context.Background(), a, metav1.CreateOptions{}); err != nil {
		e.t.Fatal(err)
	}
}

// waitForCondition polls the APIService until its Available condition
// has status and reason, and returns its message.
func (e *aggregatorE2E) waitForCondition(name, status, reason string) string {
	e.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	var last []apiregistrationv1.APIServiceCondition
	for {
		a, err := e.apiSvcs.Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			e.t.Fatal(err)
		}
		last = a.Status.Conditions
		for _, c := range last {
			if c.Type == apiregistrationv1.Available && string(c.Status) == status && c.Reason == reason {
				return c.Message
			}
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("%s never became Available=%s %s; conditions %+v", name, status, reason, last)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// httpClient is an HTTP client of the admin user.
func (e *aggregatorE2E) httpClient() *http.Client {
	e.t.Helper()
	c, err := rest.HTTPClientFor(e.server.ClientConfig)
	if err != nil {
		e.t.Fatal(err)
	}
	return c
}

func (e *aggregatorE2E) get(path string, header http.Header) (*http.Response, string) {
	e.t.Helper()
	req, err := http.NewRequest("GET", e.server.URL+path, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := e.httpClient().Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp, string(body)
}

func checkProxyAnswer(t *testing.T, what string, resp *http.Response, body string, want proxyAnswer, replace ...string) {
	t.Helper()
	wantBody := strings.NewReplacer(replace...).Replace(want.Body)
	if resp.StatusCode != want.Code || body != wantBody {
		t.Errorf("%s: %d %q, want %d %q", what, resp.StatusCode, body, want.Code, wantBody)
	}
	for k, v := range want.Headers {
		if got := resp.Header.Get(k); got != v {
			t.Errorf("%s: header %s %q, want %q", what, k, got, v)
		}
	}
}

// A remote APIService, its Service an ExternalName (the service network
// is not there to route cluster IPs), served as kube-apiserver serves it:
// Available once its discovery check passes; requests, its discovery
// document, a watch and an upgrade proxied with the client certificate
// and the user's headers; 503s and conditions as kube-apiserver's while
// it is not available; a new client certificate used once its files
// change; its group version back to the chain once it is deleted.
func TestRemoteAPIServiceProxiedAsKubeAPIServer(t *testing.T) {
	var proxyRec proxyRecordingFile
	readYAML(t, proxyRecording, &proxyRec)
	var condRec conditionsRecordingFile
	readYAML(t, conditionsRecording, &condRec)
	e := startAggregatorE2E(t, false)
	ctx := context.Background()

	b := e.backend("proxy-ext.example.com", "ext", "")
	_, p, _ := net.SplitHostPort(b.Addr)
	port, _ := strconv.Atoi(p)
	e.createService(&corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "ext"}, Spec: corev1.ServiceSpec{
		Type: corev1.ServiceTypeExternalName, ExternalName: "localhost", Ports: []corev1.ServicePort{{Name: "https", Port: int32(port)}}}})
	e.createAPIService("proxy-ext.example.com", "ext", int32(port), b.CABundle)
	e.createAPIService("proxy-nosvc.example.com", "nosvc", 443, nil)

	status, reason, message := recordedCondition(t, condRec, "ext", false, false)
	e.waitForCondition("v1.proxy-ext.example.com", status, reason)
	// The status was written as kube-apiserver writes it.
	written, err := e.apiSvcs.Get(ctx, "v1.proxy-ext.example.com", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	wantFields := condRec.StatusManagedFields
	found := false
	for _, m := range written.ManagedFields {
		if m.Subresource == "status" {
			found = true
			if m.Manager != wantFields.Manager || string(m.Operation) != wantFields.Operation || m.FieldsV1 == nil || string(m.FieldsV1.Raw) != wantFields.FieldsV1 {
				t.Errorf("status managed as %s %s %s, want %+v", m.Manager, m.Operation, m.FieldsV1, wantFields)
			}
		}
	}
	if !found {
		t.Errorf("no managedFields entry of the status: %+v", written.ManagedFields)
	}
	status, reason, message = recordedCondition(t, condRec, "nosvc", false, false)
	if got := e.waitForCondition("v1.proxy-nosvc.example.com", status, reason); got != message {
		t.Errorf("ServiceNotFound message %q, want %q", got, message)
	}

	// The discovery document of the group version is the backend's.
	resp, body := e.get("/apis/proxy-ext.example.com/v1", nil)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, `"groupVersion":"proxy-ext.example.com/v1"`) {
		t.Errorf("discovery: %d %s", resp.StatusCode, body)
	}

	// A request arrives as kube-apiserver's did.
	b.Release()
	e.get("/apis/proxy-ext.example.com/v1/namespaces/a/foos?watch=true&labelSelector=a%3Db&x=%2F",
		http.Header{"X-Remote-User": {"evil"}, "X-Remote-Extra-Foo": {"evil"}, "X-Custom": {"kept"}, "Accept": {"*/*"}, "User-Agent": {"curl/7.88.1"}})
	got := b.RequestsFor("/apis/proxy-ext.example.com/v1/namespaces/a/foos")
	if len(got) != 1 {
		t.Fatalf("the backend received %d requests", len(got))
	}
	r, want := got[0], proxyRec.Request
	if r.Method != want.Method || r.URI != want.URI || r.Proto != want.Proto || r.SNI != want.SNI || !gocmp.Equal(r.Peers, want.Peers) {
		t.Errorf("received %s %s %s SNI %s peers %v", r.Method, r.URI, r.Proto, r.SNI, r.Peers)
	}
	// The values that differ between the runs: the addresses, the audit
	// ID, the admin's certificate.
	varying := map[string]bool{"Audit-Id": true, "X-Forwarded-Host": true, "X-Remote-Extra-Authentication.kubernetes.io%2fcredential-Id": true}
	if r.Header.Get("X-Forwarded-Host") != "localhost:"+p || r.Header.Get("Audit-Id") == "" {
		t.Errorf("X-Forwarded-Host %q, Audit-Id %q", r.Header.Get("X-Forwarded-Host"), r.Header.Get("Audit-Id"))
	}
	gotHeader, wantHeader := http.Header{}, http.Header{}
	for k, v := range r.Header {
		if !varying[k] {
			gotHeader[k] = v
		}
	}
	for k, v := range want.Headers {
		if !varying[k] {
			wantHeader[k] = v
		}
	}
	if !strings.HasPrefix(r.Header.Get("X-Remote-Extra-Authentication.kubernetes.io%2fcredential-Id"), "X509SHA256=") {
		t.Errorf("credential id %q", r.Header.Get("X-Remote-Extra-Authentication.kubernetes.io%2fcredential-Id"))
	}
	if diff := gocmp.Diff(wantHeader, gotHeader); diff != "" {
		t.Errorf("headers (-kube-apiserver +kapi):\n%s", diff)
	}

	t.Run("watch", func(t *testing.T) {
		wb := e.backend("proxy-watch.example.com", "watch", "")
		_, wp, _ := net.SplitHostPort(wb.Addr)
		n, _ := strconv.Atoi(wp)
		e.createService(&corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "watch"}, Spec: corev1.ServiceSpec{
			Type: corev1.ServiceTypeExternalName, ExternalName: "localhost", Ports: []corev1.ServicePort{{Name: "https", Port: int32(n)}}}})
		e.createAPIService("proxy-watch.example.com", "watch", int32(n), wb.CABundle)
		e.waitForCondition("v1.proxy-watch.example.com", "True", "Passed")
		wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		stream, err := e.kube.CoreV1().RESTClient().Get().AbsPath("/apis/proxy-watch.example.com/v1/namespaces/a/foos").Param("watch", "true").Stream(wctx)
		if err != nil {
			t.Fatal(err)
		}
		defer stream.Close()
		rd := bufio.NewReader(stream)
		// The backend sends its second event only once released: a
		// buffered watch would not show the first before the deadline.
		if first, err := rd.ReadString('\n'); err != nil || !strings.Contains(first, `"ADDED"`) {
			t.Fatalf("first event %q, %v", first, err)
		}
		wb.Release()
		if second, err := rd.ReadString('\n'); err != nil || !strings.Contains(second, `"MODIFIED"`) {
			t.Fatalf("second event %q, %v", second, err)
		}
	})

	t.Run("upgrade", func(t *testing.T) {
		tlsConfig, err := rest.TLSConfigFor(e.server.ClientConfig)
		if err != nil {
			t.Fatal(err)
		}
		tlsConfig.NextProtos = []string{"http/1.1"}
		host := strings.TrimPrefix(e.server.URL, "https://")
		conn, err := tls.Dial("tcp", host, tlsConfig)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
		fmt.Fprintf(conn, "POST /apis/proxy-ext.example.com/v1/namespaces/a/foos/x/exec?command=sh HTTP/1.1\r\nHost: %s\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n\r\n", host)
		rd := bufio.NewReader(conn)
		resp, err := http.ReadResponse(rd, nil)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != http.StatusSwitchingProtocols {
			body, _ := io.ReadAll(resp.Body)
			t.Fatalf("upgrade answered %s %s", resp.Status, body)
		}
		fmt.Fprintf(conn, "hello\n")
		if line, err := rd.ReadString('\n'); err != nil || line != "echo: hello\n" {
			t.Fatalf("read %q, %v", line, err)
		}
		up := b.RequestsFor("/apis/proxy-ext.example.com/v1/namespaces/a/foos/x/exec")
		if len(up) != 1 || up[0].Header.Get("X-Remote-User") == "" || !gocmp.Equal(up[0].Peers, []string{"CN=front-proxy-client"}) {
			t.Errorf("the upgrade arrived as %+v", up)
		}
	})

	t.Run("unavailable", func(t *testing.T) {
		for _, p := range []string{"/apis/proxy-nosvc.example.com/v1", "/apis/proxy-nosvc.example.com/v1/foos", "/apis/proxy-nosvc.example.com/v1/namespaces/a/foos?watch=1"} {
			resp, body := e.get(p, nil)
			checkProxyAnswer(t, p, resp, body, proxyRec.Unavailable)
		}
		_, metrics := e.get("/metrics", nil)
		if !strings.Contains(metrics, `aggregator_unavailable_apiservice{name="v1.proxy-nosvc.example.com"} 1`) ||
			!strings.Contains(metrics, `aggregator_unavailable_apiservice{name="v1.proxy-ext.example.com"} 0`) {
			t.Errorf("/metrics has no availability gauges of the APIServices")
		}
	})

	t.Run("client certificate reloaded", func(t *testing.T) {
		e.writeClientCert("front-proxy-client-2")
		deadline := time.Now().Add(30 * time.Second)
		for {
			e.get("/apis/proxy-ext.example.com/v1/foos", nil)
			got := b.RequestsFor("/apis/proxy-ext.example.com/v1/foos")
			if len(got) > 0 && gocmp.Equal(got[len(got)-1].Peers, []string{"CN=front-proxy-client-2"}) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the backend still sees %v", got[len(got)-1].Peers)
			}
			time.Sleep(100 * time.Millisecond)
		}
	})

	t.Run("backend gone", func(t *testing.T) {
		b.Close()
		// Until the controller notices, the proxy cannot reach it.
		resp, body := e.get("/apis/proxy-ext.example.com/v1/foos", nil)
		if resp.StatusCode != http.StatusServiceUnavailable {
			t.Errorf("backend gone: %d %s", resp.StatusCode, body)
		} else if body != proxyRec.Unavailable.Body {
			checkProxyAnswer(t, "backend gone", resp, body, proxyRec.Unreachable, "127.0.0.1:18443", "127.0.0.1:"+p)
		}
		// A change of the Service has the APIService checked again.
		svc, err := e.kube.CoreV1().Services(aggregatorNamespace).Get(ctx, "ext", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		svc.Labels = map[string]string{"touched": "yes"}
		if _, err := e.kube.CoreV1().Services(aggregatorNamespace).Update(ctx, svc, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		status, reason, message := recordedCondition(t, condRec, "ext", false, true)
		message = strings.NewReplacer("BACKEND", "localhost:"+p, "PORT", p).Replace(message)
		if got := e.waitForCondition("v1.proxy-ext.example.com", status, reason); got != message {
			t.Errorf("message %q, want %q", got, message)
		}
		resp, body = e.get("/apis/proxy-ext.example.com/v1/foos", nil)
		checkProxyAnswer(t, "unavailable", resp, body, proxyRec.Unavailable)
	})

	t.Run("deleted", func(t *testing.T) {
		if err := e.apiSvcs.Delete(ctx, "v1.proxy-ext.example.com", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(30 * time.Second)
		for {
			resp, _ := e.get("/apis/proxy-ext.example.com/v1/foos", nil)
			if resp.StatusCode == http.StatusNotFound {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("after the deletion: %d", resp.StatusCode)
			}
			time.Sleep(50 * time.Millisecond)
		}
	})
}

// hostAddress is an IPv4 address of this host that is not loopback:
// EndpointSlices may not name loopback addresses.
func hostAddress(t *testing.T) string {
	t.Helper()
	addrs, err := net.InterfaceAddrs()
	if err == nil {
		for _, a := range addrs {
			if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil && !n.IP.IsLoopback() && !n.IP.IsLinkLocalUnicast() {
				return n.IP.String()
			}
		}
		err = fmt.Errorf("none of %v", addrs)
	}
	required.Missing(t, "a non-loopback IPv4 address on this host", err)
	return ""
}

// With --enable-aggregator-routing, requests and the discovery check go
// to a ready endpoint of the Service's EndpointSlices, and an
// ExternalName Service cannot be routed to, as kube-apiserver decided.
func TestRemoteAPIServiceThroughEndpointsAsKubeAPIServer(t *testing.T) {
	var condRec conditionsRecordingFile
	readYAML(t, conditionsRecording, &condRec)
	ip := hostAddress(t)
	e := startAggregatorE2E(t, true)
	ctx := context.Background()

	b := e.backend("proxy-ep.example.com", "ep", net.JoinHostPort(ip, "0"))
	_, p, _ := net.SplitHostPort(b.Addr)
	port, _ := strconv.Atoi(p)
	e.createService(&corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "ep"}, Spec: corev1.ServiceSpec{
		Ports: []corev1.ServicePort{{Name: "https", Port: 443}}}})
	if _, err := e.kube.DiscoveryV1().EndpointSlices(aggregatorNamespace).Create(ctx, &discoveryv1.EndpointSlice{
		ObjectMeta:  metav1.ObjectMeta{Name: "ep-1", Labels: map[string]string{discoveryv1.LabelServiceName: "ep"}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Ports:       []discoveryv1.EndpointPort{{Name: ptr.To("https"), Port: ptr.To(int32(port))}},
		Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{ip}, Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(true)}}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	e.createAPIService("proxy-ep.example.com", "ep", 443, b.CABundle)
	e.createService(&corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "ext"}, Spec: corev1.ServiceSpec{
		Type: corev1.ServiceTypeExternalName, ExternalName: "localhost", Ports: []corev1.ServicePort{{Name: "https", Port: 18443}}}})
	e.createAPIService("proxy-ext.example.com", "ext", 18443, b.CABundle)

	status, reason, _ := recordedCondition(t, condRec, "ep", true, false)
	e.waitForCondition("v1.proxy-ep.example.com", status, reason)
	status, reason, message := recordedCondition(t, condRec, "ext", true, false)
	if got := e.waitForCondition("v1.proxy-ext.example.com", status, reason); got != message {
		t.Errorf("ExternalName with routing: %q, want %q", got, message)
	}

	// Released: the watch sends both its events and ends.
	b.Release()
	resp, _ := e.get("/apis/proxy-ep.example.com/v1/foos?watch=1", nil)
	got := b.RequestsFor("/apis/proxy-ep.example.com/v1/foos")
	if resp.StatusCode != http.StatusOK || len(got) != 1 {
		t.Fatalf("%d, the backend received %d requests", resp.StatusCode, len(got))
	}
	if got[0].Host != b.Addr || got[0].Header.Get("X-Forwarded-Host") != b.Addr || got[0].SNI != "ep.proxy-rec.svc" {
		t.Errorf("routed request: host %s, X-Forwarded-Host %s, SNI %s; want the endpoint %s and the Service's name",
			got[0].Host, got[0].Header.Get("X-Forwarded-Host"), got[0].SNI, b.Addr)
	}

	// The endpoint stops being ready: the APIService is not available.
	slice, err := e.kube.DiscoveryV1().EndpointSlices(aggregatorNamespace).Get(ctx, "ep-1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	slice.Endpoints[0].Conditions.Ready = ptr.To(false)
	if _, err := e.kube.DiscoveryV1().EndpointSlices(aggregatorNamespace).Update(ctx, slice, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	e.waitForCondition("v1.proxy-ep.example.com", "False", "MissingEndpoints")
	if err := e.kube.CoreV1().Services(aggregatorNamespace).Delete(ctx, "ep", metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	e.waitForCondition("v1.proxy-ep.example.com", "False", "ServiceNotFound")
}
