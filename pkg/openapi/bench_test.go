package openapi

import (
	"net/http"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// These benchmarks measure what the first and later requests for the
// documents cost: the documents are built on first use, from definitions
// that are shared by the whole process once built.

// forgetDefinitions makes the next document build its definitions again,
// as the first one after start-up does.
func forgetDefinitions() {
	v2Definitions, v3Definitions = newDefinitions(v2), newDefinitions(v3)
}

// BenchmarkUpdate is what the server pays at start-up: describing the
// resources, without building any document.
func BenchmarkUpdate(b *testing.B) {
	resources := kubeResources(b)
	s := newKubeService(b)
	for b.Loop() {
		if err := s.Update(resources); err != nil {
			b.Fatal(err)
		}
	}
}

func benchmarkFirstRequest(b *testing.B, path string, header ...string) {
	for b.Loop() {
		b.StopTimer()
		forgetDefinitions()
		s := newKubeService(b)
		b.StartTimer()
		if w := get(b, s, path, header...); w.Code != http.StatusOK {
			b.Fatalf("GET %s: %d", path, w.Code)
		}
	}
}

func BenchmarkFirstV2JSON(b *testing.B) { benchmarkFirstRequest(b, "/openapi/v2") }

func BenchmarkFirstV2Protobuf(b *testing.B) {
	benchmarkFirstRequest(b, "/openapi/v2", "Accept", mediaTypeProtobuf)
}

// BenchmarkFirstV3Index builds every v3 document: the index has the hash of
// each.
func BenchmarkFirstV3Index(b *testing.B) { benchmarkFirstRequest(b, "/openapi/v3") }

func BenchmarkCachedV2JSON(b *testing.B) {
	s := newKubeService(b)
	get(b, s, "/openapi/v2")
	for b.Loop() {
		get(b, s, "/openapi/v2")
	}
}

// BenchmarkBuildV2 builds the v2 document from cold definitions, without
// encoding it.
func BenchmarkBuildV2(b *testing.B) {
	s := newKubeService(b)
	var ops []operation
	resources := kubeResources(b)
	byGV := map[schema.GroupVersion][]Resource{}
	for _, r := range resources {
		byGV[r.GVK.GroupVersion()] = append(byGV[r.GVK.GroupVersion()], r)
	}
	for gv, rs := range byGV {
		gvOps, err := groupVersionOperations(gv, rs, s.types)
		if err != nil {
			b.Fatal(err)
		}
		ops = append(ops, gvOps...)
	}
	for b.Loop() {
		b.StopTimer()
		forgetDefinitions()
		b.StartTimer()
		if _, err := buildV2(s.info, ops, s.kinds); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMarshalV2 encodes the v2 document in JSON.
func BenchmarkMarshalV2(b *testing.B) {
	s := newKubeService(b)
	doc, err := s.OpenAPIV2()
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := doc.MarshalJSON(); err != nil {
			b.Fatal(err)
		}
	}
}
