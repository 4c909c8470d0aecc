package openapi

import (
	"bytes"
	"testing"

	openapi_v2 "github.com/google/gnostic-models/openapiv2"
	"google.golang.org/protobuf/proto"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The v2 document is put together from the encodings of its parts, in
// JSON and in protobuf. It must be the document spec.Swagger encodes, and
// the protobuf gnostic makes of that JSON, to the byte.
func TestV2PartsMakeTheWholeDocument(t *testing.T) {
	s := newKubeService(t)
	if err := s.SetGroupVersion(stableV1, []Resource{cronTabs()}); err != nil {
		t.Fatal(err)
	}
	if err := s.SetGroupVersion(schema.GroupVersion{Group: "widgets.example.com", Version: "v1"}, []Resource{clusterWidgets("widgets.example.com")}); err != nil {
		t.Fatal(err)
	}
	doc, _, err := s.v2.doc.Get()
	if err != nil {
		t.Fatal(err)
	}
	whole, err := doc.Swagger()
	if err != nil {
		t.Fatal(err)
	}
	want, err := whole.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	got, err := doc.JSON()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		i := 0
		for i < len(got) && i < len(want) && got[i] == want[i] {
			i++
		}
		t.Fatalf("the JSON differs at byte %d:\n got %s\nwant %s", i, excerpt(got, i), excerpt(want, i))
	}

	parsed, err := openapi_v2.ParseDocument(want)
	if err != nil {
		t.Fatal(err)
	}
	wantPB, err := proto.Marshal(parsed)
	if err != nil {
		t.Fatal(err)
	}
	gotPB, err := doc.Protobuf()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(gotPB, wantPB) {
		t.Errorf("the protobuf differs: %d bytes, want %d", len(gotPB), len(wantPB))
	}
}

func excerpt(b []byte, at int) string {
	return string(b[max(0, at-80):min(len(b), at+80)])
}

// Parts that name different parameters alike cannot be put together: the
// document is then built from all the operations at once, which names
// them apart.
func TestV2PartsThatCollide(t *testing.T) {
	a := operation{method: "GET", path: "/a", id: "a", tag: "t", params: []parameter{{name: "p", in: "query", typ: "string", description: "one"}}}
	b := operation{method: "GET", path: "/b", id: "b", tag: "t", params: []parameter{{name: "p", in: "query", typ: "string", description: "two"}}}
	partA, err := newV2Part([]operation{a})
	if err != nil {
		t.Fatal(err)
	}
	partB, err := newV2Part([]operation{b})
	if err != nil {
		t.Fatal(err)
	}
	// Pretend the hashes collided.
	for name, p := range partB.parameters {
		delete(partB.parameters, name)
		for other := range partA.parameters {
			partB.parameters[other] = p
		}
	}
	doc := &v2Document{info: Info{Title: "t", Version: "v"}, sources: []*v3Source{{ops: []operation{a}}, {ops: []operation{b}}}, defs: newV2DefinitionCache(kindIndex{})}
	doc.sources[1].v2Once.Do(func() { doc.sources[1].v2 = partB })
	swagger, err := doc.Swagger()
	if err != nil {
		t.Fatal(err)
	}
	if len(swagger.Parameters) != 2 {
		t.Errorf("parameters %v, want two", swagger.Parameters)
	}
	want, err := swagger.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if got, err := doc.JSON(); err != nil || !bytes.Equal(got, want) {
		t.Errorf("JSON %s, %v; want %s", got, err, want)
	}
}
