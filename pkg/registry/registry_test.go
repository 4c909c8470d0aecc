package registry

import (
	"errors"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

// fakeStorage records whether it was released.
type fakeStorage struct{ destroyed int }

func (f *fakeStorage) New() runtime.Object { return &corev1.ConfigMap{} }
func (f *fakeStorage) Destroy()            { f.destroyed++ }

// fakeResource serves one storage at its paths, as a resource with
// subresources serves its store at several.
type fakeResource struct {
	storage *fakeStorage
	paths   []string
}

func (r fakeResource) Map() map[string]rest.Storage {
	m := map[string]rest.Storage{}
	for _, p := range r.paths {
		m[p] = r.storage
	}
	return m
}

func newResource(paths ...string) (fakeResource, error) {
	return fakeResource{storage: &fakeStorage{}, paths: paths}, nil
}

func TestGroupStorageCollectsEachVersionsPaths(t *testing.T) {
	var g GroupStorage
	v1, v2 := g.Version("v1"), g.Version("v2")
	v1.Add(newResource("things", "things/status"))
	v1.Add(newResource("others"))
	v2.Add(newResource("things"))
	got, err := g.Result()
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || len(got["v1"]) != 3 || len(got["v2"]) != 1 {
		t.Fatalf("got %v, want v1 with things, things/status and others, v2 with things", got)
	}
	if got["v1"]["things"] != got["v1"]["things/status"] {
		t.Error("a resource's paths must keep the storage its Map gives them")
	}
}

func TestGroupStorageWithoutVersionsIsEmpty(t *testing.T) {
	var g GroupStorage
	got, err := g.Result()
	if err != nil || len(got) != 0 {
		t.Errorf("got %v, %v; want nothing served and no error", got, err)
	}
}

// A failed build releases every storage built before and after it, once,
// and its error names the version.
func TestGroupStorageReleasesWhatItBuiltOnError(t *testing.T) {
	var g GroupStorage
	v1 := g.Version("v1")
	before, _ := newResource("things", "things/status")
	v1.Add(before, nil)
	v1.Add(nil, errors.New("boom"))
	after, _ := newResource("others")
	v1.Add(after, nil)
	got, err := g.Result()
	if err == nil || got != nil || !strings.Contains(err.Error(), "v1") || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("got %v, %v; want no storage and the error of v1", got, err)
	}
	if before.storage.destroyed != 1 || after.storage.destroyed != 1 {
		t.Errorf("released %d and %d times, want each once", before.storage.destroyed, after.storage.destroyed)
	}
}

// Two resources cannot claim one path of a version.
func TestGroupStorageRefusesAPathDeclaredTwice(t *testing.T) {
	var g GroupStorage
	v1 := g.Version("v1")
	first, _ := newResource("things")
	v1.Add(first, nil)
	v1.Add(newResource("things"))
	if _, err := g.Result(); err == nil || !strings.Contains(err.Error(), "things is declared twice") {
		t.Errorf("got %v, want an error naming the path", err)
	}
	if first.storage.destroyed != 1 {
		t.Errorf("the first storage was released %d times, want once", first.storage.destroyed)
	}
}
