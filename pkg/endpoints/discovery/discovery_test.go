package discovery

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"

	"github.com/kapi-dev/kapi/internal/required"
)

const (
	acceptAggregated         = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
	acceptAggregatedProtobuf = "application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
	// What client-go's discovery client sends.
	acceptClientGo = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json"
	acceptProtobuf = "application/vnd.kubernetes.protobuf"

	// The address kube-apiserver advertised when the reference was taken.
	referenceServerAddress = "192.0.2.2:6443"
)

var (
	allVerbs       = []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}
	subresourceRW  = []string{"get", "patch", "update"}
	namespaceVerbs = []string{"create", "delete", "get", "list", "patch", "update", "watch"}
)

func svh(group, version, kind string) string {
	return StorageVersionHash(schema.GroupVersionKind{Group: group, Version: version, Kind: kind})
}

// referenceRegistry serves a subset of what kube-apiserver 1.37 serves,
// described as the kube server describes it: core v1 configmaps and
// namespaces (with status and finalize), apps/v1 deployments (with status,
// and scale answering autoscaling/v1 Scale), autoscaling v2 (preferred)
// and v1 with HorizontalPodAutoscalers stored as autoscaling/v2.
// Resources are given out of order: the registry sorts them.
func referenceRegistry() *Registry {
	reg := NewRegistry()
	reg.Set(GroupVersion{
		GroupVersion: schema.GroupVersion{Version: "v1"},
		Resources: []metav1.APIResource{
			{Name: "namespaces/status", Kind: "Namespace", Verbs: subresourceRW},
			{Name: "namespaces/finalize", Kind: "Namespace", Verbs: []string{"update"}},
			{Name: "namespaces", SingularName: "namespace", Kind: "Namespace", Verbs: namespaceVerbs, ShortNames: []string{"ns"},
				StorageVersionHash: svh("", "v1", "Namespace")},
			{Name: "configmaps", SingularName: "configmap", Namespaced: true, Kind: "ConfigMap", Verbs: allVerbs, ShortNames: []string{"cm"},
				StorageVersionHash: svh("", "v1", "ConfigMap")},
		},
	})
	reg.Set(GroupVersion{
		GroupVersion:  schema.GroupVersion{Group: "apps", Version: "v1"},
		GroupPriority: 17800, VersionPriority: 15,
		Resources: []metav1.APIResource{
			{Name: "deployments/status", Namespaced: true, Kind: "Deployment", Verbs: subresourceRW},
			{Name: "deployments", SingularName: "deployment", Namespaced: true, Kind: "Deployment", Verbs: allVerbs,
				ShortNames: []string{"deploy"}, Categories: []string{"all"}, StorageVersionHash: svh("apps", "v1", "Deployment")},
			{Name: "deployments/scale", Namespaced: true, Group: "autoscaling", Version: "v1", Kind: "Scale", Verbs: subresourceRW},
		},
	})
	hpa := func() []metav1.APIResource {
		return []metav1.APIResource{
			{Name: "horizontalpodautoscalers", SingularName: "horizontalpodautoscaler", Namespaced: true, Kind: "HorizontalPodAutoscaler",
				Verbs: allVerbs, ShortNames: []string{"hpa"}, Categories: []string{"all"},
				StorageVersionHash: svh("autoscaling", "v2", "HorizontalPodAutoscaler")},
			{Name: "horizontalpodautoscalers/status", Namespaced: true, Kind: "HorizontalPodAutoscaler", Verbs: subresourceRW},
		}
	}
	reg.Set(GroupVersion{GroupVersion: schema.GroupVersion{Group: "autoscaling", Version: "v1"}, GroupPriority: 17500, VersionPriority: 15, Resources: hpa()})
	reg.Set(GroupVersion{GroupVersion: schema.GroupVersion{Group: "autoscaling", Version: "v2"}, GroupPriority: 17500, VersionPriority: 30, Resources: hpa()})
	return reg
}

// mux routes discovery paths the way the outermost server does.
func mux(h *Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
		served := true
		switch {
		case r.URL.Path == "/api":
			h.ServeLegacyRoot(w, r)
		case r.URL.Path == "/apis":
			h.ServeGroups(w, r)
		case len(parts) == 2 && parts[0] == "api":
			served = h.ServeResources(w, r, schema.GroupVersion{Version: parts[1]})
		case len(parts) == 2 && parts[0] == "apis":
			served = h.ServeGroup(w, r, parts[1])
		case len(parts) == 3 && parts[0] == "apis":
			served = h.ServeResources(w, r, schema.GroupVersion{Group: parts[1], Version: parts[2]})
		default:
			served = false
		}
		if !served {
			http.NotFound(w, r)
		}
	})
}

func get(t *testing.T, h http.Handler, path, accept string, header ...string) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest(http.MethodGet, path, nil)
	if accept != "" {
		r.Header.Set("Accept", accept)
	}
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

func decodeMap(t *testing.T, data []byte) map[string]any {
	t.Helper()
	m := map[string]any{}
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("decoding %q: %v", data, err)
	}
	return m
}

// keepEntries returns the elements of list (JSON objects) whose field key
// is one of names, in list order.
func keepEntries(list any, key string, names ...string) []any {
	var out []any
	for _, e := range list.([]any) {
		for _, n := range names {
			if e.(map[string]any)[key] == n {
				out = append(out, e)
			}
		}
	}
	return out
}

func findEntry(t *testing.T, list any, match func(map[string]any) bool) map[string]any {
	t.Helper()
	for _, e := range list.([]any) {
		if m := e.(map[string]any); match(m) {
			return m
		}
	}
	t.Fatalf("no matching entry in %v", list)
	return nil
}

func byName(name string) func(map[string]any) bool {
	return func(m map[string]any) bool { return m["name"] == name }
}

func byMetadataName(name string) func(map[string]any) bool {
	return func(m map[string]any) bool {
		meta, _ := m["metadata"].(map[string]any)
		got, _ := meta["name"].(string)
		return got == name
	}
}

func assertJSONEqual(t *testing.T, what string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		g, _ := json.MarshalIndent(got, "", "  ")
		w, _ := json.MarshalIndent(want, "", "  ")
		t.Errorf("%s differs from kube-apiserver's:\n got %s\nwant %s", what, g, w)
	}
}

func TestStorageVersionHash(t *testing.T) {
	cases := []struct {
		gvk  schema.GroupVersionKind
		want string
	}{
		// Values served by kube-apiserver 1.37.
		{schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, "qFsyl6wFWjQ="},
		{schema.GroupVersionKind{Version: "v1", Kind: "Namespace"}, "Q3oi5N2YM8M="},
		{schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, "8aSe+NMegvE="},
		{schema.GroupVersionKind{Group: "autoscaling", Version: "v2", Kind: "HorizontalPodAutoscaler"}, "qwQve8ut294="},
	}
	for _, tc := range cases {
		if got := StorageVersionHash(tc.gvk); got != tc.want {
			t.Errorf("StorageVersionHash(%v) = %q, want %q", tc.gvk, got, tc.want)
		}
	}
}

// TestLegacyDocumentsMatchReference compares the legacy documents with
// those kube-apiserver served for the same group versions and resources.
func TestLegacyDocumentsMatchReference(t *testing.T) {
	h := mux(&Handler{Registry: referenceRegistry(), ServerAddress: referenceServerAddress})

	t.Run("/api", func(t *testing.T) {
		w := get(t, h, "/api", "application/json")
		if w.Code != http.StatusOK || w.Header().Get("Content-Type") != "application/json" {
			t.Fatalf("got %d %q: %s", w.Code, w.Header().Get("Content-Type"), w.Body)
		}
		// The whole document: kind without apiVersion, the versions and
		// the advertised address.
		assertJSONEqual(t, "/api", decodeMap(t, w.Body.Bytes()), decodeMap(t, readReference(t, "discovery/api.json")))
	})

	resourceLists := []struct {
		path, file string
		names      []string // nil: every resource of the reference
	}{
		{"/api/v1", "discovery/api_v1.json", []string{"configmaps", "namespaces", "namespaces/finalize", "namespaces/status"}},
		{"/apis/apps/v1", "discovery/apis/apps_v1.json", []string{"deployments", "deployments/scale", "deployments/status"}},
		{"/apis/autoscaling/v1", "discovery/apis/autoscaling_v1.json", nil},
		{"/apis/autoscaling/v2", "discovery/apis/autoscaling_v2.json", nil},
	}
	for _, tc := range resourceLists {
		t.Run(tc.path, func(t *testing.T) {
			w := get(t, h, tc.path, "")
			if w.Code != http.StatusOK {
				t.Fatalf("got %d: %s", w.Code, w.Body)
			}
			got, want := decodeMap(t, w.Body.Bytes()), decodeMap(t, readReference(t, tc.file))
			if tc.names != nil {
				want["resources"] = keepEntries(want["resources"], "name", tc.names...)
				if len(want["resources"].([]any)) != len(tc.names) {
					t.Fatalf("reference lacks some of %v", tc.names)
				}
			}
			// Every field, apiVersion (absent for /api/v1) included,
			// and the resources in order with their storageVersionHash.
			assertJSONEqual(t, tc.path, got, want)
		})
	}

	t.Run("/apis", func(t *testing.T) {
		w := get(t, h, "/apis", "")
		if w.Code != http.StatusOK {
			t.Fatalf("got %d: %s", w.Code, w.Body)
		}
		got, want := decodeMap(t, w.Body.Bytes()), decodeMap(t, readReference(t, "discovery/apis.json"))
		want["groups"] = keepEntries(want["groups"], "name", "apps", "autoscaling")
		// Groups ordered by priority as in the reference, versions by
		// version priority, the first preferred.
		assertJSONEqual(t, "/apis", got, want)
	})

	t.Run("/apis/autoscaling", func(t *testing.T) {
		w := get(t, h, "/apis/autoscaling", "")
		if w.Code != http.StatusOK {
			t.Fatalf("got %d: %s", w.Code, w.Body)
		}
		want := findEntry(t, decodeMap(t, readReference(t, "discovery/apis.json"))["groups"], byName("autoscaling"))
		want["kind"], want["apiVersion"] = "APIGroup", "v1"
		assertJSONEqual(t, "/apis/autoscaling", decodeMap(t, w.Body.Bytes()), want)
	})
}

func TestLegacyDocumentsNotServed(t *testing.T) {
	h := &Handler{Registry: referenceRegistry()}
	for _, gv := range []schema.GroupVersion{{Version: "v2"}, {Group: "apps", Version: "v1beta1"}, {Group: "nonexistent.example.com", Version: "v1"}} {
		if h.ServeResources(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/", nil), gv) {
			t.Errorf("ServeResources(%v) served a group version that is not registered", gv)
		}
	}
	w := httptest.NewRecorder()
	if h.ServeGroup(w, httptest.NewRequest(http.MethodGet, "/apis/batch", nil), "batch") {
		t.Error("ServeGroup served a group that is not registered")
	}
	if w.Body.Len() != 0 || w.Code != http.StatusOK || len(w.Header()) != 0 {
		t.Errorf("a group that is not served must leave the response to the caller, got %d %v %q", w.Code, w.Header(), w.Body)
	}
	t.Run("/api without an address to advertise", func(t *testing.T) {
		var versions metav1.APIVersions
		if err := json.Unmarshal(get(t, mux(h), "/api", "").Body.Bytes(), &versions); err != nil {
			t.Fatal(err)
		}
		if len(versions.ServerAddressByClientCIDRs) != 0 || !reflect.DeepEqual(versions.Versions, []string{"v1"}) {
			t.Errorf("got %+v, want versions [v1] and no address", versions)
		}
	})
}

func TestOrdering(t *testing.T) {
	reg := NewRegistry()
	set := func(group, version string, groupPriority, versionPriority int) {
		reg.Set(GroupVersion{
			GroupVersion:  schema.GroupVersion{Group: group, Version: version},
			GroupPriority: groupPriority, VersionPriority: versionPriority,
			Resources: []metav1.APIResource{{Name: "things", Kind: "Thing", Verbs: []string{"get"}}},
		})
	}
	set("low.example.com", "v1", 100, 0)
	set("b.example.com", "v1", 1000, 0)
	set("a.example.com", "v1", 1000, 0)
	set("high.example.com", "v1", 20000, 0)
	// Equal version priorities: Kubernetes version order (GA, beta,
	// alpha, higher numbers first).
	set("kubeaware.example.com", "v2alpha1", 500, 0)
	set("kubeaware.example.com", "v1beta1", 500, 0)
	set("kubeaware.example.com", "v1", 500, 0)
	set("kubeaware.example.com", "v1beta2", 500, 0)
	// Version priority wins over version order.
	set("priority.example.com", "v1", 400, 10)
	set("priority.example.com", "v1beta1", 400, 20)

	var groups metav1.APIGroupList
	w := get(t, mux(&Handler{Registry: reg}), "/apis", "")
	if err := json.Unmarshal(w.Body.Bytes(), &groups); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, g := range groups.Groups {
		var versions []string
		for _, v := range g.Versions {
			versions = append(versions, v.Version)
		}
		got = append(got, fmt.Sprintf("%s %v preferred=%s", g.Name, versions, g.PreferredVersion.Version))
	}
	want := []string{
		"high.example.com [v1] preferred=v1",
		"a.example.com [v1] preferred=v1", // equal priority: by name
		"b.example.com [v1] preferred=v1",
		"kubeaware.example.com [v1 v1beta2 v1beta1 v2alpha1] preferred=v1",
		"priority.example.com [v1beta1 v1] preferred=v1beta1",
		"low.example.com [v1] preferred=v1",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("/apis groups:\n got %q\nwant %q", got, want)
	}

	// Aggregated discovery lists the groups and versions in the same order.
	var agg apidiscoveryv2.APIGroupDiscoveryList
	w = get(t, mux(&Handler{Registry: reg}), "/apis", acceptAggregated)
	if err := json.Unmarshal(w.Body.Bytes(), &agg); err != nil {
		t.Fatal(err)
	}
	got = nil
	for _, g := range agg.Items {
		var versions []string
		for _, v := range g.Versions {
			versions = append(versions, v.Version)
		}
		got = append(got, fmt.Sprintf("%s %v preferred=%s", g.Name, versions, versions[0]))
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("aggregated /apis groups:\n got %q\nwant %q", got, want)
	}
}

// TestAggregatedMatchesReference checks the apidiscovery.k8s.io/v2
// documents: headers as kube-apiserver sends them, subresources nested
// under their resource with their own responseKind, and entries equal to
// the reference's.
func TestAggregatedMatchesReference(t *testing.T) {
	h := mux(&Handler{Registry: referenceRegistry(), ServerAddress: referenceServerAddress})
	etagFormat := regexp.MustCompile(`^"[0-9A-F]{128}"$`)

	cases := []struct {
		path, file string
		check      func(t *testing.T, got, want map[string]any)
	}{
		{"/api", "aggregated-api", func(t *testing.T, got, want map[string]any) {
			item := want["items"].([]any)[0].(map[string]any)
			version := item["versions"].([]any)[0].(map[string]any)
			version["resources"] = keepEntries(version["resources"], "resource", "configmaps", "namespaces")
			assertJSONEqual(t, "aggregated /api", got, want)
		}},
		{"/apis", "aggregated-apis", func(t *testing.T, got, want map[string]any) {
			apps := findEntry(t, want["items"], byMetadataName("apps"))
			v1 := apps["versions"].([]any)[0].(map[string]any)
			v1["resources"] = keepEntries(v1["resources"], "resource", "deployments")
			autoscaling := findEntry(t, want["items"], byMetadataName("autoscaling"))
			want["items"] = []any{apps, autoscaling}
			assertJSONEqual(t, "aggregated /apis", got, want)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.path, func(t *testing.T) {
			w := get(t, h, tc.path, acceptAggregated)
			if w.Code != http.StatusOK {
				t.Fatalf("got %d: %s", w.Code, w.Body)
			}
			wantHeader := readReferenceHeaders(t, "discovery/"+tc.file+".headers.txt")
			for _, name := range []string{"Content-Type", "Vary", "Cache-Control"} {
				if got, want := w.Header().Get(name), wantHeader.Get(name); got != want {
					t.Errorf("%s = %q, want %q", name, got, want)
				}
			}
			if etag := wantHeader.Get("ETag"); !etagFormat.MatchString(etag) {
				t.Fatalf("the reference's etag %q has an unexpected form", etag)
			}
			if etag := w.Header().Get("ETag"); !etagFormat.MatchString(etag) {
				t.Errorf("ETag = %q, want a quoted SHA-512 in upper-case hex like kube-apiserver's", etag)
			}
			tc.check(t, decodeMap(t, w.Body.Bytes()), decodeMap(t, readReference(t, "discovery/"+tc.file+".json")))
		})
	}
}

func TestAggregatedSubresourcesNested(t *testing.T) {
	var list apidiscoveryv2.APIGroupDiscoveryList
	w := get(t, mux(&Handler{Registry: referenceRegistry()}), "/apis", acceptAggregated)
	if err := json.Unmarshal(w.Body.Bytes(), &list); err != nil {
		t.Fatal(err)
	}
	apps := list.Items[0]
	if apps.Name != "apps" || len(apps.Versions) != 1 || len(apps.Versions[0].Resources) != 1 {
		t.Fatalf("apps = %+v, want one version with one resource", apps)
	}
	deployments := apps.Versions[0].Resources[0]
	want := []apidiscoveryv2.APISubresourceDiscovery{
		{Subresource: "scale", ResponseKind: &metav1.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"}, Verbs: subresourceRW},
		{Subresource: "status", ResponseKind: &metav1.GroupVersionKind{Kind: "Deployment"}, Verbs: subresourceRW},
	}
	if !reflect.DeepEqual(deployments.Subresources, want) {
		t.Errorf("deployments subresources = %+v, want %+v", deployments.Subresources, want)
	}
}

// TestAggregatedOrphanSubresource: a subresource whose resource is not
// served is listed under a bare entry for the resource, after the served
// resources, as kube-apiserver does.
func TestAggregatedOrphanSubresource(t *testing.T) {
	reg := NewRegistry()
	reg.Set(GroupVersion{
		GroupVersion: schema.GroupVersion{Group: "example.com", Version: "v1"},
		Resources: []metav1.APIResource{
			{Name: "bars/status", Namespaced: true, Kind: "Bar", Verbs: []string{"get"}},
			{Name: "foos", SingularName: "foo", Namespaced: true, Kind: "Foo", Verbs: []string{"get"}},
		},
	})
	var list apidiscoveryv2.APIGroupDiscoveryList
	w := get(t, mux(&Handler{Registry: reg}), "/apis", acceptAggregated)
	if err := json.Unmarshal(w.Body.Bytes(), &list); err != nil {
		t.Fatal(err)
	}
	want := []apidiscoveryv2.APIResourceDiscovery{
		{Resource: "foos", SingularResource: "foo", Scope: apidiscoveryv2.ScopeNamespace, ResponseKind: &metav1.GroupVersionKind{Kind: "Foo"}, Verbs: []string{"get"}},
		{Resource: "bars", Scope: apidiscoveryv2.ScopeNamespace, ResponseKind: &metav1.GroupVersionKind{},
			Subresources: []apidiscoveryv2.APISubresourceDiscovery{{Subresource: "status", ResponseKind: &metav1.GroupVersionKind{Kind: "Bar"}, Verbs: []string{"get"}}}},
	}
	if got := list.Items[0].Versions[0].Resources; !reflect.DeepEqual(got, want) {
		t.Errorf("resources = %+v, want %+v", got, want)
	}
}

func TestAggregatedNegotiation(t *testing.T) {
	h := mux(&Handler{Registry: referenceRegistry()})
	cases := []struct {
		name, path, accept string
		wantCode           int
		wantType           string
	}{
		{"aggregated", "/apis", acceptAggregated, http.StatusOK, acceptAggregated},
		{"aggregated core", "/api", acceptAggregated, http.StatusOK, acceptAggregated},
		{"client-go's Accept", "/apis", acceptClientGo, http.StatusOK, acceptAggregated},
		{"aggregated in protobuf", "/apis", acceptAggregatedProtobuf, http.StatusOK, acceptAggregatedProtobuf},
		{"legacy", "/apis", "application/json", http.StatusOK, "application/json"},
		{"no Accept", "/apis", "", http.StatusOK, "application/json"},
		{"legacy in protobuf", "/apis", acceptProtobuf, http.StatusOK, acceptProtobuf},
		{"v2beta1 is not served", "/apis", "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList", http.StatusNotAcceptable, "application/json"},
		{"a Table of groups is not served", "/apis", "application/json;as=Table;g=meta.k8s.io;v=v1", http.StatusNotAcceptable, "application/json"},
		{"unknown media type", "/apis", "application/xml", http.StatusNotAcceptable, "application/json"},
		{"group document ignores aggregation", "/apis/apps", acceptClientGo, http.StatusOK, "application/json"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := get(t, h, tc.path, tc.accept)
			if w.Code != tc.wantCode || w.Header().Get("Content-Type") != tc.wantType {
				t.Errorf("got %d %q, want %d %q: %s", w.Code, w.Header().Get("Content-Type"), tc.wantCode, tc.wantType, w.Body)
			}
			if tc.wantCode == http.StatusNotAcceptable && !strings.Contains(w.Body.String(), `"reason":"NotAcceptable"`) {
				t.Errorf("406 body is not a NotAcceptable Status: %s", w.Body)
			}
			isAggregated := strings.Contains(tc.wantType, "as=APIGroupDiscoveryList")
			if got := w.Header().Get("ETag") != ""; got != isAggregated {
				t.Errorf("ETag present = %v, want %v", got, isAggregated)
			}
		})
	}
}

func TestAggregatedETag(t *testing.T) {
	reg := referenceRegistry()
	h := mux(&Handler{Registry: reg})
	first := get(t, h, "/apis", acceptAggregated)
	etag := first.Header().Get("ETag")
	if etag == "" {
		t.Fatal("no ETag")
	}
	if again := get(t, h, "/apis", acceptAggregated); again.Header().Get("ETag") != etag || again.Body.String() != first.Body.String() {
		t.Error("the same document must be served with the same ETag")
	}

	t.Run("If-None-Match with the current ETag", func(t *testing.T) {
		w := get(t, h, "/apis", acceptAggregated, "If-None-Match", etag)
		if w.Code != http.StatusNotModified || w.Body.Len() != 0 {
			t.Errorf("got %d with %d bytes, want 304 with no body", w.Code, w.Body.Len())
		}
		if w.Header().Get("ETag") != etag {
			t.Errorf("ETag = %q, want %q", w.Header().Get("ETag"), etag)
		}
	})
	t.Run("If-None-Match with another ETag", func(t *testing.T) {
		w := get(t, h, "/apis", acceptAggregated, "If-None-Match", `"0123"`)
		if w.Code != http.StatusOK || w.Body.String() != first.Body.String() {
			t.Errorf("got %d, want 200 with the document", w.Code)
		}
	})
	t.Run("the core document has its own ETag", func(t *testing.T) {
		w := get(t, h, "/api", acceptAggregated, "If-None-Match", etag)
		if w.Code != http.StatusOK || w.Header().Get("ETag") == etag {
			t.Errorf("got %d with ETag %q", w.Code, w.Header().Get("ETag"))
		}
	})
	t.Run("a change gives a new ETag", func(t *testing.T) {
		reg.Set(GroupVersion{
			GroupVersion: schema.GroupVersion{Group: "batch", Version: "v1"}, GroupPriority: 17400,
			Resources: []metav1.APIResource{{Name: "jobs", Namespaced: true, Kind: "Job", Verbs: allVerbs}},
		})
		w := get(t, h, "/apis", acceptAggregated, "If-None-Match", etag)
		if w.Code != http.StatusOK || w.Header().Get("ETag") == etag {
			t.Errorf("got %d with ETag %q after a change, want 200 and a new ETag", w.Code, w.Header().Get("ETag"))
		}
		if !strings.Contains(w.Body.String(), `"jobs"`) {
			t.Errorf("the new group version is missing: %s", w.Body)
		}
	})
}

// TestAggregatedEncodedOncePerChange: the aggregated documents are
// encoded once per state of the registry and media type, and concurrent
// first requests share that one encoding.
func TestAggregatedEncodedOncePerChange(t *testing.T) {
	reg := referenceRegistry()
	d := reg.docs()
	info, ok := runtime.SerializerInfoForMediaType(discoveryCodecs.SupportedMediaTypes(), runtime.ContentTypeJSON)
	if !ok {
		t.Fatal("no JSON serializer")
	}
	json := info.Serializer
	var wg sync.WaitGroup
	docs := make([]*encodedDocument, 8)
	for i := range docs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			docs[i] = d.encodedAggregated(d.aggregatedAPIs, "application/json", json)
		}()
	}
	wg.Wait()
	for _, doc := range docs[1:] {
		if doc != docs[0] {
			t.Fatal("concurrent requests encoded the document more than once")
		}
	}
	if len(docs[0].body) == 0 || docs[0].err != nil {
		t.Fatalf("encoded %d bytes, %v", len(docs[0].body), docs[0].err)
	}
	if core := d.encodedAggregated(d.aggregatedAPI, "application/json", json); core == docs[0] {
		t.Error("/api and /apis share an encoding")
	}
	if yaml := d.encodedAggregated(d.aggregatedAPIs, "application/yaml", json); yaml == docs[0] {
		t.Error("two media types share an encoding")
	}
	reg.Remove(schema.GroupVersion{Group: "apps", Version: "v1"})
	if reg.docs() == d {
		t.Fatal("a change kept the documents and their encodings")
	}
}

// TestProtobufDecodes: every document a client may ask for in protobuf
// decodes into the same object as its JSON form.
func TestProtobufDecodes(t *testing.T) {
	scheme := runtime.NewScheme()
	metav1.AddToGroupVersion(scheme, schema.GroupVersion{Version: "v1"})
	if err := apidiscoveryv2.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	codecs := serializer.NewCodecFactory(scheme)
	protobuf, ok := runtime.SerializerInfoForMediaType(codecs.SupportedMediaTypes(), runtime.ContentTypeProtobuf)
	if !ok {
		t.Fatal("no protobuf serializer")
	}
	h := mux(&Handler{Registry: referenceRegistry(), ServerAddress: referenceServerAddress})

	cases := []struct {
		path, jsonAccept, protobufAccept string
		newObj                           func() runtime.Object
	}{
		{"/api", "", acceptProtobuf, func() runtime.Object { return &metav1.APIVersions{} }},
		{"/api/v1", "", acceptProtobuf, func() runtime.Object { return &metav1.APIResourceList{} }},
		{"/apis", "", acceptProtobuf, func() runtime.Object { return &metav1.APIGroupList{} }},
		{"/apis/autoscaling", "", acceptProtobuf, func() runtime.Object { return &metav1.APIGroup{} }},
		{"/apis/apps/v1", "", acceptProtobuf, func() runtime.Object { return &metav1.APIResourceList{} }},
		{"/api", acceptAggregated, acceptAggregatedProtobuf, func() runtime.Object { return &apidiscoveryv2.APIGroupDiscoveryList{} }},
		{"/apis", acceptAggregated, acceptAggregatedProtobuf, func() runtime.Object { return &apidiscoveryv2.APIGroupDiscoveryList{} }},
	}
	for _, tc := range cases {
		t.Run(tc.path+" "+tc.protobufAccept, func(t *testing.T) {
			pw := get(t, h, tc.path, tc.protobufAccept)
			if pw.Code != http.StatusOK {
				t.Fatalf("protobuf: got %d: %s", pw.Code, pw.Body)
			}
			fromProtobuf := tc.newObj()
			if _, _, err := protobuf.Serializer.Decode(pw.Body.Bytes(), nil, fromProtobuf); err != nil {
				t.Fatalf("decoding protobuf: %v", err)
			}
			jw := get(t, h, tc.path, tc.jsonAccept)
			fromJSON := tc.newObj()
			if err := json.Unmarshal(jw.Body.Bytes(), fromJSON); err != nil {
				t.Fatal(err)
			}
			// TypeMeta is what each encoding carries; compare the content.
			fromProtobuf.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
			fromJSON.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
			if !reflect.DeepEqual(fromProtobuf, fromJSON) {
				t.Errorf("protobuf and JSON differ:\nprotobuf %+v\n    json %+v", fromProtobuf, fromJSON)
			}
		})
	}
}

func TestSetRemove(t *testing.T) {
	reg := referenceRegistry()
	h := mux(&Handler{Registry: reg})
	widgets := GroupVersion{
		GroupVersion: schema.GroupVersion{Group: "example.com", Version: "v1"},
		Resources:    []metav1.APIResource{{Name: "widgets", Namespaced: true, Kind: "Widget", Verbs: allVerbs}},
	}
	if reg.Has(widgets.GroupVersion) || reg.HasGroup("example.com") {
		t.Fatal("example.com is served before it is set")
	}
	reg.Set(widgets)
	if !reg.Has(widgets.GroupVersion) || !reg.HasGroup("example.com") {
		t.Fatal("example.com is not served after Set")
	}
	for _, p := range []string{"/apis/example.com", "/apis/example.com/v1"} {
		if w := get(t, h, p, ""); w.Code != http.StatusOK {
			t.Errorf("%s: got %d", p, w.Code)
		}
	}

	// Set replaces the resources of a group version.
	widgets.Resources = []metav1.APIResource{{Name: "gadgets", Namespaced: true, Kind: "Gadget", Verbs: allVerbs}}
	reg.Set(widgets)
	var list metav1.APIResourceList
	if err := json.Unmarshal(get(t, h, "/apis/example.com/v1", "").Body.Bytes(), &list); err != nil {
		t.Fatal(err)
	}
	if len(list.APIResources) != 1 || list.APIResources[0].Name != "gadgets" {
		t.Errorf("after replacing, resources = %+v", list.APIResources)
	}

	// A second version, then removing the first: the group stays with
	// the second as preferred.
	v2 := widgets
	v2.GroupVersion.Version = "v2"
	reg.Set(v2)
	reg.Remove(widgets.GroupVersion)
	if reg.Has(widgets.GroupVersion) || !reg.HasGroup("example.com") {
		t.Fatal("Remove of one version must keep the group")
	}
	var group metav1.APIGroup
	if err := json.Unmarshal(get(t, h, "/apis/example.com", "").Body.Bytes(), &group); err != nil {
		t.Fatal(err)
	}
	if len(group.Versions) != 1 || group.PreferredVersion.GroupVersion != "example.com/v2" {
		t.Errorf("group = %+v", group)
	}

	reg.Remove(v2.GroupVersion)
	if reg.HasGroup("example.com") {
		t.Fatal("the group is still served after its last version was removed")
	}
	for _, p := range []string{"/apis/example.com", "/apis/example.com/v1", "/apis/example.com/v2"} {
		if w := get(t, h, p, ""); w.Code != http.StatusNotFound {
			t.Errorf("%s: got %d after removal, want 404", p, w.Code)
		}
	}
	for _, accept := range []string{"", acceptAggregated} {
		if body := get(t, h, "/apis", accept).Body.String(); strings.Contains(body, "example.com") {
			t.Errorf("/apis (Accept %q) still lists the removed group: %s", accept, body)
		}
	}
}

// TestSetDoesNotKeepCallerSlice: the registry owns what it serves; a
// caller reusing its slice does not change the documents.
func TestSetDoesNotKeepCallerSlice(t *testing.T) {
	reg := NewRegistry()
	resources := []metav1.APIResource{
		{Name: "b", Kind: "B", Verbs: []string{"get"}},
		{Name: "a", Kind: "A", Verbs: []string{"get"}},
	}
	reg.Set(GroupVersion{GroupVersion: schema.GroupVersion{Group: "example.com", Version: "v1"}, Resources: resources})
	resources[0].Name = "changed"
	var list metav1.APIResourceList
	if err := json.Unmarshal(get(t, mux(&Handler{Registry: reg}), "/apis/example.com/v1", "").Body.Bytes(), &list); err != nil {
		t.Fatal(err)
	}
	if got := []string{list.APIResources[0].Name, list.APIResources[1].Name}; !reflect.DeepEqual(got, []string{"a", "b"}) {
		t.Errorf("resources = %v, want [a b]", got)
	}
}

// TestConcurrentSetRemoveWhileServing adds and removes a group version
// (as the CRD controller does) while clients read every document. Run
// with -race; every response must be complete and well-formed.
func TestConcurrentSetRemoveWhileServing(t *testing.T) {
	reg := referenceRegistry()
	h := mux(&Handler{Registry: reg})
	crd := GroupVersion{
		GroupVersion: schema.GroupVersion{Group: "example.com", Version: "v1"},
		Resources: []metav1.APIResource{
			{Name: "widgets", Namespaced: true, Kind: "Widget", Verbs: allVerbs},
			{Name: "widgets/status", Namespaced: true, Kind: "Widget", Verbs: subresourceRW},
		},
	}
	const writes = 200
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(done)
		for i := 0; i < writes; i++ {
			if i%2 == 0 {
				reg.Set(crd)
			} else {
				reg.Remove(crd.GroupVersion)
			}
		}
	}()
	requests := []struct{ path, accept string }{
		{"/api", ""}, {"/apis", ""}, {"/apis", acceptAggregated}, {"/api", acceptAggregated},
		{"/apis", acceptAggregatedProtobuf}, {"/apis/apps/v1", ""}, {"/apis/example.com", ""}, {"/apis/example.com/v1", ""},
		{"/api/v1", acceptProtobuf}, {"/apis", "application/yaml"}, {"/apis/example.com/v1", acceptProtobuf},
	}
	errs := make(chan error, len(requests))
	for _, rq := range requests {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; ; n++ {
				select {
				case <-done:
					if n > 0 {
						return
					}
				default:
				}
				w := get(t, h, rq.path, rq.accept)
				switch {
				case strings.HasPrefix(rq.path, "/apis/example.com") && w.Code == http.StatusNotFound:
				case w.Code != http.StatusOK:
					errs <- fmt.Errorf("%s (%s): got %d", rq.path, rq.accept, w.Code)
					return
				case (rq.accept == "" || rq.accept == acceptAggregated) && !json.Valid(w.Body.Bytes()):
					errs <- fmt.Errorf("%s (%s): invalid JSON %q", rq.path, rq.accept, w.Body)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	// The last write was a Remove.
	if reg.Has(crd.GroupVersion) {
		t.Error("example.com/v1 is served after its last Remove")
	}
}

// readReference reads a file of the facts recorded from kube-apiserver,
// which live beside the repository in ../shared/reference.
func readReference(t *testing.T, rel string) []byte {
	t.Helper()
	return required.ReadReference(t, rel)
}

// readReferenceHeaders parses a recorded "HTTP/2 200" status line and
// headers.
func readReferenceHeaders(t *testing.T, rel string) http.Header {
	t.Helper()
	h := http.Header{}
	lines := strings.Split(strings.ReplaceAll(string(readReference(t, rel)), "\r\n", "\n"), "\n")
	for _, l := range lines[1:] {
		if k, v, ok := strings.Cut(l, ":"); ok {
			h.Add(strings.TrimSpace(k), strings.TrimSpace(v))
		}
	}
	return h
}
