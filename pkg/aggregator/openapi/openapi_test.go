package openapi

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
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	openapi_v2 "github.com/google/gnostic-models/openapiv2"
	"google.golang.org/protobuf/proto"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	"k8s.io/kube-openapi/pkg/handler3"
	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/pkg/authentication/user"
	"github.com/kapi-dev/kapi/pkg/endpoints/request"
	"github.com/kapi-dev/kapi/pkg/openapi"
)

const (
	objectMeta    = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
	deleteOptions = "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions"
	flunder       = "com.example.wardle.v1alpha1.Flunder"
	flundersPath  = "/apis/wardle.example.com/v1alpha1/namespaces/{namespace}/flunders"
)

// newLocal is a local server serving pods.
func newLocal(t *testing.T) *openapi.Service {
	t.Helper()
	s := openapi.NewService(openapi.Config{Info: openapi.Info{Title: "Kubernetes", Version: "1.37"}, Scheme: scheme.Scheme})
	pods := openapi.Resource{
		GVK: schema.GroupVersionKind{Version: "v1", Kind: "Pod"}, ListGVK: schema.GroupVersionKind{Version: "v1", Kind: "PodList"},
		Resource: "pods", Namespaced: true, DeleteReturnsObject: true,
		Verbs: []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"},
	}
	if err := s.Update([]openapi.Resource{pods}); err != nil {
		t.Fatal(err)
	}
	return s
}

func localV2(t *testing.T, local *openapi.Service) *spec.Swagger {
	t.Helper()
	doc, _, err := local.OpenAPIV2Document().Get()
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func ref(name string) spec.Schema {
	return spec.Schema{SchemaProps: spec.SchemaProps{Ref: spec.MustCreateRef("#/definitions/" + name)}}
}

// wardleV2 is the /openapi/v2 of a remote server of wardle.example.com
// v1alpha1 whose DeleteOptions is the local one and whose ObjectMeta is
// not: its paths (one it may not claim, /api/v1/pods, among them, with a
// definition of its own), Flunder, and a definition no path uses. extra names an extra path of
// the group version.
func wardleV2(t *testing.T, local *openapi.Service, extra string) *spec.Swagger {
	t.Helper()
	l := localV2(t, local)
	op := func(id string, schema spec.Schema) *spec.Operation {
		return &spec.Operation{OperationProps: spec.OperationProps{
			ID:         id,
			Parameters: []spec.Parameter{{ParamProps: spec.ParamProps{Name: "body", In: "body", Schema: ptr.To(ref(deleteOptions))}}},
			Responses: &spec.Responses{ResponsesProps: spec.ResponsesProps{StatusCodeResponses: map[int]spec.Response{
				200: {ResponseProps: spec.ResponseProps{Description: "OK", Schema: &schema}},
			}}},
		}}
	}
	doc := &spec.Swagger{SwaggerProps: spec.SwaggerProps{
		Swagger: "2.0",
		Info:    &spec.Info{InfoProps: spec.InfoProps{Title: "wardle", Version: "v0"}},
		Paths: &spec.Paths{Paths: map[string]spec.PathItem{
			flundersPath:   {PathItemProps: spec.PathItemProps{Get: op("listWardleV1alpha1NamespacedFlunder", ref(flunder))}},
			"/api/v1/pods": {PathItemProps: spec.PathItemProps{Get: op("listCoreV1Pods", ref("com.example.OnlyOutside"))}},
		}},
		Definitions: spec.Definitions{
			flunder: {SchemaProps: spec.SchemaProps{Type: []string{"object"}, Properties: map[string]spec.Schema{"metadata": ref(objectMeta)}}},
			objectMeta: {SchemaProps: spec.SchemaProps{
				Description: "ObjectMeta as an older apimachinery described it.", Type: []string{"object"},
				Properties: map[string]spec.Schema{"name": {SchemaProps: spec.SchemaProps{Type: []string{"string"}}}},
			}},
			deleteOptions:             l.Definitions[deleteOptions],
			"com.example.Unused":      {SchemaProps: spec.SchemaProps{Type: []string{"string"}}},
			"com.example.OnlyOutside": {SchemaProps: spec.SchemaProps{Type: []string{"string"}}},
		},
	}}
	if extra != "" {
		doc.Paths.Paths[extra] = spec.PathItem{PathItemProps: spec.PathItemProps{Get: op("extra", ref(flunder))}}
	}
	return doc
}

// backend is a remote server whose answers can be changed while it runs,
// recording the requests it gets.
type backend struct {
	server *httptest.Server

	mu       sync.Mutex
	handlers map[string]http.HandlerFunc
	requests []*http.Request
}

func newBackend(t *testing.T) *backend {
	b := &backend{handlers: map[string]http.HandlerFunc{}}
	b.server = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b.mu.Lock()
		b.requests = append(b.requests, r.Clone(context.Background()))
		h, ok := b.handlers[r.URL.Path]
		b.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		h(w, r)
	}))
	t.Cleanup(b.server.Close)
	return b
}

func (b *backend) handle(path string, h http.HandlerFunc) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.handlers[path] = h
}

// requestsFor returns the requests of path so far.
func (b *backend) requestsFor(path string) []*http.Request {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []*http.Request
	for _, r := range b.requests {
		if r.URL.Path == path {
			out = append(out, r)
		}
	}
	return out
}

// serveJSON answers with doc and etag, 304 to a request that has it.
func serveJSON(doc any, etag string) http.HandlerFunc {
	data, err := json.Marshal(doc)
	if err != nil {
		panic(err)
	}
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if etag != "" {
			w.Header().Set("Etag", etag)
			if r.Header.Get("If-None-Match") == etag {
				w.WriteHeader(http.StatusNotModified)
				return
			}
		}
		_, _ = w.Write(data)
	}
}

type transport map[string]*backend

func (t transport) reach(a *apiregistrationv1.APIService) (http.RoundTripper, *url.URL, error) {
	b, ok := t[a.Spec.Service.Name]
	if !ok {
		return nil, nil, fmt.Errorf("service/%s is not present", a.Spec.Service.Name)
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

// run starts an Aggregator over local and the backends.
func run(t *testing.T, local *openapi.Service, backends transport, refresh time.Duration) *Aggregator {
	t.Helper()
	a := New(Config{Local: local, Transport: backends.reach, RefreshInterval: refresh, Timeout: 30 * time.Second})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{}, 2)
	go func() { defer func() { done <- struct{}{} }(); a.RunV2(ctx, 1) }()
	go func() { defer func() { done <- struct{}{} }(); a.RunV3(ctx, 1) }()
	t.Cleanup(func() { cancel(); <-done; <-done })
	return a
}

func get(t *testing.T, h http.Handler, path string, header ...string) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest(http.MethodGet, path, nil)
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

func getV2(t *testing.T, h http.Handler) *spec.Swagger {
	t.Helper()
	w := get(t, h, "/openapi/v2", "Accept", "application/json")
	if w.Code != http.StatusOK {
		t.Fatalf("/openapi/v2: %d %s", w.Code, w.Body)
	}
	doc := &spec.Swagger{}
	if err := doc.UnmarshalJSON(w.Body.Bytes()); err != nil {
		t.Fatal(err)
	}
	return doc
}

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

// rawDocument is the served /openapi/v2, its entries as encoded.
func rawDocument(t *testing.T, h http.Handler) (doc struct {
	Paths       map[string]json.RawMessage `json:"paths"`
	Definitions map[string]json.RawMessage `json:"definitions"`
}) {
	t.Helper()
	if err := json.Unmarshal(get(t, h, "/openapi/v2", "Accept", "application/json").Body.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

func hasPath(doc *spec.Swagger, path string) bool {
	_, ok := doc.Paths.Paths[path]
	return ok
}

// TestNoRemoteServesTheLocalDocuments: without remote documents the
// local ones are served as they are, to the byte.
func TestNoRemoteServesTheLocalDocuments(t *testing.T) {
	local := newLocal(t)
	a := run(t, local, transport{}, time.Hour)
	for _, p := range []string{"/openapi/v2", "/openapi/v3", "/openapi/v3/api/v1"} {
		want, got := get(t, local, p, "Accept", "application/json"), get(t, a, p, "Accept", "application/json")
		if got.Code != want.Code || got.Body.String() != want.Body.String() || got.Header().Get("Etag") != want.Header().Get("Etag") {
			t.Errorf("%s: got %d (ETag %s), want the local %d (ETag %s)", p, got.Code, got.Header().Get("Etag"), want.Code, want.Header().Get("Etag"))
		}
	}
}

// TestV2MergesRemoteDocuments: a remote server's paths of its group
// version join the local document with the definitions they use; an
// equal definition is shared, a different one of the same name renamed
// (ObjectMeta_v2), paths outside the group version and unused definitions
// left out; the local document is not changed.
func TestV2MergesRemoteDocuments(t *testing.T) {
	local := newLocal(t)
	b := newBackend(t)
	b.handle("/openapi/v2", serveJSON(wardleV2(t, local, ""), `"w1"`))
	a := run(t, local, transport{"api": b}, time.Hour)
	before := localV2(t, local)
	localPaths, localDefs := len(before.Paths.Paths), len(before.Definitions)

	a.AddAPIService(apiService("wardle.example.com", "v1alpha1", "api", 2000, 10))
	var doc *spec.Swagger
	eventually(t, "the remote paths are merged", func() bool {
		doc = getV2(t, a)
		return hasPath(doc, flundersPath)
	})
	if len(doc.Paths.Paths) != localPaths+1 {
		t.Errorf("merged document has %d paths, want the %d local ones and %s", len(doc.Paths.Paths), localPaths, flundersPath)
	}
	// Local paths are served as the local server serves them, to the byte.
	localRaw, mergedRaw := rawDocument(t, local), rawDocument(t, a)
	for path, item := range localRaw.Paths {
		if string(mergedRaw.Paths[path]) != string(item) {
			t.Errorf("the local path %s changed in the merge:\n%s\n%s", path, mergedRaw.Paths[path], item)
		}
	}
	for name, def := range localRaw.Definitions {
		if string(mergedRaw.Definitions[name]) != string(def) {
			t.Errorf("the local definition %s changed in the merge:\n%s\n%s", name, mergedRaw.Definitions[name], def)
		}
	}
	// Filtering drops the definitions only the dropped paths used; one no
	// path used is kept, as kube-openapi's filter keeps it.
	if _, ok := doc.Definitions["com.example.OnlyOutside"]; ok {
		t.Error("a definition only a path outside the group version uses was merged")
	}
	if _, ok := doc.Definitions["com.example.Unused"]; !ok {
		t.Error("a definition no path uses was not merged")
	}
	if _, ok := doc.Definitions[deleteOptions+"_v2"]; ok {
		t.Error("an equal definition was renamed")
	}
	renamed, ok := doc.Definitions[objectMeta+"_v2"]
	if !ok || renamed.Description != "ObjectMeta as an older apimachinery described it." {
		t.Fatalf("the remote ObjectMeta is not merged as %s_v2: %+v", objectMeta, renamed)
	}
	metadata := doc.Definitions[flunder].Properties["metadata"]
	if got := metadata.Ref.String(); got != "#/definitions/"+objectMeta+"_v2" {
		t.Errorf("Flunder's metadata refers to %s, want the renamed ObjectMeta", got)
	}
	if got := doc.Paths.Paths[flundersPath].Get.Parameters[0].Schema.Ref.String(); got != "#/definitions/"+deleteOptions {
		t.Errorf("the remote body refers to %s, want the shared DeleteOptions", got)
	}
	if after := localV2(t, local); after != before || len(after.Paths.Paths) != localPaths || len(after.Definitions) != localDefs {
		t.Error("merging changed the local document")
	}

	// The protobuf form is the same document.
	w := get(t, a, "/openapi/v2", "Accept", "application/com.github.proto-openapi.spec.v2@v1.0+protobuf")
	var pb openapi_v2.Document
	if err := proto.Unmarshal(w.Body.Bytes(), &pb); err != nil {
		t.Fatalf("decoding the protobuf document: %v", err)
	}
	found := false
	for _, p := range pb.GetPaths().GetPath() {
		found = found || p.Name == flundersPath
	}
	if !found {
		t.Error("the protobuf document does not have the remote path")
	}
	if r := b.requestsFor("/openapi/v2")[0]; r.Header.Get("X-Remote-User") != "system:aggregator" {
		t.Errorf("downloaded as %q", r.Header.Get("X-Remote-User"))
	}
}

// TestV2Revalidates: the document is downloaded again with the server's
// ETag; unchanged (304), the merged document keeps its ETag; changed, it
// is merged again.
func TestV2Revalidates(t *testing.T) {
	local := newLocal(t)
	b := newBackend(t)
	b.handle("/openapi/v2", serveJSON(wardleV2(t, local, ""), `"w1"`))
	a := run(t, local, transport{"api": b}, 20*time.Millisecond)
	a.AddAPIService(apiService("wardle.example.com", "v1alpha1", "api", 2000, 10))
	eventually(t, "the remote paths are merged", func() bool { return hasPath(getV2(t, a), flundersPath) })
	etag := get(t, a, "/openapi/v2", "Accept", "application/json").Header().Get("Etag")
	eventually(t, "the document is revalidated", func() bool {
		return slices.ContainsFunc(b.requestsFor("/openapi/v2"), func(r *http.Request) bool { return r.Header.Get("If-None-Match") == `"w1"` })
	})
	if again := get(t, a, "/openapi/v2", "Accept", "application/json").Header().Get("Etag"); again != etag {
		t.Errorf("an unchanged remote document changed the merged ETag from %s to %s", etag, again)
	}
	// A client revalidating its copy is told it is current.
	if w := get(t, a, "/openapi/v2", "Accept", "application/json", "If-None-Match", etag); w.Code != http.StatusNotModified {
		t.Errorf("revalidating the merged document: %d, want 304", w.Code)
	}

	extra := "/apis/wardle.example.com/v1alpha1/fischers"
	b.handle("/openapi/v2", serveJSON(wardleV2(t, local, extra), `"w2"`))
	eventually(t, "the changed document is merged", func() bool { return hasPath(getV2(t, a), extra) })
}

// TestV2KeepsTheLastDocumentOfAFailingServer: a server that fails keeps
// its last document in /openapi/v2; a deleted APIService's leaves.
func TestV2KeepsTheLastDocumentOfAFailingServer(t *testing.T) {
	local := newLocal(t)
	b := newBackend(t)
	b.handle("/openapi/v2", serveJSON(wardleV2(t, local, ""), `"w1"`))
	a := run(t, local, transport{"api": b}, 20*time.Millisecond)
	a.AddAPIService(apiService("wardle.example.com", "v1alpha1", "api", 2000, 10))
	eventually(t, "the remote paths are merged", func() bool { return hasPath(getV2(t, a), flundersPath) })

	b.handle("/openapi/v2", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "broken", http.StatusInternalServerError) })
	failed := len(b.requestsFor("/openapi/v2"))
	eventually(t, "a download failed", func() bool { return len(b.requestsFor("/openapi/v2")) > failed })
	if !hasPath(getV2(t, a), flundersPath) {
		t.Error("the document of a failing server left /openapi/v2")
	}

	a.RemoveAPIService("v1alpha1.wardle.example.com")
	if doc := getV2(t, a); hasPath(doc, flundersPath) {
		t.Error("the document of a deleted APIService is still merged")
	}
}

// TestSlowRemoteDoesNotBlockClients: while a server takes its time to
// answer, clients are served the documents as they are.
func TestSlowRemoteDoesNotBlockClients(t *testing.T) {
	local := newLocal(t)
	fast, slow := newBackend(t), newBackend(t)
	fast.handle("/openapi/v2", serveJSON(wardleV2(t, local, ""), `"w1"`))
	started := make(chan struct{})
	release := make(chan struct{})
	var once sync.Once
	slow.handle("/openapi/v2", func(w http.ResponseWriter, r *http.Request) {
		once.Do(func() { close(started) })
		select {
		case <-release:
		case <-r.Context().Done():
		}
		http.Error(w, "late", http.StatusServiceUnavailable)
	})
	defer close(release)
	a := run(t, local, transport{"fast": fast, "slow": slow}, time.Hour)
	a.AddAPIService(apiService("wardle.example.com", "v1alpha1", "fast", 2000, 10))
	eventually(t, "the fast server's paths are merged", func() bool { return hasPath(getV2(t, a), flundersPath) })
	a.AddAPIService(apiService("slow.example.com", "v1", "slow", 2000, 10))
	select {
	case <-started:
	case <-time.After(30 * time.Second):
		t.Fatal("the slow server was not asked")
	}
	// The slow server is holding its answer: a client is served all the same.
	served := make(chan *httptest.ResponseRecorder, 1)
	go func() {
		w := httptest.NewRecorder()
		r := httptest.NewRequest(http.MethodGet, "/openapi/v2", nil)
		r.Header.Set("Accept", "application/json")
		a.ServeHTTP(w, r)
		served <- w
	}()
	select {
	case w := <-served:
		if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), flundersPath) {
			t.Errorf("served %d without the fast server's paths", w.Code)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("a client waited for a slow remote server")
	}
}

// TestV3IndexAndRemoteDocuments: the v3 index lists the remote server's
// documents beside the local ones (a local one keeps its name); a
// remote document is the server's answer, hash, ETag and cache headers
// included, revalidation too.
func TestV3IndexAndRemoteDocuments(t *testing.T) {
	local := newLocal(t)
	b := newBackend(t)
	b.handle("/openapi/v2", serveJSON(wardleV2(t, local, ""), `"w1"`))
	remoteURL := "/openapi/v3/apis/wardle.example.com/v1alpha1?hash=0123ABCD"
	b.handle("/openapi/v3", serveJSON(handler3.OpenAPIV3Discovery{Paths: map[string]handler3.OpenAPIV3DiscoveryGroupVersion{
		"apis/wardle.example.com/v1alpha1": {ServerRelativeURL: remoteURL},
		"version":                          {ServerRelativeURL: "/openapi/v3/version?hash=REMOTE"},
	}}, ""))
	b.handle("/openapi/v3/apis/wardle.example.com/v1alpha1", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Etag", `"0123ABCD"`)
		if r.URL.Query().Get("hash") == "0123ABCD" {
			w.Header().Set("Cache-Control", "public, immutable")
		}
		if r.Header.Get("If-None-Match") == `"0123ABCD"` {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		_, _ = w.Write([]byte(`{"openapi":"3.0.0","info":{"title":"wardle","version":"v0"},"paths":{}}`))
	})
	a := run(t, local, transport{"api": b}, time.Hour)
	a.AddAPIService(apiService("wardle.example.com", "v1alpha1", "api", 2000, 10))

	var index handler3.OpenAPIV3Discovery
	eventually(t, "the remote document is listed", func() bool {
		index = handler3.OpenAPIV3Discovery{}
		_ = json.Unmarshal(get(t, a, "/openapi/v3").Body.Bytes(), &index)
		_, ok := index.Paths["apis/wardle.example.com/v1alpha1"]
		return ok
	})
	var localIndex handler3.OpenAPIV3Discovery
	if err := json.Unmarshal(get(t, local, "/openapi/v3").Body.Bytes(), &localIndex); err != nil {
		t.Fatal(err)
	}
	want := map[string]handler3.OpenAPIV3DiscoveryGroupVersion{"apis/wardle.example.com/v1alpha1": {ServerRelativeURL: remoteURL}}
	for p, gv := range localIndex.Paths {
		want[p] = gv
	}
	if !reflect.DeepEqual(index.Paths, want) {
		t.Errorf("index = %v\nwant %v", index.Paths, want)
	}

	w := get(t, a, remoteURL, "Accept", "application/json")
	if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `"title":"wardle"`) ||
		w.Header().Get("Etag") != `"0123ABCD"` || w.Header().Get("Cache-Control") != "public, immutable" {
		t.Errorf("remote document: %d %v %s", w.Code, w.Header(), w.Body)
	}
	if w := get(t, a, remoteURL, "Accept", "application/json", "If-None-Match", `"0123ABCD"`); w.Code != http.StatusNotModified {
		t.Errorf("revalidating the remote document: %d, want 304", w.Code)
	}
	// The remote server is asked as the client, as kube-aggregator asks.
	r := httptest.NewRequest(http.MethodGet, remoteURL, nil)
	r = r.WithContext(request.WithUser(r.Context(), &user.DefaultInfo{Name: "alice", Groups: []string{"devs"}, Extra: map[string][]string{"scopes.example.com/x": {"1"}}}))
	a.ServeHTTP(httptest.NewRecorder(), r)
	asked := b.requestsFor("/openapi/v3/apis/wardle.example.com/v1alpha1")
	if h := asked[len(asked)-1].Header; h.Get("X-Remote-User") != "alice" || h.Get("X-Remote-Group") != "devs" || h.Get("X-Remote-Extra-Scopes.example.com%2fx") != "1" {
		t.Errorf("the remote document was asked for with %v", h)
	}
	// A local document is the local server's.
	if w := get(t, a, "/openapi/v3/api/v1", "Accept", "application/json"); w.Code != http.StatusOK || w.Body.String() != get(t, local, "/openapi/v3/api/v1", "Accept", "application/json").Body.String() {
		t.Errorf("local document through the aggregator: %d", w.Code)
	}
	if w := get(t, a, "/openapi/v3/apis/nosuch.example.com/v1"); w.Code != http.StatusNotFound {
		t.Errorf("unknown document: %d", w.Code)
	}

	a.RemoveAPIService("v1alpha1.wardle.example.com")
	if body := get(t, a, "/openapi/v3").Body.String(); strings.Contains(body, "wardle") {
		t.Errorf("the index still lists a deleted APIService's document: %s", body)
	}
}

// TestV3ConvertedFromV2: a remote server with no /openapi/v3 has its v2
// document converted and served under its group version, with a hash of
// its content.
func TestV3ConvertedFromV2(t *testing.T) {
	local := newLocal(t)
	b := newBackend(t)
	b.handle("/openapi/v2", serveJSON(wardleV2(t, local, ""), `"w1"`))
	a := run(t, local, transport{"api": b}, time.Hour)
	a.AddAPIService(apiService("wardle.example.com", "v1alpha1", "api", 2000, 10))
	var index handler3.OpenAPIV3Discovery
	eventually(t, "the converted document is listed", func() bool {
		index = handler3.OpenAPIV3Discovery{}
		_ = json.Unmarshal(get(t, a, "/openapi/v3").Body.Bytes(), &index)
		_, ok := index.Paths["apis/wardle.example.com/v1alpha1"]
		return ok
	})
	u := index.Paths["apis/wardle.example.com/v1alpha1"].ServerRelativeURL
	if !strings.HasPrefix(u, "/openapi/v3/apis/wardle.example.com/v1alpha1?hash=") {
		t.Fatalf("serverRelativeURL = %s", u)
	}
	w := get(t, a, u, "Accept", "application/json")
	var doc spec3.OpenAPI
	if err := json.Unmarshal(w.Body.Bytes(), &doc); err != nil {
		t.Fatalf("%d %s: %v", w.Code, w.Body, err)
	}
	if _, ok := doc.Paths.Paths[flundersPath]; !ok || !strings.HasPrefix(doc.Version, "3.") {
		t.Errorf("converted document: version %q, paths %v", doc.Version, doc.Paths)
	}
	if w.Header().Get("Cache-Control") != "public, immutable" {
		t.Errorf("converted document fetched by its hash: Cache-Control %q", w.Header().Get("Cache-Control"))
	}
}

// TestV2MergeMatchesOracle: what the merge adds to the local document for
// a remote server answering testdata/remote-openapi-v2.json is, to the
// byte, what kube-apiserver 1.37.1 added for a backend registered on it
// answering the same (its path under the group version, Flunder, the
// unused definition, the conflicting ObjectMeta renamed _v2), and it
// changes none of the local entries.
func TestV2MergeMatchesOracle(t *testing.T) {
	remoteDoc, err := os.ReadFile(filepath.Join("testdata", "remote-openapi-v2.json"))
	if err != nil {
		t.Fatal(err)
	}
	oracle, err := os.ReadFile(filepath.Join("testdata", "oracle-merged-additions.json"))
	if err != nil {
		t.Fatal(err)
	}
	local := newLocal(t)
	b := newBackend(t)
	b.handle("/openapi/v2", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(remoteDoc)
	})
	a := run(t, local, transport{"aggdisc-backend": b}, time.Hour)
	a.AddAPIService(apiService("aggdisc.example.com", "v1alpha1", "aggdisc-backend", 1000, 15))
	eventually(t, "the remote paths are merged", func() bool {
		return len(rawDocument(t, a).Paths) > len(rawDocument(t, local).Paths)
	})
	localRaw, merged := rawDocument(t, local), rawDocument(t, a)
	additions := map[string]map[string]json.RawMessage{"paths": {}, "definitions": {}}
	for p, item := range merged.Paths {
		if l, ok := localRaw.Paths[p]; !ok {
			additions["paths"][p] = item
		} else if string(l) != string(item) {
			t.Errorf("the local path %s changed", p)
		}
	}
	for name, def := range merged.Definitions {
		if l, ok := localRaw.Definitions[name]; !ok {
			additions["definitions"][name] = def
		} else if string(l) != string(def) {
			t.Errorf("the local definition %s changed", name)
		}
	}
	// Encoded as the oracle's: paths, then definitions, keys sorted.
	var got bytes.Buffer
	enc := json.NewEncoder(&got)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(struct {
		Paths       map[string]json.RawMessage `json:"paths"`
		Definitions map[string]json.RawMessage `json:"definitions"`
	}{additions["paths"], additions["definitions"]}); err != nil {
		t.Fatal(err)
	}
	if got.String() != string(oracle) {
		t.Errorf("additions:\n%s\nwant (kube-apiserver 1.37.1)\n%s", got.String(), oracle)
	}
}
