package availability

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/listers"
	"k8s.io/client-go/tools/cache"
	fcache "k8s.io/client-go/tools/cache/testing"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/kapi-dev/kapi/internal/apiservicetest"
	"github.com/kapi-dev/kapi/internal/testpki"
	"github.com/kapi-dev/kapi/pkg/aggregator/proxy"
	"github.com/kapi-dev/kapi/pkg/serviceresolver"
)

// recording is testdata/oracle-conditions.yaml.
type recording struct {
	Cases []recordedCase
	Local struct{ Condition recordedCondition }
	Probe struct {
		Method  string
		Headers http.Header
	}
	Metrics string
}

type recordedCase struct {
	Name    string
	Routing bool
	Service struct {
		Name string
		Port int32
	}
	Objects []struct {
		Kind, Name, ExternalName, Service string
		Ports                             []struct {
			Name string
			Port int32
		}
		Port struct {
			Name string
			Port int32
		}
		Endpoints []struct {
			Address string
			Ready   *bool
		}
	}
	Backend *struct {
		Address     string
		ProbeStatus int
		Stopped     bool
	}
	Condition recordedCondition
}

type recordedCondition struct{ Status, Reason, Message string }

func loadRecording(t *testing.T) recording {
	t.Helper()
	data, err := os.ReadFile("testdata/oracle-conditions.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var r recording
	if err := yaml.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

const namespace = "proxy-rec"

// world is an APIService informer, Service and EndpointSlice informers,
// and a status writer that stores what it writes in the APIService
// informer's cache, as the apiserver and the informer would.
type world struct {
	apiServices, services, slices cache.SharedIndexInformer
	lister                        Lister
	writer                        *recordingWriter
	frontProxy                    *testpki.CA
	cert                          *proxy.ClientCert
	metrics                       *Metrics
}

// recordingWriter stores the statuses written.
type recordingWriter struct {
	indexer cache.Indexer
	mu      sync.Mutex
	writes  []*apiregistrationv1.APIService
	// source, if set, is told of each write (a running informer's).
	source *fcache.FakeControllerSource
}

func (w *recordingWriter) UpdateStatus(_ context.Context, a *apiregistrationv1.APIService, _ metav1.UpdateOptions) (*apiregistrationv1.APIService, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	a = a.DeepCopy()
	w.writes = append(w.writes, a)
	if w.source != nil {
		w.source.Modify(a)
	} else if err := w.indexer.Update(a); err != nil {
		return nil, err
	}
	return a, nil
}

func (w *recordingWriter) written() []*apiregistrationv1.APIService {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]*apiregistrationv1.APIService(nil), w.writes...)
}

func newInformer(lw cache.ListerWatcher, obj runtime.Object) cache.SharedIndexInformer {
	if lw == nil {
		lw = fcache.NewFakeControllerSource()
	}
	return cache.NewSharedIndexInformer(lw, obj, 0, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
}

func newWorld(t *testing.T) *world {
	w := &world{
		apiServices: newInformer(nil, &apiregistrationv1.APIService{}),
		services:    newInformer(nil, &corev1.Service{}),
		slices:      newInformer(nil, &discoveryv1.EndpointSlice{}),
		frontProxy:  testpki.NewCA(t, "front-proxy-ca"),
		metrics:     NewMetrics(),
	}
	w.lister = listers.New[*apiregistrationv1.APIService](w.apiServices.GetIndexer(), apiregistrationv1.Resource("apiservice"))
	w.writer = &recordingWriter{indexer: w.apiServices.GetIndexer()}
	dir := t.TempDir()
	certPEM, keyPEM := w.frontProxy.Client(t, "front-proxy-client")
	certFile, keyFile := filepath.Join(dir, "c.crt"), filepath.Join(dir, "c.key")
	if err := os.WriteFile(certFile, certPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, keyPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	var err error
	if w.cert, err = proxy.NewClientCert(certFile, keyFile, nil); err != nil {
		t.Fatal(err)
	}
	return w
}

func (w *world) resolver(routing bool) serviceresolver.Resolver {
	get := func(namespace, name string) (*corev1.Service, error) {
		obj, ok, err := w.services.GetIndexer().GetByKey(namespace + "/" + name)
		if err != nil || !ok {
			return nil, apierrors.NewNotFound(corev1.Resource("service"), name)
		}
		return obj.(*corev1.Service), nil
	}
	if !routing {
		return &serviceresolver.ClusterIP{Services: get}
	}
	return &serviceresolver.Endpoints{Services: get, Slices: func(namespace, service string) ([]*discoveryv1.EndpointSlice, error) {
		var out []*discoveryv1.EndpointSlice
		for _, o := range w.slices.GetIndexer().List() {
			if s := o.(*discoveryv1.EndpointSlice); s.Namespace == namespace && s.Labels[discoveryv1.LabelServiceName] == service {
				out = append(out, s)
			}
		}
		return out, nil
	}}
}

func (w *world) remote(t *testing.T, routing bool) *Remote {
	r, err := NewRemote(RemoteConfig{APIServices: w.apiServices, Lister: w.lister, Services: w.services, EndpointSlices: w.slices,
		Writer: w.writer, Resolver: w.resolver(routing), Transports: proxy.NewTransports(w.cert), Metrics: w.metrics})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func apiService(group string, svc string, port int32, caBundle []byte) *apiregistrationv1.APIService {
	return &apiregistrationv1.APIService{ObjectMeta: metav1.ObjectMeta{Name: "v1." + group, ResourceVersion: "1"},
		Spec: apiregistrationv1.APIServiceSpec{Group: group, Version: "v1", CABundle: caBundle, GroupPriorityMinimum: 100, VersionPriority: 10,
			Service: &apiregistrationv1.ServiceReference{Namespace: namespace, Name: svc, Port: ptr.To(port)}}}
}

// Each check fails with kube-apiserver's reason and message, or passes,
// as kube-apiserver decided for the same objects
// (testdata/oracle-conditions.yaml), with --enable-aggregator-routing off
// and on.
func TestRemoteConditionsAsKubeAPIServer(t *testing.T) {
	rec := loadRecording(t)
	for i, c := range rec.Cases {
		t.Run(strconv.Itoa(i)+"-"+c.Name, func(t *testing.T) {
			w := newWorld(t)
			port := c.Service.Port
			var caBundle []byte
			replace := map[string]string{}
			if c.Backend != nil {
				group := "proxy-" + c.Name + ".example.com"
				b := apiservicetest.Start(t, apiservicetest.Options{Group: group, Version: "v1",
					DNSNames: []string{c.Service.Name + "." + namespace + ".svc"}, ClientCAs: w.frontProxy.Pool})
				b.SetDiscoveryStatus(c.Backend.ProbeStatus)
				caBundle = b.CABundle
				host, p, _ := net.SplitHostPort(b.Addr)
				n, _ := strconv.Atoi(p)
				recHost, _, _ := net.SplitHostPort(c.Backend.Address)
				if recHost == "localhost" {
					// An ExternalName Service: the APIService's port.
					port = int32(n)
					host = "localhost"
				}
				replace["BACKEND"] = net.JoinHostPort(host, p)
				replace["PORT"] = p
				for k := range c.Objects {
					o := &c.Objects[k]
					for j := range o.Ports {
						if recHost == "localhost" {
							o.Ports[j].Port = int32(n)
						}
					}
					if o.Kind == "EndpointSlice" {
						o.Port.Port = int32(n)
						for j := range o.Endpoints {
							o.Endpoints[j].Address = "127.0.0.1"
						}
					}
				}
				if c.Backend.Stopped {
					b.Close()
				}
			}
			for _, o := range c.Objects {
				switch o.Kind {
				case "Service":
					s := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: o.Name}, Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, ClusterIP: "10.96.0.10"}}
					if o.ExternalName != "" {
						s.Spec = corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: o.ExternalName}
					}
					for _, p := range o.Ports {
						s.Spec.Ports = append(s.Spec.Ports, corev1.ServicePort{Name: p.Name, Port: p.Port})
					}
					if err := w.services.GetIndexer().Add(s); err != nil {
						t.Fatal(err)
					}
				case "EndpointSlice":
					s := &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: o.Name, Labels: map[string]string{discoveryv1.LabelServiceName: o.Service}},
						AddressType: discoveryv1.AddressTypeIPv4, Ports: []discoveryv1.EndpointPort{{Name: ptr.To(o.Port.Name), Port: ptr.To(o.Port.Port)}}}
					for _, e := range o.Endpoints {
						s.Endpoints = append(s.Endpoints, discoveryv1.Endpoint{Addresses: []string{e.Address}, Conditions: discoveryv1.EndpointConditions{Ready: e.Ready}})
					}
					if err := w.slices.GetIndexer().Add(s); err != nil {
						t.Fatal(err)
					}
				}
			}
			a := apiService("proxy-"+c.Name+".example.com", c.Service.Name, port, caBundle)
			if err := w.apiServices.GetIndexer().Add(a); err != nil {
				t.Fatal(err)
			}
			err := w.remote(t, c.Routing).sync(context.Background(), a.Name)
			if (err != nil) != (c.Condition.Reason == "FailedDiscoveryCheck") {
				t.Errorf("sync: %v", err)
			}
			writes := w.writer.written()
			if len(writes) != 1 {
				t.Fatalf("%d statuses written, want 1", len(writes))
			}
			got := writes[0].Status.Conditions
			want := c.Condition
			for k, v := range replace {
				want.Message = strings.ReplaceAll(want.Message, k, v)
			}
			if len(got) != 1 || got[0].Type != apiregistrationv1.Available || string(got[0].Status) != want.Status ||
				got[0].Reason != want.Reason || got[0].Message != want.Message || got[0].LastTransitionTime.IsZero() {
				t.Errorf("conditions %+v,\nwant Available %s %s %q", got, want.Status, want.Reason, want.Message)
			}
		})
	}
}

// The discovery check is the GET kube-apiserver sends, with its headers
// only, over HTTP/2, with the front-proxy client certificate and the
// Service's name.
func TestTheDiscoveryCheckIsKubeAPIServers(t *testing.T) {
	rec := loadRecording(t)
	w := newWorld(t)
	b := apiservicetest.Start(t, apiservicetest.Options{Group: "proxy-ext.example.com", Version: "v1",
		DNSNames: []string{"ext.proxy-rec.svc"}, ClientCAs: w.frontProxy.Pool})
	_, p, _ := net.SplitHostPort(b.Addr)
	n, _ := strconv.Atoi(p)
	if err := w.services.GetIndexer().Add(&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "ext"},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "localhost", Ports: []corev1.ServicePort{{Name: "https", Port: int32(n)}}}}); err != nil {
		t.Fatal(err)
	}
	a := apiService("proxy-ext.example.com", "ext", int32(n), b.CABundle)
	if err := w.apiServices.GetIndexer().Add(a); err != nil {
		t.Fatal(err)
	}
	if err := w.remote(t, false).sync(context.Background(), a.Name); err != nil {
		t.Fatal(err)
	}
	probes := b.Requests()
	if len(probes) == 0 {
		t.Fatal("no probe reached the backend")
	}
	for _, got := range probes {
		if got.Method != rec.Probe.Method || got.URI != "/apis/proxy-ext.example.com/v1" || got.Proto != "HTTP/2.0" ||
			got.SNI != "ext.proxy-rec.svc" || !cmp.Equal(got.Peers, []string{"CN=front-proxy-client"}) {
			t.Errorf("probe %s %s %s SNI %s peers %v", got.Method, got.URI, got.Proto, got.SNI, got.Peers)
		}
		if diff := cmp.Diff(rec.Probe.Headers, got.Header); diff != "" {
			t.Errorf("probe headers (-kube-apiserver +kapi):\n%s", diff)
		}
	}
}

// A local APIService is Available, reason Local. A status written over
// it is put back, its other conditions kept; lastTransitionTime changes
// only with the status; nothing is written when nothing changes; a
// remote APIService is not the local controller's business.
func TestLocalAPIServicesAreAlwaysAvailable(t *testing.T) {
	rec := loadRecording(t)
	w := newWorld(t)
	l, err := NewLocal(w.apiServices, w.lister, w.writer, w.metrics, nil)
	if err != nil {
		t.Fatal(err)
	}
	old := metav1.NewTime(time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC))
	other := apiregistrationv1.APIServiceCondition{Type: "Other", Status: apiregistrationv1.ConditionTrue, Reason: "X", Message: "y", LastTransitionTime: old}
	a := &apiregistrationv1.APIService{ObjectMeta: metav1.ObjectMeta{Name: "v1.proxy-local.example.com"},
		Spec: apiregistrationv1.APIServiceSpec{Group: "proxy-local.example.com", Version: "v1"},
		Status: apiregistrationv1.APIServiceStatus{Conditions: []apiregistrationv1.APIServiceCondition{
			{Type: apiregistrationv1.Available, Status: apiregistrationv1.ConditionFalse, Reason: "Mine", Message: "hi", LastTransitionTime: old}, other}}}
	remote := apiService("proxy-remote.example.com", "svc", 443, nil)
	for _, o := range []*apiregistrationv1.APIService{a, remote} {
		if err := w.apiServices.GetIndexer().Add(o); err != nil {
			t.Fatal(err)
		}
	}
	want := rec.Local.Condition
	check := func(what string, wantTransition bool) {
		t.Helper()
		got, _ := w.lister.Get(a.Name)
		c := got.Status.Conditions
		if len(c) != 2 || c[0].Type != apiregistrationv1.Available || string(c[0].Status) != want.Status || c[0].Reason != want.Reason || c[0].Message != want.Message || c[1] != other {
			t.Errorf("%s: conditions %+v", what, c)
		}
		if moved := !c[0].LastTransitionTime.Equal(&old); moved != wantTransition {
			t.Errorf("%s: lastTransitionTime %v (was %v)", what, c[0].LastTransitionTime, old)
		}
	}
	for _, name := range []string{a.Name, remote.Name, "v1.gone.example.com"} {
		if err := l.sync(context.Background(), name); err != nil {
			t.Fatal(err)
		}
	}
	check("False put back", true)
	if n := len(w.writer.written()); n != 1 {
		t.Errorf("%d writes, want 1 (the remote APIService is not written)", n)
	}

	// True with another reason: the reason is put back, the time kept.
	a2, _ := w.lister.Get(a.Name)
	a2 = a2.DeepCopy()
	a2.Status.Conditions[0].Reason, a2.Status.Conditions[0].LastTransitionTime = "Mine", old
	if err := w.apiServices.GetIndexer().Update(a2); err != nil {
		t.Fatal(err)
	}
	if err := l.sync(context.Background(), a.Name); err != nil {
		t.Fatal(err)
	}
	check("True with another reason", false)
	if err := l.sync(context.Background(), a.Name); err != nil {
		t.Fatal(err)
	}
	if n := len(w.writer.written()); n != 2 {
		t.Errorf("%d writes, want 2: nothing changed the third time", n)
	}
}

// The metrics are kube-apiserver's: the gauge says which APIServices are
// unavailable; the counter counts their changes from Available to not,
// by reason, and not an APIService that was never Available.
func TestMetricsAsKubeAPIServer(t *testing.T) {
	rec := loadRecording(t)
	w := newWorld(t)
	local := &apiregistrationv1.APIService{ObjectMeta: metav1.ObjectMeta{Name: "v1.apps"}, Spec: apiregistrationv1.APIServiceSpec{Group: "apps", Version: "v1"}}
	noeps := apiService("proxy-noeps.example.com", "noeps", 443, nil)
	ext := apiService("proxy-ext.example.com", "ext", 18443, nil)
	for _, o := range []*apiregistrationv1.APIService{local, noeps, ext} {
		if err := w.apiServices.GetIndexer().Add(o); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.services.GetIndexer().Add(&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "noeps"},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, ClusterIP: "10.96.0.10", Ports: []corev1.ServicePort{{Name: "https", Port: 443}}}}); err != nil {
		t.Fatal(err)
	}
	l, err := NewLocal(w.apiServices, w.lister, w.writer, w.metrics, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := w.remote(t, false)
	ctx := context.Background()
	for _, s := range []func(context.Context, string) error{l.sync, r.sync} {
		for _, n := range []string{local.Name, noeps.Name} {
			if err := s(ctx, n); err != nil {
				t.Fatal(err)
			}
		}
	}
	// ext goes from Available to not, twice, as on the oracle.
	for range 2 {
		up, _ := w.lister.Get(ext.Name)
		up = up.DeepCopy()
		up.Status.Conditions = []apiregistrationv1.APIServiceCondition{{Type: apiregistrationv1.Available, Status: apiregistrationv1.ConditionTrue, Reason: "Passed"}}
		if err := w.apiServices.GetIndexer().Update(up); err != nil {
			t.Fatal(err)
		}
		down := up.DeepCopy()
		setCondition(down, apiregistrationv1.APIServiceCondition{Type: apiregistrationv1.Available, Status: apiregistrationv1.ConditionFalse, Reason: "FailedDiscoveryCheck"})
		if err := r.c.writeStatus(ctx, up, down); err != nil {
			t.Fatal(err)
		}
	}
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(w.metrics.Collectors()...)
	if diff := cmp.Diff(strings.Split(strings.TrimSpace(rec.Metrics), "\n"), exposition(t, reg)); diff != "" {
		t.Errorf("/metrics (-kube-apiserver +kapi):\n%s", diff)
	}
	// An APIService that is gone leaves the gauge.
	if err := w.apiServices.GetIndexer().Delete(noeps); err != nil {
		t.Fatal(err)
	}
	if err := r.sync(ctx, noeps.Name); err != nil {
		t.Fatal(err)
	}
	for _, l := range exposition(t, reg) {
		if strings.Contains(l, "noeps") {
			t.Errorf("after the deletion: %s", l)
		}
	}
}

// exposition is the text /metrics shows of reg.
func exposition(t *testing.T, reg prometheus.Gatherer) []string {
	t.Helper()
	rr := httptest.NewRecorder()
	promhttp.HandlerFor(reg, promhttp.HandlerOpts{}).ServeHTTP(rr, httptest.NewRequest("GET", "/metrics", nil))
	return strings.Split(strings.TrimSpace(rr.Body.String()), "\n")
}

// Running, the controllers react to the changes of the APIServices, the
// Service and its EndpointSlices: an APIService goes through each
// failure as its Service appears and gets a ready endpoint, until its
// discovery check passes; a local one is Available.
func TestTheControllersFollowTheirObjects(t *testing.T) {
	w := newWorld(t)
	apiServices, services, slices := fcache.NewFakeControllerSource(), fcache.NewFakeControllerSource(), fcache.NewFakeControllerSource()
	w.apiServices, w.services, w.slices = newInformer(apiServices, &apiregistrationv1.APIService{}), newInformer(services, &corev1.Service{}), newInformer(slices, &discoveryv1.EndpointSlice{})
	w.lister = listers.New[*apiregistrationv1.APIService](w.apiServices.GetIndexer(), apiregistrationv1.Resource("apiservice"))
	w.writer = &recordingWriter{source: apiServices}
	r := w.remote(t, true)
	l, err := NewLocal(w.apiServices, w.lister, w.writer, w.metrics, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, inf := range []cache.SharedIndexInformer{w.apiServices, w.services, w.slices} {
		go inf.RunWithContext(ctx)
	}
	go r.Run(ctx, 2)
	go l.Run(ctx, 2)

	b := apiservicetest.Start(t, apiservicetest.Options{Group: "proxy-ep.example.com", Version: "v1",
		DNSNames: []string{"ep.proxy-rec.svc"}, ClientCAs: w.frontProxy.Pool})
	_, p, _ := net.SplitHostPort(b.Addr)
	n, _ := strconv.Atoi(p)
	apiServices.Add(apiService("proxy-ep.example.com", "ep", 443, b.CABundle))
	apiServices.Add(&apiregistrationv1.APIService{ObjectMeta: metav1.ObjectMeta{Name: "v1.proxy-local.example.com"},
		Spec: apiregistrationv1.APIServiceSpec{Group: "proxy-local.example.com", Version: "v1"}})
	waitFor := func(name, reason string) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for {
			a, err := w.lister.Get(name)
			if err == nil {
				if c := condition(a, apiregistrationv1.Available); c != nil && c.Reason == reason {
					return
				}
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s never became %s: %+v", name, reason, a)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	waitFor("v1.proxy-local.example.com", ReasonLocal)
	waitFor("v1.proxy-ep.example.com", "ServiceNotFound")
	services.Add(&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "ep"},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, ClusterIP: "10.96.0.10", Ports: []corev1.ServicePort{{Name: "https", Port: 443}}}})
	waitFor("v1.proxy-ep.example.com", "EndpointsNotFound")
	slice := &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "ep-1", Labels: map[string]string{discoveryv1.LabelServiceName: "ep"}},
		AddressType: discoveryv1.AddressTypeIPv4, Ports: []discoveryv1.EndpointPort{{Name: ptr.To("https"), Port: ptr.To(int32(n))}},
		Endpoints: []discoveryv1.Endpoint{{Addresses: []string{"127.0.0.1"}, Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(false)}}}}
	slices.Add(slice)
	waitFor("v1.proxy-ep.example.com", "MissingEndpoints")
	slice = slice.DeepCopy()
	slice.Endpoints[0].Conditions.Ready = ptr.To(true)
	slices.Modify(slice)
	waitFor("v1.proxy-ep.example.com", "Passed")
	services.Delete(&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "ep"}})
	waitFor("v1.proxy-ep.example.com", "ServiceNotFound")
}
