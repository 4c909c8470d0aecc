package openapi

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"

	openapi_v2 "github.com/google/gnostic-models/openapiv2"
	"google.golang.org/protobuf/proto"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

var (
	pods = Resource{
		GVK: schema.GroupVersionKind{Version: "v1", Kind: "Pod"}, ListGVK: schema.GroupVersionKind{Version: "v1", Kind: "PodList"},
		Resource: "pods", Namespaced: true, DeleteReturnsObject: true,
		Verbs: []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"},
		Subresources: []Subresource{
			{Name: "status", GVK: schema.GroupVersionKind{Version: "v1", Kind: "Pod"}, Verbs: []string{"get", "patch", "update"}},
			{Name: "exec", GVK: schema.GroupVersionKind{Version: "v1", Kind: "PodExecOptions"}, ConnectMethods: []string{"GET", "POST"}},
		},
	}
	deployments = Resource{
		GVK: schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, ListGVK: schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "DeploymentList"},
		Resource: "deployments", Namespaced: true, Verbs: []string{"get", "list", "watch"},
	}
)

func newService(t *testing.T, resources ...Resource) *Service {
	t.Helper()
	s := NewService(Config{Info: Info{Title: "Kubernetes", Version: "1.37"}, Scheme: scheme.Scheme})
	if err := s.Update(resources); err != nil {
		t.Fatal(err)
	}
	return s
}

func v3Paths(t *testing.T, s *Service) []string {
	t.Helper()
	var index struct {
		Paths map[string]any `json:"paths"`
	}
	if err := json.Unmarshal(get(t, s, "/openapi/v3").Body.Bytes(), &index); err != nil {
		t.Fatal(err)
	}
	return sortedKeys(index.Paths)
}

// The v3 index lists a document per group version, per group, for the
// group lists and for /version.
func TestV3IndexFollowsTheServedGroupVersions(t *testing.T) {
	s := newService(t, pods)
	if got, want := v3Paths(t, s), []string{"api", "api/v1", "version"}; !equal(got, want) {
		t.Errorf("index: %v, want %v", got, want)
	}

	if err := s.Update([]Resource{pods, deployments}); err != nil {
		t.Fatal(err)
	}
	if got, want := v3Paths(t, s), []string{"api", "api/v1", "apis", "apis/apps", "apis/apps/v1", "version"}; !equal(got, want) {
		t.Errorf("index after adding apps/v1: %v, want %v", got, want)
	}

	if err := s.Update([]Resource{deployments}); err != nil {
		t.Fatal(err)
	}
	if got, want := v3Paths(t, s), []string{"apis", "apis/apps", "apis/apps/v1", "version"}; !equal(got, want) {
		t.Errorf("index after removing v1: %v, want %v", got, want)
	}
	if w := get(t, s, "/openapi/v3/api/v1"); w.Code != http.StatusNotFound {
		t.Errorf("GET a removed document: %d, want 404", w.Code)
	}
}

func equal(a, b []string) bool { return strings.Join(a, ",") == strings.Join(b, ",") }

// A resource that cannot be described is refused, and the documents stay
// as they were.
func TestUpdateRefusesUndescribableResources(t *testing.T) {
	s := newService(t, pods)
	before := get(t, s, "/openapi/v2").Header().Get("Etag")

	unknown := Resource{GVK: schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}, Resource: "widgets", Verbs: []string{"get"}}
	noList := Resource{GVK: pods.GVK, Resource: "pods", Verbs: []string{"list"}}
	for _, r := range []Resource{unknown, noList} {
		if err := s.Update([]Resource{pods, r}); err == nil {
			t.Errorf("Update accepted %+v", r)
		}
	}
	if after := get(t, s, "/openapi/v2").Header().Get("Etag"); after != before {
		t.Errorf("the v2 document changed after a refused update")
	}
}

// /openapi/v2 is JSON by default and protobuf when asked, as kubectl does;
// its ETag serves conditional requests, and it is gzipped for clients that
// accept it.
func TestV2Serving(t *testing.T) {
	s := newService(t, pods, deployments)

	w := get(t, s, "/openapi/v2")
	if w.Code != http.StatusOK || w.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("GET: %d %s", w.Code, w.Header().Get("Content-Type"))
	}
	jsonBody := w.Body.Bytes()
	etag := w.Header().Get("Etag")
	if !strings.HasPrefix(etag, `"`) || len(etag) != 130 {
		t.Errorf("ETag %s is not a quoted SHA-512", etag)
	}
	if got := w.Header().Values("Vary"); !equal(got, []string{"Accept", "Accept-Encoding"}) {
		t.Errorf("Vary: %v", got)
	}
	var doc map[string]any
	if err := json.Unmarshal(jsonBody, &doc); err != nil || doc["swagger"] != "2.0" {
		t.Fatalf("not a Swagger 2.0 document: %v", err)
	}

	if w := get(t, s, "/openapi/v2", "If-None-Match", etag); w.Code != http.StatusNotModified {
		t.Errorf("conditional GET: %d, want 304", w.Code)
	}

	for _, accept := range []string{
		"application/com.github.proto-openapi.spec.v2@v1.0+protobuf",
		"application/com.github.proto-openapi.spec.v2.v1.0+protobuf",
		"application/com.github.proto-openapi.spec.v2.v1.0+protobuf, application/json;q=0.5",
	} {
		w := get(t, s, "/openapi/v2", "Accept", accept)
		if w.Code != http.StatusOK || w.Header().Get("Content-Type") != "application/com.github.proto-openapi.spec.v2.v1.0+protobuf" {
			t.Errorf("Accept %s: %d %s", accept, w.Code, w.Header().Get("Content-Type"))
			continue
		}
		var pb openapi_v2.Document
		if err := proto.Unmarshal(w.Body.Bytes(), &pb); err != nil || pb.Swagger != "2.0" {
			t.Errorf("Accept %s: not a protobuf document: %v", accept, err)
		}
	}

	w = get(t, s, "/openapi/v2", "Accept-Encoding", "gzip")
	if w.Header().Get("Content-Encoding") != "gzip" {
		t.Fatalf("Content-Encoding: %q", w.Header().Get("Content-Encoding"))
	}
	zr, err := gzip.NewReader(w.Body)
	if err != nil {
		t.Fatal(err)
	}
	if unzipped, err := io.ReadAll(zr); err != nil || !bytes.Equal(unzipped, jsonBody) {
		t.Errorf("the gzipped document is not the JSON one: %v", err)
	}

	if w := get(t, s, "/openapi/v2", "Accept", "application/xml"); w.Code != http.StatusNotAcceptable {
		t.Errorf("Accept application/xml: %d, want 406", w.Code)
	}

	if err := s.Update([]Resource{deployments}); err != nil {
		t.Fatal(err)
	}
	if w := get(t, s, "/openapi/v2"); w.Header().Get("Etag") == etag || bytes.Contains(w.Body.Bytes(), []byte(`"/api/v1/namespaces/{namespace}/pods"`)) {
		t.Error("the v2 document did not change with the resources")
	}
}

// A v3 document fetched at the URL of the index, with its hash, can be
// cached for ever; with an old hash, the client is sent to the current one.
func TestV3Serving(t *testing.T) {
	s := newService(t, pods)
	var index struct {
		Paths map[string]struct {
			ServerRelativeURL string `json:"serverRelativeURL"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(get(t, s, "/openapi/v3").Body.Bytes(), &index); err != nil {
		t.Fatal(err)
	}
	url := index.Paths["api/v1"].ServerRelativeURL
	if !strings.HasPrefix(url, "/openapi/v3/api/v1?hash=") {
		t.Fatalf("URL of api/v1: %q", url)
	}

	w := get(t, s, url)
	if w.Code != http.StatusOK || w.Header().Get("Cache-Control") != "public, immutable" || w.Header().Get("Expires") == "" {
		t.Errorf("GET %s: %d, Cache-Control %q, Expires %q", url, w.Code, w.Header().Get("Cache-Control"), w.Header().Get("Expires"))
	}
	if w := get(t, s, "/openapi/v3/api/v1?hash=0123"); w.Code != http.StatusMovedPermanently || w.Header().Get("Location") != url {
		t.Errorf("GET with an old hash: %d to %q, want 301 to %q", w.Code, w.Header().Get("Location"), url)
	}
	if w := get(t, s, "/openapi/v3/api/v1", "Accept", "application/com.github.proto-openapi.spec.v3@v1.0+protobuf"); w.Code != http.StatusOK || w.Header().Get("Content-Type") != "application/com.github.proto-openapi.spec.v3.v1.0+protobuf" {
		t.Errorf("protobuf: %d %s", w.Code, w.Header().Get("Content-Type"))
	}
	for _, path := range []string{"/openapi/v3/apis/apps/v1", "/openapi/v3/", "/openapi/v4"} {
		if w := get(t, s, path); w.Code != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", path, w.Code)
		}
	}
}

// The documents are built when first asked for: a service that is never
// asked builds nothing.
func TestDocumentsAreBuiltOnDemand(t *testing.T) {
	saved2, saved3 := v2Definitions, v3Definitions
	defer func() { v2Definitions, v3Definitions = saved2, saved3 }()
	forgetDefinitions()

	s := newService(t, pods)
	if len(v2Definitions.byType) != 0 || len(v3Definitions.byType) != 0 {
		t.Fatal("definitions were built before any request")
	}
	// The index hashes what the documents are built from, not the
	// documents: with a thousand CRDs, a client that needs one document
	// must not have the server build them all.
	get(t, s, "/openapi/v3")
	if len(v2Definitions.byType) != 0 || len(v3Definitions.byType) != 0 {
		t.Fatal("the v3 index built documents")
	}
	get(t, s, "/openapi/v3/api/v1")
	if len(v2Definitions.byType) != 0 || len(v3Definitions.byType) == 0 {
		t.Errorf("a v3 request built %d v2 and %d v3 definitions", len(v2Definitions.byType), len(v3Definitions.byType))
	}
}

func v3URLs(t *testing.T, s *Service) map[string]string {
	t.Helper()
	var index struct {
		Paths map[string]struct {
			ServerRelativeURL string `json:"serverRelativeURL"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(get(t, s, "/openapi/v3").Body.Bytes(), &index); err != nil {
		t.Fatal(err)
	}
	urls := map[string]string{}
	for path, entry := range index.Paths {
		urls[path] = entry.ServerRelativeURL
	}
	return urls
}

// Clients cache v3 documents by hash: an update keeps the documents of the
// group versions it does not change.
func TestUpdateKeepsUnchangedDocuments(t *testing.T) {
	s := newService(t, pods, deployments)
	before := v3URLs(t, s)

	withoutExec := pods
	withoutExec.Subresources = pods.Subresources[:1]
	if err := s.Update([]Resource{withoutExec, deployments}); err != nil {
		t.Fatal(err)
	}
	after := v3URLs(t, s)
	if after["apis/apps/v1"] != before["apis/apps/v1"] {
		t.Error("apps/v1 did not change but has a new hash")
	}
	if after["api/v1"] == before["api/v1"] {
		t.Error("v1 changed but kept its hash")
	}
}

// A document's hash is the same in every server of one build that serves
// the same resources, so that clients keep their caches across restarts
// and replicas; another build, or other resources, give another hash.
func TestV3HashesFollowContentAndBuild(t *testing.T) {
	saved := buildIdentity
	defer func() { buildIdentity = saved }()
	buildIdentity = func() string { return "revision 1" }

	first, second := v3URLs(t, newService(t, pods, deployments)), v3URLs(t, newService(t, pods, deployments))
	if !reflect.DeepEqual(first, second) {
		t.Errorf("two servers of one build hash alike resources apart:\n%v\n%v", first, second)
	}
	other := v3URLs(t, newService(t, pods))
	if other["api/v1"] != first["api/v1"] {
		t.Error("the same core resources were hashed apart")
	}

	buildIdentity = func() string { return "revision 2" }
	for path, url := range v3URLs(t, newService(t, pods, deployments)) {
		if url == first[path] {
			t.Errorf("%s: another build kept the hash %s", path, url)
		}
	}
}

// Documents can be read while they are replaced.
func TestConcurrentRequestsAndUpdates(t *testing.T) {
	s := newService(t, pods)
	var wg sync.WaitGroup
	for _, path := range []string{"/openapi/v2", "/openapi/v3", "/openapi/v3/version"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 5 {
				if w := get(t, s, path); w.Code != http.StatusOK {
					t.Errorf("GET %s: %d", path, w.Code)
				}
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for range 5 {
			if w := get(t, s, "/openapi/v2", "Accept", mediaTypeProtobuf); w.Code != http.StatusOK {
				t.Errorf("GET /openapi/v2 in protobuf: %d", w.Code)
			}
		}
	}()
	for i := range 5 {
		resources := []Resource{pods}
		if i%2 == 0 {
			resources = append(resources, deployments)
		}
		if err := s.Update(resources); err != nil {
			t.Error(err)
		}
		crd := []Resource{cronTabs()}
		if i%2 == 1 {
			crd = nil
		}
		if err := s.SetGroupVersion(stableV1, crd); err != nil {
			t.Error(err)
		}
	}
	wg.Wait()
}

// The documents are at hand in the server too, for whatever needs the
// schemas of the served types.
func TestInProcessDocuments(t *testing.T) {
	s := newService(t, pods, deployments)
	v3, err := s.OpenAPIV3(schema.GroupVersion{Group: "apps", Version: "v1"})
	if err != nil || v3.Components.Schemas["io.k8s.api.apps.v1.Deployment"] == nil {
		t.Errorf("apps/v1: %v", err)
	}
	if v3, err := s.OpenAPIV3(schema.GroupVersion{Group: "batch", Version: "v1"}); v3 != nil || err != nil {
		t.Errorf("batch/v1 is not served: %v, %v", v3, err)
	}
	v2, err := s.OpenAPIV2()
	if err != nil || v2.Definitions["io.k8s.api.core.v1.Pod"].Description == "" {
		t.Errorf("v2: %v", err)
	}
}

// Setting the resources of one group version describes that group version
// only, and only its v3 document gets a new hash: with a thousand CRDs,
// changing one costs what one costs.
func TestSetGroupVersionIsIncremental(t *testing.T) {
	s := newService(t, pods, deployments, cronTabs())
	described := map[schema.GroupVersionKind]int{}
	resolve := s.types
	s.types = func(gvk schema.GroupVersionKind) (reflect.Type, error) {
		described[gvk]++
		return resolve(gvk)
	}
	before, v2Before := v3URLs(t, s), get(t, s, "/openapi/v2").Header().Get("Etag")

	changed := cronTabs()
	changed.Schema = &KindSchema{
		V3: &spec.Schema{SchemaProps: spec.SchemaProps{Type: spec.StringOrArray{"object"}, Description: "changed"}},
		V2: &spec.Schema{SchemaProps: spec.SchemaProps{Type: spec.StringOrArray{"object"}, Description: "changed"}},
	}
	if err := s.SetGroupVersion(stableV1, []Resource{changed}); err != nil {
		t.Fatal(err)
	}
	if want := map[schema.GroupVersionKind]int{scaleKind: 1}; !reflect.DeepEqual(described, want) {
		t.Errorf("described %v, want the Scale of crontabs/scale only", described)
	}
	after := v3URLs(t, s)
	for path, url := range before {
		if changed := after[path] != url; changed != (path == "apis/stable.example.com/v1") {
			t.Errorf("%s: changed %v", path, changed)
		}
	}
	if get(t, s, "/openapi/v2").Header().Get("Etag") == v2Before {
		t.Error("the v2 document did not change")
	}
	if got := v3Document(t, s, "apis/stable.example.com/v1")["components"].(map[string]any)["schemas"].(map[string]any)["com.example.stable.v1.CronTab"].(map[string]any)["description"]; got != "changed" {
		t.Errorf("the new definition is not served: %v", got)
	}

	// The same resources again change nothing.
	clear(described)
	v2Etag := get(t, s, "/openapi/v2").Header().Get("Etag")
	if err := s.SetGroupVersion(stableV1, []Resource{changed}); err != nil {
		t.Fatal(err)
	}
	if len(described) > 0 || get(t, s, "/openapi/v2").Header().Get("Etag") != v2Etag {
		t.Errorf("setting the same resources described %v, or changed the v2 document", described)
	}

	// No resources remove the group version, and the discovery documents
	// that go with it.
	if err := s.SetGroupVersion(schema.GroupVersion{Group: "apps", Version: "v1"}, nil); err != nil {
		t.Fatal(err)
	}
	if got, want := v3Paths(t, s), []string{"api", "api/v1", "apis/stable.example.com/v1", "version"}; !equal(got, want) {
		t.Errorf("index: %v, want %v", got, want)
	}
}

// A group's discovery document stays while any version of the group is
// served, through changes of their resources.
func TestGroupDiscoveryFollowsItsLastVersion(t *testing.T) {
	v1beta1 := deployments
	v1beta1.GVK.Version, v1beta1.ListGVK.Version = "v1beta1", "v1beta1"
	appsV1, appsV1beta1 := schema.GroupVersion{Group: "apps", Version: "v1"}, schema.GroupVersion{Group: "apps", Version: "v1beta1"}
	changed := deployments
	changed.Verbs = []string{"get"}
	only := newService(t, deployments)
	groupDoc := only.v3Docs["apis/apps"]
	if err := only.SetGroupVersion(appsV1, []Resource{changed}); err != nil {
		t.Fatal(err)
	}
	if only.v3Docs["apis/apps"] != groupDoc {
		t.Error("a change of the group's only version replaced the group's document, and its encodings")
	}

	s := newService(t, deployments, v1beta1)
	if err := s.SetGroupVersion(appsV1, []Resource{changed}); err != nil {
		t.Fatal(err)
	}
	if got, want := v3Paths(t, s), []string{"apis", "apis/apps", "apis/apps/v1", "apis/apps/v1beta1", "version"}; !equal(got, want) {
		t.Errorf("after a change of apps/v1: %v, want %v", got, want)
	}
	if err := s.SetGroupVersion(appsV1, nil); err != nil {
		t.Fatal(err)
	}
	if got, want := v3Paths(t, s), []string{"apis", "apis/apps", "apis/apps/v1beta1", "version"}; !equal(got, want) {
		t.Errorf("after removing apps/v1: %v, want %v", got, want)
	}
	if err := s.SetGroupVersion(appsV1beta1, nil); err != nil {
		t.Fatal(err)
	}
	if got, want := v3Paths(t, s), []string{"version"}; !equal(got, want) {
		t.Errorf("after removing apps/v1beta1: %v, want %v", got, want)
	}
}

// Setting group versions one by one serves what one Update serves.
func TestSetGroupVersionAgreesWithUpdate(t *testing.T) {
	all := newService(t, pods, deployments, cronTabs())
	one := newService(t)
	for gv, rs := range map[schema.GroupVersion][]Resource{
		{Version: "v1"}: {pods}, {Group: "apps", Version: "v1"}: {deployments}, stableV1: {cronTabs()},
	} {
		if err := one.SetGroupVersion(gv, rs); err != nil {
			t.Fatal(err)
		}
	}
	if a, b := v3URLs(t, all), v3URLs(t, one); !reflect.DeepEqual(a, b) {
		t.Errorf("v3 index: %v and %v", a, b)
	}
	if a, b := get(t, all, "/openapi/v2").Header().Get("Etag"), get(t, one, "/openapi/v2").Header().Get("Etag"); a != b {
		t.Error("the v2 documents differ")
	}
}
