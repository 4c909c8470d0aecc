package e2e

import (
	"crypto/sha512"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"testing"

	"k8s.io/client-go/rest"

	"github.com/kapi-dev/kapi/internal/required"
)

// openAPIDiffers are the documents of kube-apiserver 1.37.1's /openapi/v3
// index that kapi serves differently or not at all, and why.
var openAPIDiffers = map[string]string{
	".well-known/openid-configuration":     "the service account issuer's documents are not described",
	"openid/v1/jwks":                       "the service account issuer's documents are not described",
	"apis/admissionregistration.k8s.io":    notYetServed["admissionregistration.k8s.io/v1"],
	"apis/admissionregistration.k8s.io/v1": notYetServed["admissionregistration.k8s.io/v1"],
	"apis/apiregistration.k8s.io":          notYetServed["apiregistration.k8s.io/v1"],
	"apis/apiregistration.k8s.io/v1":       notYetServed["apiregistration.k8s.io/v1"],
}

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
