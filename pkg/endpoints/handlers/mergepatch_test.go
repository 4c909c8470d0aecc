package handlers

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	jsonpatchv4 "gopkg.in/evanphx/json-patch.v4"
)

// mergePatchSeeds are documents and patches that reach every rule of a
// merge patch and every quirk of the library kube-apiserver uses.
var mergePatchSeeds = []struct{ doc, patch string }{
	{`{"a":1,"b":{"c":2}}`, `{"a":null,"b":{"d":3}}`},
	{`{"a":1}`, `{"a":{"x":null,"y":[{"z":null},null]}}`},
	{`{"a":null}`, `{"a":{"x":null,"y":1}}`},
	{`{"a":{"b":1}}`, `{"a":[{"x":null}]}`},
	{`{"a":{"b":1}}`, `{"a":"s"}`},
	{`{"a":[1,2]}`, `{"a":{"x":null,"y":2}}`},
	{`{"a":1}`, `[{"a":null},null,1]`},
	{`[1]`, `{"a":null,"b":1}`},
	{`"s"`, `{"a":{"b":null}}`},
	{`{"a":1}`, `null`},
	{`null`, `{"a":1}`},
	{`{"a":1}`, `"s"`},
	{`{"a":1}`, `1`},
	{`{"a":1}`, `{"a":`},
	{`{"a":`, `{"a":1}`},
	{`{"a":1}`, `{"a":1} x`},
	{`{"a":1}`, ``},
	{`{"n":1.50,"m":12345678901234567890123}`, `{"k":1e400,"n":-0}`},
	{`{"a":1,"a":2}`, `{"b":1,"b":{"c":null}}`},
	{`{"s":"<&>\u2028"}`, `{"t":"\ud800","u":"é"}`},
	{`{"a":{"b":{"c":{"d":1}}}}`, `{"a":{"b":{"c":{"d":null,"e":{"f":null}}}}}`},
}

// The merge patch gives what kube-apiserver's library gives, for every
// document and patch: the same error, or the same JSON value.
func FuzzMergePatchMatchesKubeAPIServer(f *testing.F) {
	for _, s := range mergePatchSeeds {
		f.Add(s.doc, s.patch)
	}
	f.Fuzz(func(t *testing.T, doc, patch string) {
		checkMergePatch(t, doc, patch)
	})
}

func TestMergePatchMatchesKubeAPIServer(t *testing.T) {
	for _, s := range mergePatchSeeds {
		checkMergePatch(t, s.doc, s.patch)
	}
}

func checkMergePatch(t *testing.T, doc, patch string) {
	t.Helper()
	want, wantErr := jsonpatchv4.MergePatch([]byte(doc), []byte(patch))
	got, err := mergePatch([]byte(doc), []byte(patch))
	if wantErr != nil || err != nil {
		if wantErr == nil || err == nil || err.Error() != wantErr.Error() {
			t.Fatalf("merge %s into %s: got %s, %v; kube-apiserver's library %s, %v", patch, doc, got, err, want, wantErr)
		}
		return
	}
	if !reflect.DeepEqual(jsonValue(t, got), jsonValue(t, want)) {
		t.Fatalf("merge %s into %s: got %s, kube-apiserver's library %s", patch, doc, got, want)
	}
}

func jsonValue(t *testing.T, data []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("%s: %v", data, err)
	}
	return v
}

// A merge patch nested as deep as JSON may be (10000 levels, 60 KB) is
// applied with work in proportion to its size: the library
// kube-apiserver uses allocates gigabytes for it.
func TestDeepMergePatchIsLinear(t *testing.T) {
	const depth = 9999
	patch := []byte(`{"x":` + strings.Repeat(`{"a":`, depth) + "null" + strings.Repeat("}", depth) + "}")
	doc := []byte(`{"x":` + strings.Repeat(`{"a":`, depth) + "1" + strings.Repeat("}", depth) + "}")
	allocated := testing.AllocsPerRun(1, func() {
		if _, err := mergePatch(doc, patch); err != nil {
			t.Fatal(err)
		}
	})
	// Bounded by a multiple of the input, not its square: a few
	// allocations per level.
	if allocated > 20*depth {
		t.Errorf("%v allocations for a patch %d deep", allocated, depth)
	}
}
