package e2e

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kapi-dev/kapi/internal/required"
)

// notYetServed are the group versions of kube-apiserver 1.37 that kapi
// does not serve yet, with the issue that brings them. Nothing else may
// be missing.
var notYetServed = map[string]string{}

// tableRows parses the output of a kubectl table (api-resources -o wide),
// whose columns start where their headers do, into one map per row.
func tableRows(t *testing.T, out string) []map[string]string {
	t.Helper()
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	header := lines[0]
	var names []string
	var starts []int
	from := 0
	for _, f := range strings.Fields(header) {
		at := from + strings.Index(header[from:], f)
		names, starts = append(names, f), append(starts, at)
		from = at + len(f)
	}
	var rows []map[string]string
	for _, line := range lines[1:] {
		row := map[string]string{}
		for i, name := range names {
			end := len(line)
			if i+1 < len(starts) {
				end = min(starts[i+1], len(line))
			}
			if starts[i] < end {
				row[name] = strings.TrimSpace(line[starts[i]:end])
			} else {
				row[name] = ""
			}
		}
		rows = append(rows, row)
	}
	return rows
}

// `kubectl api-resources -o wide` and `kubectl api-versions` print against
// kapi exactly what they print against kube-apiserver 1.37.1, but for the
// group versions of notYetServed.
func TestAPIResourcesAreKubeAPIServers(t *testing.T) {
	p := startKapiBinary(t, t.TempDir())

	key := func(r map[string]string) string { return r["APIVERSION"] + " " + r["NAME"] }
	want := map[string]map[string]string{}
	for _, r := range tableRows(t, string(mustRead(t, required.Reference(t, "api-resources-wide.txt")))) {
		if _, later := notYetServed[r["APIVERSION"]]; !later {
			want[key(r)] = r
		}
	}
	got := map[string]map[string]string{}
	for _, r := range tableRows(t, p.mustKubectl(t, "", "api-resources", "-o", "wide")) {
		got[key(r)] = r
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("api-resources -o wide (-kube-apiserver +kapi):\n%s", diff)
	}

	var wantVersions []string
	for _, v := range strings.Fields(string(mustRead(t, required.Reference(t, "api-versions.txt")))) {
		if _, later := notYetServed[v]; !later {
			wantVersions = append(wantVersions, v)
		}
	}
	gotVersions := strings.Fields(p.mustKubectl(t, "", "api-versions"))
	if !slices.Equal(wantVersions, gotVersions) {
		t.Errorf("api-versions:\n got %v\nwant %v", gotVersions, wantVersions)
	}
	t.Logf("%d resources in %d group versions as kube-apiserver's; not yet: %v", len(got), len(gotVersions), notYetServed)
}
