package layers

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/kapi-dev/kapi"

// No package of the module imports a package of a higher layer, or
// another component of its own layer; every package has a place.
func TestNoPackageImportsUpward(t *testing.T) {
	imports := moduleImports(t)
	var pkgs []string
	for p := range imports {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	for _, pkg := range pkgs {
		from, ok := Find(pkg)
		if !ok {
			t.Errorf("%s is in no layer: give it a place in the table of internal/layers/layers.go (and in docs/architecture.md)", pkg)
			continue
		}
		for _, imp := range imports[pkg] {
			to, ok := Find(imp)
			if !ok {
				continue // reported as a package of its own
			}
			if !Allowed(from, to) {
				t.Errorf("%s (%s, %s) imports %s (%s, %s): a layer imports only the layers below it",
					pkg, Layers[from.Layer].Name, from.Component, imp, Layers[to.Layer].Name, to.Component)
			}
		}
	}
}

// The rule, on imports that kapi had or could have.
func TestAllowed(t *testing.T) {
	tests := []struct {
		from, to string
		want     bool
	}{
		{"pkg/registry/core/configmap", "pkg/storage", true},
		{"pkg/registry/generic", "pkg/endpoints/request", true},
		{"pkg/endpoints/handlers", "pkg/registry/rest", true},
		{"pkg/apiextensions", "pkg/apiextensions/schema", true},
		{"pkg/server/filters", "pkg/authentication/authenticator", true},
		{"pkg/cmd", "pkg/app", true},
		// The import issue 8 found: the request path depended on the CRD server.
		{"pkg/endpoints/fieldmanager", "pkg/apiextensions/openapi", false},
		{"pkg/storage/cacher", "pkg/registry/generic", false},
		{"pkg/endpoints/request", "pkg/endpoints", false},
		// Servers of the delegation chain know nothing of each other.
		{"pkg/controlplane", "pkg/apiextensions", false},
		{"pkg/server", "pkg/authentication/token/tokenfile", false},
		{"pkg/apis/core", "pkg/api/scheme", true},
	}
	for _, tc := range tests {
		from, ok1 := Find(tc.from)
		to, ok2 := Find(tc.to)
		if !ok1 || !ok2 {
			t.Errorf("%s or %s has no place", tc.from, tc.to)
			continue
		}
		if got := Allowed(from, to); got != tc.want {
			t.Errorf("%s importing %s: allowed %v, want %v", tc.from, tc.to, got, tc.want)
		}
	}
}

// A prefix names a package and the packages below it, not a sibling that
// shares its first letters.
func TestFindMatchesWholePathElements(t *testing.T) {
	if p, _ := Find("pkg/apis/core"); p.Component != "api" {
		t.Errorf("pkg/apis/core is in %q, want api", p.Component)
	}
	if p, _ := Find("pkg/endpoints/requestx"); p.Component != "endpoints" {
		t.Errorf("pkg/endpoints/requestx is in %q, want endpoints", p.Component)
	}
	if _, ok := Find("pkgx"); ok {
		t.Error("pkgx has a place")
	}
}

// moduleImports returns, for every package of the module, the packages
// of the module its non-test files import, as paths relative to the
// module.
func moduleImports(t *testing.T) map[string][]string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", "./...")
	cmd.Dir = filepath.Join(filepath.Dir(file), "..", "..")
	out, err := cmd.Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	imports := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg, ok := relative(fields[0])
		if !ok {
			continue
		}
		imports[pkg] = nil
		for _, imp := range fields[1:] {
			if rel, ok := relative(imp); ok {
				imports[pkg] = append(imports[pkg], rel)
			}
		}
	}
	if len(imports) < 10 {
		t.Fatalf("go list found %d packages of the module: %s", len(imports), out)
	}
	return imports
}

func relative(path string) (string, bool) {
	rest, ok := strings.CutPrefix(path, module+"/")
	return rest, ok
}
