package proxy

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/kapi-dev/kapi/internal/apiservicetest"
	"github.com/kapi-dev/kapi/internal/testpki"
	"github.com/kapi-dev/kapi/pkg/authentication/user"
	"github.com/kapi-dev/kapi/pkg/endpoints/auditcontext"
	"github.com/kapi-dev/kapi/pkg/endpoints/request"
	"github.com/kapi-dev/kapi/pkg/metrics"
	"github.com/kapi-dev/kapi/pkg/serviceresolver"
)

// recording is testdata/oracle-proxy.yaml: what kube-apiserver answered
// and what its backend received.
type recording struct {
	Unavailable, Unreachable, Redirect answer
	Request, Impersonated, Post        received
	Routed                             received
}

type answer struct {
	Code    int
	Headers map[string]string
	Body    string
}

type received struct {
	Method, URI, Host, Proto, SNI string
	Peers                         []string
	Headers                       http.Header
}

func loadRecording(t *testing.T) recording {
	t.Helper()
	data, err := os.ReadFile("testdata/oracle-proxy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var r recording
	if err := yaml.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

const (
	group     = "proxy-ext.example.com"
	namespace = "proxy-rec"
	service   = "ext"
)

// fixture is a backend behind an APIService, and a front server that
// serves the APIService's handler to requests of a user, as the
// aggregator's filters would have prepared them.
type fixture struct {
	t          *testing.T
	backend    *apiservicetest.Server
	frontProxy *testpki.CA
	certFile   string
	keyFile    string
	cert       *ClientCert
	apiService *apiregistrationv1.APIService
	services   map[string]*corev1.Service
	config     *Config
	handler    *Handler
	front      *httptest.Server
	// user is who the front server says the request is from.
	user user.Info
}

func newFixture(t *testing.T) *fixture {
	f := &fixture{t: t, frontProxy: testpki.NewCA(t, "front-proxy-ca")}
	f.backend = apiservicetest.Start(t, apiservicetest.Options{Group: group, Version: "v1",
		DNSNames: []string{service + "." + namespace + ".svc"}, ClientCAs: f.frontProxy.Pool})
	dir := t.TempDir()
	f.certFile, f.keyFile = filepath.Join(dir, "proxy.crt"), filepath.Join(dir, "proxy.key")
	f.writeClientCert("front-proxy-client")
	var err error
	if f.cert, err = NewClientCert(f.certFile, f.keyFile, nil); err != nil {
		t.Fatal(err)
	}
	host, port, _ := net.SplitHostPort(f.backend.Addr)
	p, _ := strconv.Atoi(port)
	// The Service's cluster IP is the backend's address: the service
	// network's routing is left out.
	f.services = map[string]*corev1.Service{service: {ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: service},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, ClusterIP: host, Ports: []corev1.ServicePort{{Name: "https", Port: int32(p)}}}}}
	f.config = &Config{
		Resolver: &serviceresolver.ClusterIP{Services: func(ns, name string) (*corev1.Service, error) {
			if s, ok := f.services[name]; ok && ns == namespace {
				return s, nil
			}
			return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "services"}, name)
		}},
		Transports:                NewTransports(f.cert),
		Metrics:                   metrics.NewRegistry(),
		RejectForwardingRedirects: true,
		SendUID:                   true,
		Delegate: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "delegated", http.StatusTeapot)
		}),
	}
	f.apiService = &apiregistrationv1.APIService{ObjectMeta: metav1.ObjectMeta{Name: "v1." + group},
		Spec: apiregistrationv1.APIServiceSpec{Group: group, Version: "v1", CABundle: f.backend.CABundle,
			Service: &apiregistrationv1.ServiceReference{Namespace: namespace, Name: service, Port: ptr.To(int32(p))}},
		Status: apiregistrationv1.APIServiceStatus{Conditions: []apiregistrationv1.APIServiceCondition{
			{Type: apiregistrationv1.Available, Status: apiregistrationv1.ConditionTrue, Reason: "Passed"}}}}
	f.handler = NewHandler(f.config, f.apiService)
	f.user = &user.DefaultInfo{Name: "kubernetes-admin", Groups: []string{"system:masters", "system:authenticated"},
		Extra: map[string][]string{"authentication.kubernetes.io/credential-id": {"X509SHA256=aaf81f584003093e8ab6f22a24104c8668f2e6e6f9049adc5024feb4904fb807"}}}
	infos := request.NewRequestInfoFactory()
	f.front = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		info, err := infos.NewRequestInfo(r)
		if err != nil {
			t.Errorf("request info: %v", err)
		}
		ctx := request.WithRequestInfo(r.Context(), info)
		if f.user != nil {
			ctx = request.WithUser(ctx, f.user)
		}
		ctx = auditcontext.With(ctx, auditcontext.New(types.UID("audit-1")))
		f.handler.ServeHTTP(w, r.WithContext(ctx))
	}))
	t.Cleanup(f.front.Close)
	return f
}

func (f *fixture) writeClientCert(cn string) {
	certPEM, keyPEM := f.frontProxy.Client(f.t, cn)
	if err := os.WriteFile(f.certFile, certPEM, 0o600); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(f.keyFile, keyPEM, 0o600); err != nil {
		f.t.Fatal(err)
	}
}

// do sends a request to the front server.
func (f *fixture) do(method, path string, header http.Header, body string) *http.Response {
	f.t.Helper()
	req, err := http.NewRequest(method, f.front.URL+path, strings.NewReader(body))
	if err != nil {
		f.t.Fatal(err)
	}
	for k, vs := range header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	req.Header.Set("User-Agent", "curl/7.88.1")
	req.Header.Set("Accept", "*/*")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// checkAnswer compares a response with a recorded one.
func checkAnswer(t *testing.T, what string, resp *http.Response, want answer, replace ...string) {
	t.Helper()
	body, _ := io.ReadAll(resp.Body)
	wantBody := strings.NewReplacer(replace...).Replace(want.Body)
	if resp.StatusCode != want.Code || string(body) != wantBody {
		t.Errorf("%s: %d %q, want %d %q", what, resp.StatusCode, body, want.Code, wantBody)
	}
	for k, v := range want.Headers {
		if got := resp.Header.Get(k); got != v {
			t.Errorf("%s: header %s %q, want %q", what, k, got, v)
		}
	}
}

// The backend receives what kube-apiserver's backend received: the path
// as sent, the query re-encoded, the client's own headers, kube-apiserver's
// forwarding headers, the audit ID, and the user as X-Remote-* headers,
// those the client sent replaced; over HTTP/2, with the Service's name
// for SNI, and the front-proxy client certificate.
func TestTheBackendReceivesWhatKubeAPIServersBackendReceives(t *testing.T) {
	rec := loadRecording(t)
	f := newFixture(t)
	// The authentication filter has removed Authorization by now; the
	// client's X-Remote-* headers are still there.
	resp := f.do("GET", "/apis/proxy-ext.example.com/v1/namespaces/a/foos?watch=true&labelSelector=a%3Db&x=%2F",
		http.Header{"X-Remote-User": {"evil"}, "X-Remote-Extra-Foo": {"evil"}, "X-Custom": {"kept"}}, "")
	f.backend.Release()
	if _, err := io.ReadAll(resp.Body); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("watch: %d %v", resp.StatusCode, err)
	}
	got := f.backend.RequestsFor("/apis/proxy-ext.example.com/v1/namespaces")
	if len(got) != 1 {
		t.Fatalf("the backend received %d requests, want 1", len(got))
	}
	checkReceived(t, "request", got[0], rec.Request, f.backend.Addr)
	if diff := cmp.Diff(rec.Request.Headers, withoutVarying(got[0].Header, f.backend.Addr, "audit-1")); diff != "" {
		t.Errorf("headers (-kube-apiserver +kapi):\n%s", diff)
	}
}

// An impersonated user (the impersonation filter's work) is passed on
// with its UID, groups and extras, the extras' keys escaped as
// kube-apiserver escapes them; a client's X-Remote-Uid is replaced.
func TestImpersonatedUserIsPassedOnAsKubeAPIServer(t *testing.T) {
	rec := loadRecording(t)
	f := newFixture(t)
	f.user = &user.DefaultInfo{Name: "alice", UID: "u-1", Groups: []string{"system:masters", "system:authenticated"},
		Extra: map[string][]string{"acme.com/scopes": {"read", "write"}, "foo_bar": {"x y"}}}
	f.do("GET", "/apis/proxy-ext.example.com/v1/foos/", http.Header{"X-Remote-Uid": {"bad"}}, "")
	got := f.backend.RequestsFor("/apis/proxy-ext.example.com/v1/foos")
	if len(got) != 1 {
		t.Fatalf("the backend received %d requests, want 1", len(got))
	}
	if got[0].URI != rec.Impersonated.URI {
		t.Errorf("URI %q, want %q", got[0].URI, rec.Impersonated.URI)
	}
	for k, want := range rec.Impersonated.Headers {
		if !cmp.Equal(got[0].Header[k], want) {
			t.Errorf("header %s: %q, want %q", k, got[0].Header[k], want)
		}
	}
	for k := range got[0].Header {
		if strings.HasPrefix(k, "X-Remote-") && rec.Impersonated.Headers[k] == nil {
			t.Errorf("header %s %q, which kube-apiserver does not send", k, got[0].Header[k])
		}
	}
}

// A write's body and its headers pass through.
func TestAWriteIsPassedOn(t *testing.T) {
	rec := loadRecording(t)
	f := newFixture(t)
	f.do("POST", "/apis/proxy-ext.example.com/v1/foos?dryRun=All", http.Header{"Content-Type": {"application/json"}}, `{"a":1}`)
	got := f.backend.RequestsFor("/apis/proxy-ext.example.com/v1/foos")
	if len(got) != 1 || got[0].Method != rec.Post.Method || got[0].URI != rec.Post.URI || got[0].Body != `{"a":1}` {
		t.Fatalf("the backend received %+v", got)
	}
	for k, want := range rec.Post.Headers {
		if !cmp.Equal(got[0].Header[k], want) {
			t.Errorf("header %s: %q, want %q", k, got[0].Header[k], want)
		}
	}
}

func checkReceived(t *testing.T, what string, got apiservicetest.Request, want received, backend string) {
	t.Helper()
	host := strings.NewReplacer("localhost:18443", backend)
	if got.Method != want.Method || got.URI != want.URI || got.Host != host.Replace(want.Host) ||
		got.Proto != want.Proto || got.SNI != want.SNI || !cmp.Equal(got.Peers, want.Peers) {
		t.Errorf("%s: received %s %s (host %s, %s, SNI %s, peers %v), want %s %s (host %s, %s, SNI %s, peers %v)", what,
			got.Method, got.URI, got.Host, got.Proto, got.SNI, got.Peers,
			want.Method, want.URI, host.Replace(want.Host), want.Proto, want.SNI, want.Peers)
	}
}

// withoutVarying puts the recording's values in place of those that
// differ between the runs: the backend's address and the audit ID.
func withoutVarying(h http.Header, backend, auditID string) http.Header {
	out := http.Header{}
	for k, vs := range h {
		for _, v := range vs {
			v = strings.ReplaceAll(v, backend, "localhost:18443")
			if v == auditID {
				v = "AUDIT-ID"
			}
			out[k] = append(out[k], v)
		}
	}
	return out
}

// While the APIService is not Available, and when its Service cannot be
// resolved, every request is kube-apiserver's plain-text 503.
func TestUnavailableIsKubeAPIServers503(t *testing.T) {
	rec := loadRecording(t)
	f := newFixture(t)
	unavailable := f.apiService.DeepCopy()
	unavailable.Status.Conditions[0].Status = apiregistrationv1.ConditionFalse
	f.handler.Update(unavailable)
	for _, p := range []string{"/apis/proxy-ext.example.com/v1", "/apis/proxy-ext.example.com/v1/foos", "/apis/proxy-ext.example.com/v1/namespaces/a/foos?watch=1"} {
		checkAnswer(t, "unavailable "+p, f.do("GET", p, nil, ""), rec.Unavailable)
	}
	f.handler.Update(f.apiService)
	delete(f.services, service)
	checkAnswer(t, "no service", f.do("GET", "/apis/proxy-ext.example.com/v1/foos", nil, ""), rec.Unavailable)
	if n := len(f.backend.Requests()); n != 0 {
		t.Errorf("the backend received %d requests", n)
	}
	// Each is counted as the aggregator's termination.
	f.do("GET", "/apis/proxy-ext.example.com/v1/some/path", nil, "")
	rr := httptest.NewRecorder()
	f.config.Metrics.Handler().ServeHTTP(rr, httptest.NewRequest("GET", "/metrics", nil))
	var got []string
	for _, l := range strings.Split(rr.Body.String(), "\n") {
		if strings.HasPrefix(l, "apiserver_request_terminations_total{") {
			got = append(got, l)
		}
	}
	want := []string{
		`apiserver_request_terminations_total{code="503",component="aggregator",group="",resource="",scope="",subresource="/apis/proxy-ext.example.com/v1",verb="GET",version=""} 1`,
		`apiserver_request_terminations_total{code="503",component="aggregator",group="proxy-ext.example.com",resource="foos",scope="cluster",subresource="",verb="LIST",version="v1"} 2`,
		`apiserver_request_terminations_total{code="503",component="aggregator",group="proxy-ext.example.com",resource="foos",scope="namespace",subresource="",verb="WATCH",version="v1"} 1`,
		`apiserver_request_terminations_total{code="503",component="aggregator",group="proxy-ext.example.com",resource="some",scope="resource",subresource="",verb="GET",version="v1"} 1`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("terminations (-want +got):\n%s", diff)
	}
}

// A backend that cannot be reached, and a backend that redirects, are
// answered as kube-apiserver answers them.
func TestUnreachableAndRedirectingBackends(t *testing.T) {
	rec := loadRecording(t)
	f := newFixture(t)
	checkAnswer(t, "redirect", f.do("GET", "/apis/proxy-ext.example.com/v1/redirect", nil, ""), rec.Redirect)
	addr := f.backend.Addr
	f.backend.Close()
	_, port, _ := net.SplitHostPort(addr)
	checkAnswer(t, "unreachable", f.do("GET", "/apis/proxy-ext.example.com/v1/foos", nil, ""), rec.Unreachable, "127.0.0.1:18443", "127.0.0.1:"+port)
}

// The backend's certificate is verified with the caBundle for the
// Service's DNS name; insecureSkipTLSVerify skips that; a caBundle that
// holds no certificate is client-go's error, a 500.
func TestTLSIsVerifiedWithTheCABundleForTheServiceName(t *testing.T) {
	f := newFixture(t)
	other := testpki.NewCA(t, "other")
	wrong := f.apiService.DeepCopy()
	wrong.Spec.CABundle = other.PEM
	f.handler.Update(wrong)
	resp := f.do("GET", "/apis/proxy-ext.example.com/v1/foos", nil, "")
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), "x509: certificate signed by unknown authority") {
		t.Errorf("another CA: %d %s", resp.StatusCode, body)
	}

	// Another Service name: the certificate is not for it.
	renamed := f.apiService.DeepCopy()
	renamed.Spec.Service.Name = "renamed"
	f.services["renamed"] = f.services[service]
	f.handler.Update(renamed)
	resp = f.do("GET", "/apis/proxy-ext.example.com/v1/foos", nil, "")
	body, _ = io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), "not renamed.proxy-rec.svc") {
		t.Errorf("another name: %d %s", resp.StatusCode, body)
	}

	insecure := renamed.DeepCopy()
	insecure.Spec.CABundle, insecure.Spec.InsecureSkipTLSVerify = nil, true
	f.handler.Update(insecure)
	if resp := f.do("GET", "/apis/proxy-ext.example.com/v1/foos", nil, ""); resp.StatusCode != http.StatusOK {
		t.Errorf("insecureSkipTLSVerify: %d", resp.StatusCode)
	}

	garbage := f.apiService.DeepCopy()
	garbage.Spec.CABundle = []byte("not a certificate")
	f.handler.Update(garbage)
	checkAnswer(t, "bad caBundle", f.do("GET", "/apis/proxy-ext.example.com/v1/foos", nil, ""),
		answer{Code: 500, Body: "unable to load root certificates: unable to parse bytes as PEM block\n"})
}

// When the files of the client certificate change, the next connections
// present the new certificate; a pair that does not load is refused and
// the one in force kept.
func TestTheClientCertificateIsReloaded(t *testing.T) {
	f := newFixture(t)
	peers := func() []string {
		f.do("GET", "/apis/proxy-ext.example.com/v1/foos", nil, "")
		got := f.backend.RequestsFor("/apis/proxy-ext.example.com/v1/foos")
		return got[len(got)-1].Peers
	}
	if got := peers(); !cmp.Equal(got, []string{"CN=front-proxy-client"}) {
		t.Fatalf("peers %v", got)
	}
	f.writeClientCert("front-proxy-client-2")
	if changed, err := f.cert.Reload(); !changed || err != nil {
		t.Fatalf("reload: %v %v", changed, err)
	}
	if got := peers(); !cmp.Equal(got, []string{"CN=front-proxy-client-2"}) {
		t.Errorf("after the files changed, peers %v", got)
	}
	if err := os.WriteFile(f.keyFile, []byte("half a key"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := f.cert.Reload(); err == nil {
		t.Errorf("a broken key was accepted")
	}
	if got := peers(); !cmp.Equal(got, []string{"CN=front-proxy-client-2"}) {
		t.Errorf("after a broken key, peers %v", got)
	}

	// Run reloads by itself.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go f.cert.Run(ctx, 10*time.Millisecond)
	f.writeClientCert("front-proxy-client-3")
	deadline := time.Now().Add(10 * time.Second)
	for f.cert.Certificate().Leaf == nil || f.cert.Certificate().Leaf.Subject.CommonName != "front-proxy-client-3" {
		if time.Now().After(deadline) {
			t.Fatalf("the new files were not loaded")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A watch reaches the client event by event: the backend sends its
// second event only once the client has read the first.
func TestAWatchIsStreamed(t *testing.T) {
	f := newFixture(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", f.front.URL+"/apis/proxy-ext.example.com/v1/namespaces/a/foos?watch=true", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	r := bufio.NewReader(resp.Body)
	first, err := r.ReadString('\n')
	if err != nil || !strings.Contains(first, `"ADDED"`) {
		t.Fatalf("first event %q, %v (a buffered watch stalls until the deadline)", first, err)
	}
	f.backend.Release()
	second, err := r.ReadString('\n')
	if err != nil || !strings.Contains(second, `"MODIFIED"`) {
		t.Fatalf("second event %q, %v", second, err)
	}
}

// An upgrade (exec's SPDY, or a websocket) is passed through to the
// backend, with the user's headers and the client certificate, and the
// connection then carries bytes both ways.
func TestAnUpgradeIsPassedThrough(t *testing.T) {
	for _, protocol := range []string{"SPDY/3.1", "websocket"} {
		t.Run(protocol, func(t *testing.T) {
			f := newFixture(t)
			u, _ := url.Parse(f.front.URL)
			conn, err := net.Dial("tcp", u.Host)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
			fmt.Fprintf(conn, "POST /apis/proxy-ext.example.com/v1/namespaces/a/foos/x/exec?command=sh HTTP/1.1\r\nHost: %s\r\nConnection: Upgrade\r\nUpgrade: %s\r\n\r\n", u.Host, protocol)
			r := bufio.NewReader(conn)
			resp, err := http.ReadResponse(r, nil)
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != http.StatusSwitchingProtocols || resp.Header.Get("Upgrade") != protocol {
				t.Fatalf("upgrade answered %s %v", resp.Status, resp.Header)
			}
			fmt.Fprintf(conn, "hello\n")
			line, err := r.ReadString('\n')
			if err != nil || line != "echo: hello\n" {
				t.Fatalf("read %q, %v", line, err)
			}
			got := f.backend.RequestsFor("/apis/proxy-ext.example.com/v1/namespaces/a/foos/x/exec")
			if len(got) != 1 {
				t.Fatalf("the backend received %d upgrades", len(got))
			}
			if got[0].Header.Get("X-Remote-User") != "kubernetes-admin" || !cmp.Equal(got[0].Header["X-Remote-Group"], []string{"system:masters", "system:authenticated"}) ||
				!cmp.Equal(got[0].Peers, []string{"CN=front-proxy-client"}) || got[0].SNI != "ext.proxy-rec.svc" || got[0].Header.Get("Audit-Id") != "audit-1" {
				t.Errorf("the upgrade arrived as %+v", got[0])
			}
		})
	}
}

// A local APIService's requests go to the delegate; a request without a
// user (which the filters never let through) is refused.
func TestLocalAPIServicesAndMissingUsers(t *testing.T) {
	f := newFixture(t)
	local := f.apiService.DeepCopy()
	local.Spec.Service = nil
	f.handler.Update(local)
	checkAnswer(t, "local", f.do("GET", "/apis/proxy-ext.example.com/v1/foos", nil, ""), answer{Code: http.StatusTeapot, Body: "delegated\n"})
	f.handler.Update(f.apiService)
	f.user = nil
	checkAnswer(t, "no user", f.do("GET", "/apis/proxy-ext.example.com/v1/foos", nil, ""), answer{Code: 500, Body: "missing user\n"})
}

// Only /apis/<group>/<version> itself is a discovery request, which gets
// kube-apiserver's five seconds.
func TestDiscoveryRequests(t *testing.T) {
	infos := request.NewRequestInfoFactory()
	for path, want := range map[string]bool{
		"/apis/g.example.com/v1":            true,
		"/apis/g.example.com/v1/":           true,
		"/apis/g.example.com/v1/foos":       false,
		"/apis/g.example.com/v1/x/y":        false,
		"/apis/g.example.com":               false,
		"/apis/g.example.com/v1/namespaces": false,
	} {
		req := httptest.NewRequest("GET", path, nil)
		info, err := infos.NewRequestInfo(req)
		if err != nil {
			t.Fatal(err)
		}
		if got := isDiscovery(req.WithContext(request.WithRequestInfo(req.Context(), info))); got != want {
			t.Errorf("%s: discovery %v, want %v", path, got, want)
		}
	}
}

// Handlers keeps one handler an APIService, updated in place.
func TestHandlersKeepOneHandlerPerAPIService(t *testing.T) {
	f := newFixture(t)
	hs := NewHandlers(f.config)
	a := hs.Handler(f.apiService)
	unavailable := f.apiService.DeepCopy()
	unavailable.Status.Conditions = nil
	if b := hs.Handler(unavailable); b != a {
		t.Errorf("a new handler for the same APIService")
	}
	if a.(*Handler).info.Load().available {
		t.Errorf("the handler was not updated")
	}
	hs.Remove(f.apiService.Name)
	if c := hs.Handler(f.apiService); c == a {
		t.Errorf("the handler of a removed APIService came back")
	}
}
