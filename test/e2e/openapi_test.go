package e2e

import (
	"bytes"
	"compress/gzip"
	"crypto/sha512"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/client-go/rest"

	"github.com/kapi-dev/kapi/internal/required"
	"github.com/kapi-dev/kapi/pkg/testserver"
)

// openAPIDiffers are the documents of kube-apiserver 1.37.1's /openapi/v3
// index that kapi serves differently or not at all, and why.
var openAPIDiffers = map[string]string{}

// The /openapi/v3 documents a kapi binary serves are kube-apiserver's to
// the byte, as the SHA-512 hashes of kube-apiserver's index say, but for
// those of openAPIDiffers.
func TestOpenAPIV3DocumentsAreKubeAPIServers(t *testing.T) {
	var want struct {
		Paths map[string]struct {
			ServerRelativeURL string `json:"serverRelativeURL"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(required.ReadReference(t, "openapi/v3-index.json"), &want); err != nil {
		t.Fatal(err)
	}
	p := startKapiBinary(t, t.TempDir())
	cfg := p.restConfig(t)
	client, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	// document returns the SHA-512 of what kapi serves at path, as
	// kube-apiserver's index writes it.
	document := func(path string) string {
		resp, err := client.Get(cfg.Host + "/openapi/v3/" + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != http.StatusOK {
			return fmt.Sprintf("status %d", resp.StatusCode)
		}
		return fmt.Sprintf("%X", sha512.Sum512(body))
	}

	var paths []string
	for path := range want.Paths {
		paths = append(paths, path)
	}
	sort.Strings(paths)
	same := 0
	for _, path := range paths {
		u, err := url.Parse(want.Paths[path].ServerRelativeURL)
		if err != nil {
			t.Fatal(err)
		}
		_, expectDiff := openAPIDiffers[path]
		switch got, wantHash := document(path), u.Query().Get("hash"); {
		case got == wantHash:
			same++
			if expectDiff {
				t.Errorf("%s is now kube-apiserver's: update openAPIDiffers", path)
			}
		case !expectDiff:
			t.Errorf("%s: the document's hash is %s, kube-apiserver's %s", path, got, wantHash)
		}
	}
	t.Logf("%d of the %d documents of kube-apiserver's index are identical", same, len(paths))
}

// The recording of kube-apiserver 1.37.1's /openapi/v2 (JSON), read from a
// fresh oracle that serves only the built-in resources.
const openAPIV2Recording = "testdata/kube-apiserver/openapi-v2.json.gz"

// openAPIV2NotServed are the groups of kube-apiserver's document kapi does
// not serve yet: their paths (by prefix) and definitions (by name prefix)
// are taken out of the recording before it is compared.
var openAPIV2NotServed = []struct{ path, definitions, why string }{}

// openAPIV2KnownDifferences are the definitions of kube-apiserver's
// /openapi/v2 that kapi's differs from, each in the one extension named,
// and why.
var openAPIV2KnownDifferences = map[string]struct{ extension, why string }{
	"io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions": {"x-kubernetes-group-version-kind",
		"kube-apiserver lists the kind in every group version its scheme knows, those it does not serve included; kapi's scheme knows the served ones and meta.k8s.io/v1"},
	"io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent": {"x-kubernetes-group-version-kind",
		"kube-apiserver lists the kind in every group version its scheme knows, those it does not serve included; kapi's scheme knows the served ones and meta.k8s.io/v1"},
}

// The /openapi/v2 document of a fresh kapi is kube-apiserver's: the same
// paths, definitions, parameters and the rest, each compared whole, once
// the groups kapi does not serve yet are taken out of kube-apiserver's
// (openAPIV2NotServed); the definitions of openAPIV2KnownDifferences
// differ only in the extension named there.
func TestOpenAPIV2DocumentIsKubeAPIServers(t *testing.T) {
	want := readOpenAPIV2Recording(t)
	s := testserver.Start(t, testserver.Options{})
	raw, err := clientset(t, s.ClientConfig).RESTClient().Get().AbsPath("/openapi/v2").SetHeader("Accept", "application/json").DoRaw(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}

	wantPaths, gotPaths := want["paths"].(map[string]any), got["paths"].(map[string]any)
	wantDefs, gotDefs := want["definitions"].(map[string]any), got["definitions"].(map[string]any)
	for _, g := range openAPIV2NotServed {
		for path := range wantPaths {
			if strings.HasPrefix(path, g.path) {
				delete(wantPaths, path)
			}
		}
		for name := range wantDefs {
			if strings.HasPrefix(name, g.definitions) {
				delete(wantDefs, name)
			}
		}
	}
	samePaths := 0
	for _, path := range slices.Sorted(maps.Keys(mergeKeys(wantPaths, gotPaths))) {
		if diff := cmp.Diff(wantPaths[path], gotPaths[path]); diff != "" {
			t.Errorf("path %s (-kube-apiserver +kapi):\n%s", path, diff)
		} else {
			samePaths++
		}
	}
	sameDefs := 0
	for _, name := range slices.Sorted(maps.Keys(mergeKeys(wantDefs, gotDefs))) {
		w, g := wantDefs[name], gotDefs[name]
		if known, ok := openAPIV2KnownDifferences[name]; ok {
			wm, _ := w.(map[string]any)
			gm, _ := g.(map[string]any)
			if cmp.Equal(wm[known.extension], gm[known.extension]) {
				t.Errorf("definition %s: %s is now kube-apiserver's: update openAPIV2KnownDifferences", name, known.extension)
			}
			w, g = maps.Clone(wm), maps.Clone(gm)
			delete(w.(map[string]any), known.extension)
			delete(g.(map[string]any), known.extension)
		}
		if diff := cmp.Diff(w, g); diff != "" {
			t.Errorf("definition %s (-kube-apiserver +kapi):\n%s", name, diff)
		} else {
			sameDefs++
		}
	}
	// And the rest: swagger, info, parameters, security.
	for _, doc := range []map[string]any{want, got} {
		delete(doc, "paths")
		delete(doc, "definitions")
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("document (-kube-apiserver +kapi):\n%s", diff)
	}
	t.Logf("%d of %d paths and %d of %d definitions are kube-apiserver's (%d differ in the known ways)",
		samePaths, len(wantPaths), sameDefs-len(openAPIV2KnownDifferences), len(wantDefs), len(openAPIV2KnownDifferences))
}

func readOpenAPIV2Recording(t *testing.T) map[string]any {
	t.Helper()
	data, err := os.ReadFile(openAPIV2Recording)
	if err != nil {
		t.Fatal(err)
	}
	r, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.NewDecoder(r).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// mergeKeys is a map with the keys of both.
func mergeKeys(a, b map[string]any) map[string]bool {
	out := map[string]bool{}
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}
