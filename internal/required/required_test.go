package required

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// A missing prerequisite fails the test under CI=true and skips it
// elsewhere; each case runs in a child test so that its outcome can be
// observed from the parent.
func TestMissingFailsInCIAndSkipsElsewhere(t *testing.T) {
	for _, tc := range []struct {
		ci                 string
		wantFail, wantSkip bool
	}{
		{ci: "true", wantFail: true},
		{ci: "", wantSkip: true},
		{ci: "false", wantSkip: true},
	} {
		t.Run("CI="+tc.ci, func(t *testing.T) {
			t.Setenv("CI", tc.ci)
			// The recorder stands in for the test, so that the verdict
			// ends only the goroutine it runs in (Fatalf and Skipf end it
			// with runtime.Goexit, as package testing does).
			inner := &recorder{TB: t}
			done := make(chan struct{})
			go func() {
				defer close(done)
				Missing(inner, "the thing", errors.New("not there"))
			}()
			<-done
			if inner.failed != tc.wantFail || inner.skipped != tc.wantSkip {
				t.Errorf("failed=%v skipped=%v, want failed=%v skipped=%v", inner.failed, inner.skipped, tc.wantFail, tc.wantSkip)
			}
		})
	}
}

// recorder records Fatalf and Skipf instead of acting on them.
type recorder struct {
	testing.TB
	failed, skipped bool
}

func (r *recorder) Helper() {}
func (r *recorder) Fatalf(string, ...any) {
	r.failed = true
	runtime.Goexit()
}
func (r *recorder) Skipf(string, ...any) {
	r.skipped = true
	runtime.Goexit()
}

// The shared directory is found beside the repository, wherever the test
// runs from.
func TestSharedDirIsBesideTheRepository(t *testing.T) {
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(repo, "go.mod")); err != nil {
		t.Fatalf("%s is not the repository: %v", repo, err)
	}
	got, err := filepath.Abs(SharedDir())
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(filepath.Dir(repo), "shared"); got != want {
		t.Errorf("SharedDir() = %s, want %s", got, want)
	}
}

// No test of the repository skips on its own: a missing prerequisite goes
// through Missing, so that CI fails instead of passing without running
// it. A skip right after a testing.Short() check is an explicit choice of
// whoever runs the tests, and is allowed.
func TestNoTestSkipsOnItsOwn(t *testing.T) {
	repo := mustAbs(t, filepath.Join("..", ".."))
	err := filepath.WalkDir(repo, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != repo {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		lines := strings.Split(string(data), "\n")
		for i, line := range lines {
			if !skipCall.MatchString(line) {
				continue
			}
			if i > 0 && strings.Contains(lines[i-1], "testing.Short()") {
				continue
			}
			rel, _ := filepath.Rel(repo, path)
			t.Errorf("%s:%d skips on its own (%s): use required.Missing, which fails under CI=true", rel, i+1, strings.TrimSpace(line))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

var skipCall = regexp.MustCompile(`\b[tb]\.Skip(f|Now)?\(`)

func mustAbs(t *testing.T, path string) string {
	t.Helper()
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}
