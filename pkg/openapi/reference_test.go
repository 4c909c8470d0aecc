package openapi

import (
	"crypto/sha512"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"

	mustHave "github.com/kapi-dev/kapi/internal/required"
)

func readReference(t testing.TB, name string, into any) {
	t.Helper()
	data := mustHave.ReadReference(t, name)
	if err := json.Unmarshal(data, into); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// What discovery does not say about kube-apiserver's resources.
var (
	// deleteReturnsObject are the resources whose DELETE answers with the
	// object.
	deleteReturnsObject = map[string]bool{
		"v1/persistentvolumeclaims": true, "v1/persistentvolumes": true, "v1/pods": true, "v1/podtemplates": true,
		"v1/resourcequotas": true, "v1/serviceaccounts": true, "v1/services": true,
		"storage.k8s.io/v1/csidrivers": true, "storage.k8s.io/v1/csinodes": true, "storage.k8s.io/v1/storageclasses": true,
		"storage.k8s.io/v1/volumeattachments": true, "storage.k8s.io/v1/volumeattributesclasses": true,
		"resource.k8s.io/v1/deviceclasses": true, "resource.k8s.io/v1/resourceclaims": true,
		"resource.k8s.io/v1/resourceclaimtemplates": true, "resource.k8s.io/v1/resourceslices": true,
	}
	proxyMethods  = []string{"GET", "PUT", "POST", "DELETE", "OPTIONS", "HEAD", "PATCH"}
	streamMethods = []string{"GET", "POST"}
	// connect are kube-apiserver's connect subresources.
	connect = map[string]Subresource{
		"v1/pods/attach":      {ConnectMethods: streamMethods},
		"v1/pods/exec":        {ConnectMethods: streamMethods},
		"v1/pods/portforward": {ConnectMethods: streamMethods},
		"v1/pods/proxy":       {ConnectMethods: proxyMethods, ConnectSubpath: true},
		"v1/services/proxy":   {ConnectMethods: proxyMethods, ConnectSubpath: true},
		"v1/nodes/proxy":      {ConnectMethods: proxyMethods, ConnectSubpath: true},
	}
)

// kubeResources returns the resources kube-apiserver 1.37.1 serves, read
// from its recorded discovery, for the groups whose types client-go knows.
func kubeResources(t testing.TB) []Resource {
	t.Helper()
	files := []string{"discovery/api_v1.json"}
	referenceDir := mustHave.Reference(t)
	matches, err := filepath.Glob(filepath.Join(referenceDir, "discovery/apis/*.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range matches {
		files = append(files, strings.TrimPrefix(m, referenceDir+"/"))
	}

	var out []Resource
	for _, file := range files {
		var list metav1.APIResourceList
		readReference(t, file, &list)
		gv, err := schema.ParseGroupVersion(list.GroupVersion)
		if err != nil {
			t.Fatal(err)
		}
		if !scheme.Scheme.IsVersionRegistered(gv) {
			continue // apiextensions.k8s.io, apiregistration.k8s.io
		}
		byName := map[string]*Resource{}
		var names []string
		for _, ar := range list.APIResources {
			resource, sub, isSub := strings.Cut(ar.Name, "/")
			kind := gv.WithKind(ar.Kind)
			if ar.Group != "" || ar.Version != "" {
				kind = schema.GroupVersionKind{Group: ar.Group, Version: ar.Version, Kind: ar.Kind}
			}
			if !isSub {
				byName[resource] = &Resource{
					GVK: kind, ListGVK: gv.WithKind(ar.Kind + "List"), Resource: resource, Namespaced: ar.Namespaced,
					Verbs: ar.Verbs, DeleteReturnsObject: deleteReturnsObject[list.GroupVersion+"/"+resource],
				}
				names = append(names, resource)
				continue
			}
			s, ok := connect[list.GroupVersion+"/"+ar.Name]
			if !ok {
				s.Verbs = ar.Verbs
			}
			s.Name, s.GVK = sub, kind
			if list.GroupVersion == "v1" && ar.Name == "pods/log" {
				s.GetOptions = gv.WithKind("PodLogOptions")
				s.Produces = []string{"text/plain"}
			}
			byName[resource].Subresources = append(byName[resource].Subresources, s)
		}
		sort.Strings(names)
		for _, n := range names {
			out = append(out, *byName[n])
		}
	}
	return out
}

func newKubeService(t testing.TB) *Service {
	t.Helper()
	s := NewService(Config{Info: Info{Title: "Kubernetes", Version: "1.37"}, Scheme: scheme.Scheme, ServiceAccountIssuerDiscovery: true})
	if err := s.Update(kubeResources(t)); err != nil {
		t.Fatal(err)
	}
	return s
}

// get serves one request.
func get(t testing.TB, h http.Handler, path string, header ...string) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest("GET", path, nil)
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// v3Document fetches a v3 document through the index, decoded as plain
// JSON values.
func v3Document(t testing.TB, s *Service, path string) map[string]any {
	t.Helper()
	var index struct {
		Paths map[string]struct {
			ServerRelativeURL string `json:"serverRelativeURL"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(get(t, s, "/openapi/v3").Body.Bytes(), &index); err != nil {
		t.Fatal(err)
	}
	entry, ok := index.Paths[path]
	if !ok {
		t.Fatalf("the index has no %q", path)
	}
	w := get(t, s, entry.ServerRelativeURL)
	if w.Code != http.StatusOK {
		t.Fatalf("GET %s: %d", entry.ServerRelativeURL, w.Code)
	}
	var doc map[string]any
	if err := json.Unmarshal(w.Body.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// Given the resources kube-apiserver serves, the v3 documents of core/v1 and
// apps/v1 are kube-apiserver's: every definition and every path.
func TestV3DocumentsMatchKubeAPIServer(t *testing.T) {
	s := newKubeService(t)
	for _, tc := range []struct{ path, reference string }{
		{"api/v1", "openapi/v3-api_v1.json"},
		{"apis/apps/v1", "openapi/v3-apis_apps_v1.json"},
	} {
		t.Run(tc.path, func(t *testing.T) {
			var want map[string]any
			readReference(t, tc.reference, &want)
			got := v3Document(t, s, tc.path)

			wantSchemas := want["components"].(map[string]any)["schemas"].(map[string]any)
			gotSchemas := got["components"].(map[string]any)["schemas"].(map[string]any)
			for _, name := range sortedKeys(wantSchemas, gotSchemas) {
				if diff := cmp.Diff(wantSchemas[name], gotSchemas[name]); diff != "" {
					t.Errorf("definition %s (-kube-apiserver +kapi):\n%s", name, diff)
				}
			}
			wantPaths := want["paths"].(map[string]any)
			gotPaths := got["paths"].(map[string]any)
			for _, path := range sortedKeys(wantPaths, gotPaths) {
				if diff := cmp.Diff(wantPaths[path], gotPaths[path]); diff != "" {
					t.Errorf("path %s (-kube-apiserver +kapi):\n%s", path, diff)
				}
			}
			// And the rest: version, info, security schemes.
			for _, doc := range []map[string]any{want, got} {
				delete(doc, "paths")
				delete(doc["components"].(map[string]any), "schemas")
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("document (-kube-apiserver +kapi):\n%s", diff)
			}
		})
	}
}

// kube-apiserver's v3 index links each document with the SHA-512 of its
// bytes. For most group versions that of kapi's document is the same: the
// documents are identical to the byte. (kapi's index hashes what the
// documents are built from instead, to answer without building them.)
func TestV3DocumentsAreByteIdenticalToKubeAPIServer(t *testing.T) {
	var want struct {
		Paths map[string]struct {
			ServerRelativeURL string `json:"serverRelativeURL"`
		} `json:"paths"`
	}
	readReference(t, "openapi/v3-index.json", &want)
	s := newKubeService(t)
	// contentHash is the SHA-512 of the document kapi serves at path, as
	// kube-apiserver's index writes it.
	contentHash := func(path string) string {
		w := get(t, s, "/openapi/v3/"+path)
		if w.Code != http.StatusOK {
			return fmt.Sprintf("status %d", w.Code)
		}
		return fmt.Sprintf("%X", sha512.Sum512(w.Body.Bytes()))
	}

	// What kapi does not serve, or serves differently, and why.
	differ := map[string]string{
		"apis/apiextensions.k8s.io":      "CustomResourceDefinition types are not in client-go's scheme",
		"apis/apiextensions.k8s.io/v1":   "CustomResourceDefinition types are not in client-go's scheme",
		"apis/apiregistration.k8s.io":    "APIService types are not in client-go's scheme",
		"apis/apiregistration.k8s.io/v1": "APIService types are not in client-go's scheme",
	}
	same := 0
	for path, entry := range want.Paths {
		_, expectDiff := differ[path]
		u, err := url.Parse(entry.ServerRelativeURL)
		if err != nil {
			t.Fatal(err)
		}
		wantHash := u.Query().Get("hash")
		switch gotHash := contentHash(path); {
		case gotHash == wantHash:
			same++
			if expectDiff {
				t.Errorf("%s is now identical to kube-apiserver's: update the test", path)
			}
		case !expectDiff:
			t.Errorf("%s: the document's hash is %s, kube-apiserver's %s", path, gotHash, wantHash)
		}
	}
	t.Logf("%d of %d documents are identical to kube-apiserver's", same, len(want.Paths))
}

func sortedKeys(maps ...map[string]any) []string {
	seen := map[string]bool{}
	var keys []string
	for _, m := range maps {
		for k := range m {
			if !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
	}
	sort.Strings(keys)
	return keys
}
