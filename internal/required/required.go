// Package required gives tests the data they compare kapi with, and
// decides what a test does when that data is not there.
//
// The data lives beside the repository, in ../shared: facts recorded from
// a real kube-apiserver 1.37.1 (reference/kube-apiserver-v1.37.1) and
// real-world CRDs (crds). CI clones the repository with a copy of shared/
// beside it and runs with CI=true; there a missing file fails the test,
// because a compatibility test that does not run must not pass. On a
// developer's machine without the data the test is skipped, and the
// message says where the data comes from.
package required

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// ReferenceVersion names the recorded kube-apiserver below shared/reference.
const ReferenceVersion = "kube-apiserver-v1.37.1"

// InCI reports whether the tests run in CI, where every prerequisite must
// be present. CI sets CI=true, as most CI systems do.
func InCI() bool { return os.Getenv("CI") == "true" }

// Missing ends the test because something it needs is not there: a
// failure under CI=true, a skip elsewhere. what names the prerequisite
// and how to get it.
func Missing(t testing.TB, what string, err error) {
	t.Helper()
	if InCI() {
		t.Fatalf("required %s is missing (CI=true, so this fails rather than skips): %v", what, err)
	}
	t.Skipf("skipped: %s is missing: %v (under CI=true this fails)", what, err)
}

// SharedDir is the shared/ directory beside the repository, found from
// this file's location so that tests work from any package directory.
func SharedDir() string {
	_, file, _, _ := runtime.Caller(0)
	// file is <repo>/internal/required/required.go.
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "shared")
}

// Shared returns the path of rel below shared/, ending the test (see
// Missing) if it does not exist.
func Shared(t testing.TB, rel ...string) string {
	t.Helper()
	path := filepath.Join(append([]string{SharedDir()}, rel...)...)
	if _, err := os.Stat(path); err != nil {
		Missing(t, describe(rel), err)
	}
	return path
}

// Reference returns the path of rel below the recorded kube-apiserver
// facts, ending the test (see Missing) if it does not exist.
func Reference(t testing.TB, rel ...string) string {
	t.Helper()
	return Shared(t, append([]string{"reference", ReferenceVersion}, rel...)...)
}

// ReadReference returns the content of a recorded kube-apiserver fact,
// ending the test (see Missing) if it does not exist.
func ReadReference(t testing.TB, rel ...string) []byte {
	t.Helper()
	data, err := os.ReadFile(Reference(t, rel...))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// CRDs returns the path of rel below the corpus of real-world CRDs,
// ending the test (see Missing) if it does not exist.
func CRDs(t testing.TB, rel ...string) string {
	t.Helper()
	return Shared(t, append([]string{"crds"}, rel...)...)
}

func describe(rel []string) string {
	return fmt.Sprintf("shared data %s (kept beside the repository in ../shared: "+
		"copy the project's shared/ directory there; recorded facts come from the oracle, see shared/oracle/README.md)",
		filepath.Join(rel...))
}
