package openapi

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/kapi-dev/kapi/internal/required"
	kapiopenapi "github.com/kapi-dev/kapi/pkg/openapi"
)

// These benchmarks measure what a CRD change costs the OpenAPI documents
// of a server that has 1,000 CRDs installed, each in its own group: the
// update itself, and the documents clients fetch after it.

// fleet returns n custom resources, each in a group of its own, cycling
// through the served versions of crds. Copies share their definitions, as
// they would share nothing but their size in a real server.
func fleet(b *testing.B, crds []*apiextensionsv1.CustomResourceDefinition, n int) []kapiopenapi.Resource {
	b.Helper()
	bases := servedResources(b, crds)
	out := make([]kapiopenapi.Resource, n)
	for i := range out {
		r := bases[i%len(bases)]
		regroup := func(gvk schema.GroupVersionKind) schema.GroupVersionKind {
			if gvk.Group == r.GVK.Group {
				gvk.Group = fmt.Sprintf("g%04d.%s", i, gvk.Group)
			}
			return gvk
		}
		subresources := make([]kapiopenapi.Subresource, len(r.Subresources))
		for j, sub := range r.Subresources {
			sub.GVK = regroup(sub.GVK)
			subresources[j] = sub
		}
		r.Subresources = subresources
		r.GVK, r.ListGVK = regroup(r.GVK), regroup(r.ListGVK)
		out[i] = r
	}
	return out
}

// withNewSchema is r after a change of its CRD's schema.
func withNewSchema(r kapiopenapi.Resource, generation int) kapiopenapi.Resource {
	described := func(s *spec.Schema) *spec.Schema {
		c := *s
		c.Description = fmt.Sprintf("generation %d", generation)
		return &c
	}
	r.Schema = &kapiopenapi.KindSchema{V3: described(r.Schema.V3), V2: described(r.Schema.V2)}
	return r
}

func newFleetService(b *testing.B, resources []kapiopenapi.Resource) *kapiopenapi.Service {
	b.Helper()
	s := kapiopenapi.NewService(kapiopenapi.Config{Info: kapiopenapi.Info{Title: "Kubernetes", Version: "1.37"}, Scheme: scheme.Scheme})
	if err := s.Update(append(append([]kapiopenapi.Resource(nil), builtins...), resources...)); err != nil {
		b.Fatal(err)
	}
	return s
}

// smallCRDs are the real-world CRDs of ordinary size (some 13 KB of YAML):
// a v2 document of 1,000 of the largest would weigh gigabytes.
func smallCRDs(b *testing.B) []*apiextensionsv1.CustomResourceDefinition {
	var small []*apiextensionsv1.CustomResourceDefinition
	for _, crd := range loadCRDs(b) {
		switch crd.Name {
		case "orders.acme.cert-manager.io", "certificaterequests.cert-manager.io", "prometheusrules.monitoring.coreos.com":
			small = append(small, crd)
		}
	}
	return small
}

// BenchmarkSetGroupVersionAmong1000CRDs is what the CRD server pays when
// one CRD of 1,000 changes: the documents are only built when asked for.
func BenchmarkSetGroupVersionAmong1000CRDs(b *testing.B) {
	resources := fleet(b, loadCRDs(b), 1000)
	s := newFleetService(b, resources)
	changed := resources[500]
	gv := changed.GVK.GroupVersion()
	generation := 0
	for b.Loop() {
		generation++
		if err := s.SetGroupVersion(gv, []kapiopenapi.Resource{withNewSchema(changed, generation)}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkUpdateAllAmong1000CRDs is the same change through Update, which
// is handed every resource and finds the group version that changed.
func BenchmarkUpdateAllAmong1000CRDs(b *testing.B) {
	resources := fleet(b, loadCRDs(b), 1000)
	all := append(append([]kapiopenapi.Resource(nil), builtins...), resources...)
	s := newFleetService(b, resources)
	changed := len(builtins) + 500
	generation := 0
	for b.Loop() {
		generation++
		all[changed] = withNewSchema(all[changed], generation)
		if err := s.Update(all); err != nil {
			b.Fatal(err)
		}
	}
}

// benchmarkFetchAfterChange changes one CRD of 1,000 and fetches a
// document, as clients do when they see the change.
func benchmarkFetchAfterChange(b *testing.B, path func(gv schema.GroupVersion) string, header ...string) {
	resources := fleet(b, smallCRDs(b), 1000)
	s := newFleetService(b, resources)
	changed := resources[500]
	gv := changed.GVK.GroupVersion()
	url := path(gv)
	generation := 0
	fetch := func() {
		w := httptest.NewRecorder()
		r := httptest.NewRequest("GET", url, nil)
		for i := 0; i+1 < len(header); i += 2 {
			r.Header.Set(header[i], header[i+1])
		}
		s.ServeHTTP(w, r)
		if w.Code != http.StatusOK {
			b.Fatalf("GET %s: %d", url, w.Code)
		}
		b.SetBytes(int64(w.Body.Len()))
	}
	fetch() // the documents of the others are built once
	for b.Loop() {
		generation++
		if err := s.SetGroupVersion(gv, []kapiopenapi.Resource{withNewSchema(changed, generation)}); err != nil {
			b.Fatal(err)
		}
		fetch()
	}
}

// BenchmarkV2AfterChangeAmong1000CRDs: /openapi/v2 has every CRD; it is
// assembled and encoded again.
func BenchmarkV2AfterChangeAmong1000CRDs(b *testing.B) {
	benchmarkFetchAfterChange(b, func(schema.GroupVersion) string { return "/openapi/v2" })
}

// BenchmarkV3AfterChangeAmong1000CRDs: the v3 document of the group
// version that changed is built again, and no other.
func BenchmarkV3AfterChangeAmong1000CRDs(b *testing.B) {
	benchmarkFetchAfterChange(b, func(gv schema.GroupVersion) string { return "/openapi/v3/apis/" + gv.Group + "/" + gv.Version })
}

// BenchmarkV3IndexAfterChangeAmong1000CRDs: the index lists the hash of
// every document; only the changed one is built again.
func BenchmarkV3IndexAfterChangeAmong1000CRDs(b *testing.B) {
	benchmarkFetchAfterChange(b, func(schema.GroupVersion) string { return "/openapi/v3" })
}

// BenchmarkResourceSchema builds the definitions of the largest real-world
// CRD (prometheuses.monitoring.coreos.com, 830 KB of YAML).
func BenchmarkResourceSchema(b *testing.B) {
	var crd *apiextensionsv1.CustomResourceDefinition
	for _, c := range loadCRDs(b) {
		if c.Name == "prometheuses.monitoring.coreos.com" {
			crd = c
		}
	}
	if crd == nil {
		required.Missing(b, "prometheuses.monitoring.coreos.com in ../shared/crds", errors.New("not in the corpus"))
	}
	for b.Loop() {
		if _, _, err := ResourceSchema(crd, "v1"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkV2ProtobufAfterChangeAmong1000CRDs: kubectl reads /openapi/v2 in
// protobuf.
func BenchmarkV2ProtobufAfterChangeAmong1000CRDs(b *testing.B) {
	benchmarkFetchAfterChange(b, func(schema.GroupVersion) string { return "/openapi/v2" }, "Accept", "application/com.github.proto-openapi.spec.v2@v1.0+protobuf")
}
