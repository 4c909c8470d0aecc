package discovery

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/pkg/endpoints/discovery"
)

const acceptAggregated = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"

// wardle is the aggregated discovery document of a remote server serving
// wardle.example.com v1alpha1 (flunders, fischers) and v1beta1, as
// sample-apiserver publishes it.
func wardle() *apidiscoveryv2.APIGroupDiscoveryList {
	gvk := func(v, k string) *metav1.GroupVersionKind {
		return &metav1.GroupVersionKind{Group: "wardle.example.com", Version: v, Kind: k}
	}
	return &apidiscoveryv2.APIGroupDiscoveryList{
		TypeMeta: metav1.TypeMeta{Kind: "APIGroupDiscoveryList", APIVersion: "apidiscovery.k8s.io/v2"},
		Items: []apidiscoveryv2.APIGroupDiscovery{{
			ObjectMeta: metav1.ObjectMeta{Name: "wardle.example.com"},
			Versions: []apidiscoveryv2.APIVersionDiscovery{{
				Version: "v1beta1",
				Resources: []apidiscoveryv2.APIResourceDiscovery{{
					Resource: "flunders", ResponseKind: gvk("v1beta1", "Flunder"), Scope: apidiscoveryv2.ScopeNamespace,
					SingularResource: "flunder", Verbs: []string{"get", "list"},
				}},
				Freshness: apidiscoveryv2.DiscoveryFreshnessCurrent,
			}, {
				Version: "v1alpha1",
				Resources: []apidiscoveryv2.APIResourceDiscovery{{
					Resource: "fischers", ResponseKind: gvk("v1alpha1", "Fischer"), Scope: apidiscoveryv2.ScopeCluster,
					SingularResource: "fischer", Verbs: []string{"get", "list"},
				}, {
					Resource: "flunders", ResponseKind: gvk("v1alpha1", "Flunder"), Scope: apidiscoveryv2.ScopeNamespace,
					SingularResource: "flunder", Verbs: []string{"create", "get", "list"},
					// Without a responseKind, as old servers publish it.
					Subresources: []apidiscoveryv2.APISubresourceDiscovery{{Subresource: "status", Verbs: []string{"get"}}},
				}},
				Freshness: apidiscoveryv2.DiscoveryFreshnessCurrent,
			}},
		}},
	}
}

// backend is a remote server: its handler can be swapped while it runs;
// it counts the requests by path.
type backend struct {
	server  *httptest.Server
	handler atomic.Pointer[http.HandlerFunc]

	mu       sync.Mutex
	requests map[string]int
	seen     []http.Header
}

func newBackend(t *testing.T, h http.HandlerFunc) *backend {
	b := &backend{requests: map[string]int{}}
	b.handler.Store(&h)
	b.server = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b.mu.Lock()
		b.requests[r.URL.Path]++
		b.seen = append(b.seen, r.Header.Clone())
		b.mu.Unlock()
		(*b.handler.Load())(w, r)
	}))
	t.Cleanup(b.server.Close)
	return b
}

func (b *backend) set(h http.HandlerFunc) { b.handler.Store(&h) }

func (b *backend) count(path string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.requests[path]
}

// serveAggregated answers /apis with doc in apidiscovery.k8s.io/v2, with
// an ETag, and 304 to a request that has it.
func serveAggregated(doc *apidiscoveryv2.APIGroupDiscoveryList, etag string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/apis" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", acceptAggregated)
		w.Header().Set("ETag", etag)
		if r.Header.Get("If-None-Match") == etag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		_ = json.NewEncoder(w).Encode(doc)
	}
}

// transport reaches the backends by service name; a service with no
// backend cannot be resolved, as a missing Service.
type transport map[string]*backend

func (t transport) reach(a *apiregistrationv1.APIService) (http.RoundTripper, *url.URL, error) {
	b, ok := t[a.Spec.Service.Name]
	if !ok {
		return nil, nil, fmt.Errorf("service/%s in %q is not present", a.Spec.Service.Name, a.Spec.Service.Namespace)
	}
	u, _ := url.Parse(b.server.URL)
	return b.server.Client().Transport, u, nil
}

func apiService(group, version, service string, groupPriority, versionPriority int32) *apiregistrationv1.APIService {
	return &apiregistrationv1.APIService{
		ObjectMeta: metav1.ObjectMeta{Name: version + "." + group},
		Spec: apiregistrationv1.APIServiceSpec{
			Group: group, Version: version,
			Service:              &apiregistrationv1.ServiceReference{Namespace: "wardle", Name: service, Port: ptr.To[int32](443)},
			GroupPriorityMinimum: groupPriority, VersionPriority: versionPriority,
		},
	}
}

type fixture struct {
	registry *discovery.Registry
	handler  *discovery.Handler
	manager  *Manager
}

// start runs a manager with the APIServices known at start and waits
// until it has synced them.
func start(t *testing.T, backends transport, refresh time.Duration, known ...*apiregistrationv1.APIService) *fixture {
	t.Helper()
	f := &fixture{registry: discovery.NewRegistry()}
	f.handler = &discovery.Handler{Registry: f.registry}
	f.manager = New(Config{Registry: f.registry, Transport: backends.reach, RefreshInterval: refresh, Timeout: 10 * time.Second})
	for _, a := range known {
		f.manager.AddAPIService(a)
	}
	ctx, cancel := context.WithCancel(context.Background())
	synced := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		f.manager.Run(ctx, 2, func() { close(synced) })
	}()
	t.Cleanup(func() { cancel(); <-done })
	select {
	case <-synced:
	case <-time.After(30 * time.Second):
		t.Fatal("the manager did not sync the known APIServices")
	}
	return f
}

func (f *fixture) get(t *testing.T, path, accept string) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest(http.MethodGet, path, nil)
	if accept != "" {
		r.Header.Set("Accept", accept)
	}
	w := httptest.NewRecorder()
	switch path {
	case "/apis":
		f.handler.ServeGroups(w, r)
	default:
		if !f.handler.ServeGroup(w, r, path[len("/apis/"):]) {
			http.NotFound(w, r)
		}
	}
	return w
}

// aggregated returns the aggregated entry of a group, nil if not listed.
func (f *fixture) aggregated(t *testing.T, group string) *apidiscoveryv2.APIGroupDiscovery {
	t.Helper()
	var list apidiscoveryv2.APIGroupDiscoveryList
	if err := json.Unmarshal(f.get(t, "/apis", acceptAggregated).Body.Bytes(), &list); err != nil {
		t.Fatal(err)
	}
	for _, g := range list.Items {
		if g.Name == group {
			return &g
		}
	}
	return nil
}

func (f *fixture) legacyGroups(t *testing.T) []metav1.APIGroup {
	t.Helper()
	var list metav1.APIGroupList
	if err := json.Unmarshal(f.get(t, "/apis", "").Body.Bytes(), &list); err != nil {
		t.Fatal(err)
	}
	return list.Groups
}

// eventually polls cond until it holds, failing after a deadline.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestRemoteGroupInDiscovery: the group versions of remote APIServices are
// in /apis and /apis/<group>, ordered by the APIServices' priorities, and
// their aggregated entries are the remote server's, fetched as
// system:kube-aggregator.
func TestRemoteGroupInDiscovery(t *testing.T) {
	b := newBackend(t, serveAggregated(wardle(), `"one"`))
	f := start(t, transport{"api": b}, time.Hour,
		apiService("wardle.example.com", "v1alpha1", "api", 2000, 10),
		apiService("wardle.example.com", "v1beta1", "api", 2000, 20))

	version := func(v string) metav1.GroupVersionForDiscovery {
		return metav1.GroupVersionForDiscovery{GroupVersion: "wardle.example.com/" + v, Version: v}
	}
	want := metav1.APIGroup{
		Name:             "wardle.example.com",
		Versions:         []metav1.GroupVersionForDiscovery{version("v1beta1"), version("v1alpha1")},
		PreferredVersion: version("v1beta1"),
	}
	if groups := f.legacyGroups(t); len(groups) != 1 || !reflect.DeepEqual(groups[0], want) {
		t.Errorf("/apis groups = %+v, want %+v", groups, want)
	}
	var group metav1.APIGroup
	if err := json.Unmarshal(f.get(t, "/apis/wardle.example.com", "").Body.Bytes(), &group); err != nil {
		t.Fatal(err)
	}
	if group.Kind != "APIGroup" || group.Name != want.Name || !reflect.DeepEqual(group.Versions, want.Versions) {
		t.Errorf("/apis/wardle.example.com = %+v", group)
	}

	got := f.aggregated(t, "wardle.example.com")
	wantVersions := wardle().Items[0].Versions
	// A subresource without a responseKind gets an empty one.
	wantVersions[1].Resources[1].Subresources[0].ResponseKind = &metav1.GroupVersionKind{}
	if got == nil || !reflect.DeepEqual(got.Versions, wantVersions) {
		t.Errorf("aggregated wardle.example.com = %+v\nwant versions %+v", got, wantVersions)
	}
	// Both APIServices are served by one fetch of the service's /apis.
	if n := b.count("/apis"); n != 1 {
		t.Errorf("the service's /apis was fetched %d times for two APIServices, want 1", n)
	}
	b.mu.Lock()
	h := b.seen[0]
	b.mu.Unlock()
	if h.Get("X-Remote-User") != "system:kube-aggregator" || !reflect.DeepEqual(h.Values("X-Remote-Group"), []string{"system:masters"}) || h.Get("Accept") != acceptAggregated {
		t.Errorf("the request to the remote server had headers %v", h)
	}
}

// TestLegacyFallback: a remote server that does not serve aggregated
// discovery is asked for its /apis/<group>/<version>, whose resources
// become the entry, subresources nested, a subresource of an unlisted
// resource under a bare parent: as kube-apiserver 1.37.1 converted the same
// list from a backend registered on it.
func TestLegacyFallback(t *testing.T) {
	b := newBackend(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/apis":
			_, _ = w.Write([]byte(`{"kind":"APIGroupList","apiVersion":"v1","groups":[]}`))
		case "/apis/wardle.example.com/v1alpha1":
			_, _ = w.Write([]byte(`{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"wardle.example.com/v1alpha1","resources":[
				{"name":"flunders","singularName":"flunder","namespaced":true,"kind":"Flunder","verbs":["get","list"],"shortNames":["fl"]},
				{"name":"flunders/status","singularName":"","namespaced":true,"kind":"Flunder","verbs":["get"]},
				{"name":"orphans/status","singularName":"","namespaced":false,"kind":"Orphan","verbs":["get"]}]}`))
		default:
			http.NotFound(w, r)
		}
	})
	f := start(t, transport{"api": b}, time.Hour, apiService("wardle.example.com", "v1alpha1", "api", 2000, 10))
	want := []apidiscoveryv2.APIVersionDiscovery{{
		Version: "v1alpha1",
		Resources: []apidiscoveryv2.APIResourceDiscovery{{
			Resource: "flunders", ResponseKind: &metav1.GroupVersionKind{Kind: "Flunder"}, Scope: apidiscoveryv2.ScopeNamespace,
			SingularResource: "flunder", Verbs: []string{"get", "list"}, ShortNames: []string{"fl"},
			Subresources: []apidiscoveryv2.APISubresourceDiscovery{{Subresource: "status", ResponseKind: &metav1.GroupVersionKind{Kind: "Flunder"}, Verbs: []string{"get"}}},
		}, {
			Resource: "orphans", ResponseKind: &metav1.GroupVersionKind{}, Scope: apidiscoveryv2.ScopeCluster,
			Subresources: []apidiscoveryv2.APISubresourceDiscovery{{Subresource: "status", ResponseKind: &metav1.GroupVersionKind{Kind: "Orphan"}, Verbs: []string{"get"}}},
		}},
		Freshness: apidiscoveryv2.DiscoveryFreshnessCurrent,
	}}
	if got := f.aggregated(t, "wardle.example.com"); got == nil || !reflect.DeepEqual(got.Versions, want) {
		t.Errorf("aggregated wardle.example.com = %+v\nwant versions %+v", got, want)
	}
}

// TestStaleWhenTheRemoteFails: once its server fails, a group version is
// listed as stale with no resources, and current again when it answers.
func TestStaleWhenTheRemoteFails(t *testing.T) {
	b := newBackend(t, serveAggregated(wardle(), `"one"`))
	a := apiService("wardle.example.com", "v1beta1", "api", 2000, 20)
	f := start(t, transport{"api": b}, time.Hour, a)
	if g := f.aggregated(t, "wardle.example.com"); g == nil || len(g.Versions) != 1 || len(g.Versions[0].Resources) != 1 || g.Versions[0].Freshness != apidiscoveryv2.DiscoveryFreshnessCurrent {
		t.Fatalf("after the first fetch: %+v", g)
	}

	b.set(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
	})
	f.manager.AddAPIService(a) // a change: fetched again at once
	stale := []apidiscoveryv2.APIVersionDiscovery{{Version: "v1beta1", Freshness: apidiscoveryv2.DiscoveryFreshnessStale}}
	eventually(t, "the version is stale", func() bool {
		g := f.aggregated(t, "wardle.example.com")
		return g != nil && reflect.DeepEqual(g.Versions, stale)
	})
	// Still listed in the legacy documents.
	if groups := f.legacyGroups(t); len(groups) != 1 || groups[0].Name != "wardle.example.com" {
		t.Errorf("/apis groups while stale = %+v", groups)
	}

	// Retried with backoff until the server answers again.
	b.set(serveAggregated(wardle(), `"two"`))
	eventually(t, "the version is current again", func() bool {
		g := f.aggregated(t, "wardle.example.com")
		return g != nil && len(g.Versions) == 1 && g.Versions[0].Freshness == apidiscoveryv2.DiscoveryFreshnessCurrent && len(g.Versions[0].Resources) == 1
	})
}

// TestUnavailableAPIServiceListed: an APIService whose service cannot be
// reached (Available=False, ServiceNotFound) is listed, stale, as
// kube-apiserver 1.37.1 lists it.
func TestUnavailableAPIServiceListed(t *testing.T) {
	a := apiService("missing.example.com", "v1alpha1", "nosuch", 1000, 15)
	a.Status.Conditions = []apiregistrationv1.APIServiceCondition{{Type: apiregistrationv1.Available, Status: apiregistrationv1.ConditionFalse, Reason: "ServiceNotFound"}}
	f := start(t, transport{}, time.Hour, a)
	// What the oracle answered for such an APIService.
	want := apidiscoveryv2.APIGroupDiscovery{
		ObjectMeta: metav1.ObjectMeta{Name: "missing.example.com"},
		Versions:   []apidiscoveryv2.APIVersionDiscovery{{Version: "v1alpha1", Freshness: apidiscoveryv2.DiscoveryFreshnessStale}},
	}
	if got := f.aggregated(t, "missing.example.com"); got == nil || !reflect.DeepEqual(*got, want) {
		t.Errorf("aggregated = %+v, want %+v", got, want)
	}
	if w := f.get(t, "/apis/missing.example.com", ""); w.Code != http.StatusOK ||
		w.Body.String() != `{"kind":"APIGroup","apiVersion":"v1","name":"missing.example.com","versions":[{"groupVersion":"missing.example.com/v1alpha1","version":"v1alpha1"}],"preferredVersion":{"groupVersion":"missing.example.com/v1alpha1","version":"v1alpha1"}}`+"\n" {
		t.Errorf("/apis/missing.example.com: %d %s", w.Code, w.Body)
	}
}

// TestDeletedAPIServiceLeaves: a deleted APIService leaves every document;
// the other versions of its group stay.
func TestDeletedAPIServiceLeaves(t *testing.T) {
	b := newBackend(t, serveAggregated(wardle(), `"one"`))
	f := start(t, transport{"api": b}, time.Hour,
		apiService("wardle.example.com", "v1alpha1", "api", 2000, 10),
		apiService("wardle.example.com", "v1beta1", "api", 2000, 20))
	f.manager.RemoveAPIService("v1beta1.wardle.example.com")
	eventually(t, "v1beta1 has left", func() bool {
		g := f.aggregated(t, "wardle.example.com")
		return g != nil && len(g.Versions) == 1 && g.Versions[0].Version == "v1alpha1"
	})
	f.manager.RemoveAPIService("v1alpha1.wardle.example.com")
	eventually(t, "the group has left", func() bool { return f.aggregated(t, "wardle.example.com") == nil })
	if groups := f.legacyGroups(t); len(groups) != 0 {
		t.Errorf("/apis groups after deletion = %+v", groups)
	}
	if w := f.get(t, "/apis/wardle.example.com", ""); w.Code != http.StatusNotFound {
		t.Errorf("/apis/wardle.example.com after deletion: %d", w.Code)
	}
	// A local APIService (no service) is not the manager's.
	local := apiService("apps", "v1", "", 17800, 15)
	local.Spec.Service = nil
	f.manager.AddAPIService(local)
	if f.registry.HasGroup("apps") {
		t.Error("a local APIService was put in the registry as remote")
	}
}

// TestRefreshRevalidates: the periodic refresh sends the document's ETag;
// an unchanged document (304) keeps the served documents as they were,
// a changed one is taken.
func TestRefreshRevalidates(t *testing.T) {
	b := newBackend(t, serveAggregated(wardle(), `"one"`))
	f := start(t, transport{"api": b}, 20*time.Millisecond, apiService("wardle.example.com", "v1beta1", "api", 2000, 20))
	etag := f.get(t, "/apis", acceptAggregated).Header().Get("ETag")
	eventually(t, "a refresh revalidated the document", func() bool {
		b.mu.Lock()
		defer b.mu.Unlock()
		for _, h := range b.seen[1:] {
			if h.Get("If-None-Match") == `"one"` {
				return true
			}
		}
		return false
	})
	if again := f.get(t, "/apis", acceptAggregated).Header().Get("ETag"); again != etag {
		t.Errorf("an unchanged remote document changed the ETag of /apis from %s to %s", etag, again)
	}

	changed := wardle()
	changed.Items[0].Versions[0].Resources[0].Verbs = []string{"get", "list", "watch"}
	b.set(serveAggregated(changed, `"two"`))
	eventually(t, "the change is served", func() bool {
		g := f.aggregated(t, "wardle.example.com")
		return g != nil && len(g.Versions) == 1 && reflect.DeepEqual(g.Versions[0].Resources[0].Verbs, []string{"get", "list", "watch"})
	})
}

// TestGroupVersionNotInTheRemoteDocument: a server that does not list the
// APIService's group version leaves it current but empty, as
// kube-aggregator does.
func TestGroupVersionNotInTheRemoteDocument(t *testing.T) {
	b := newBackend(t, serveAggregated(wardle(), `"one"`))
	f := start(t, transport{"api": b}, time.Hour, apiService("wardle.example.com", "v2", "api", 2000, 20))
	want := []apidiscoveryv2.APIVersionDiscovery{{Version: "v2", Freshness: apidiscoveryv2.DiscoveryFreshnessCurrent}}
	if g := f.aggregated(t, "wardle.example.com"); g == nil || !reflect.DeepEqual(g.Versions, want) {
		t.Errorf("aggregated = %+v", g)
	}
}

// TestMatchesOracle: the aggregated entry of a remote group is, to the
// byte, what kube-apiserver 1.37.1 served for a backend registered on it
// answering with testdata/remote-*.json: its own aggregated document, or,
// when its /apis failed, its resource list converted.
func TestMatchesOracle(t *testing.T) {
	read := func(name string) []byte {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		return bytes.TrimSpace(data)
	}
	for _, tc := range []struct {
		name       string
		aggregated bool
		want       string
	}{
		{"aggregated", true, "oracle-group-aggregated.json"},
		{"legacy", false, "oracle-group-legacy.json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newBackend(t, func(w http.ResponseWriter, r *http.Request) {
				switch {
				case r.URL.Path == "/apis" && tc.aggregated:
					w.Header().Set("Content-Type", acceptAggregated)
					_, _ = w.Write(read("remote-aggregated.json"))
				case r.URL.Path == "/apis":
					http.Error(w, "failing", http.StatusInternalServerError)
				case r.URL.Path == "/apis/aggdisc.example.com/v1alpha1":
					w.Header().Set("Content-Type", "application/json")
					_, _ = w.Write(read("remote-resourcelist.json"))
				default:
					http.NotFound(w, r)
				}
			})
			f := start(t, transport{"aggdisc-backend": b}, time.Hour, apiService("aggdisc.example.com", "v1alpha1", "aggdisc-backend", 1000, 15))
			var list struct {
				Items []json.RawMessage `json:"items"`
			}
			if err := json.Unmarshal(f.get(t, "/apis", acceptAggregated).Body.Bytes(), &list); err != nil {
				t.Fatal(err)
			}
			if len(list.Items) != 1 || string(list.Items[0]) != string(read(tc.want)) {
				t.Errorf("aggregated entries:\n%s\nwant\n%s", list.Items, read(tc.want))
			}
		})
	}
}
