package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sharedCRDs lists the real-world CRD files of ../shared/crds.
func sharedCRDs(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, project := range []string{"prometheus-operator", "cert-manager"} {
		matches, err := filepath.Glob(filepath.Join(repoRoot(t), "..", "shared", "crds", project, "*.yaml"))
		if err != nil || len(matches) == 0 {
			t.Fatalf("no CRDs for %s: %v", project, err)
		}
		files = append(files, matches...)
	}
	return files
}

// TestKubectlRealWorldCRDs installs the CRDs of prometheus-operator and
// cert-manager with the real kubectl, as their users do, and uses them:
// every CRD becomes established and discoverable, and the samples of the
// prometheus-operator guide apply.
func TestKubectlRealWorldCRDs(t *testing.T) {
	p := startKapiBinary(t, t.TempDir())
	files := sharedCRDs(t)
	args := []string{"create"}
	for _, f := range files {
		args = append(args, "-f", f)
	}
	out := p.mustKubectl(t, "", args...)
	if got := strings.Count(out, " created"); got != len(files) {
		t.Fatalf("created %d CRDs of %d:\n%s", got, len(files), out)
	}
	p.mustKubectl(t, "", "wait", "--for", "condition=Established", "crd", "--all", "--timeout=60s")

	t.Run("every CRD is in discovery", func(t *testing.T) {
		out := p.mustKubectl(t, "", "api-resources", "-o", "name")
		for _, f := range files {
			name := strings.TrimSuffix(filepath.Base(f), ".yaml") // group_plural
			group, plural, _ := strings.Cut(name, "_")
			if !strings.Contains(out, plural+"."+group+"\n") {
				t.Errorf("%s.%s is not in api-resources", plural, group)
			}
		}
	})

	t.Run("kubectl explain reads every CRD's schema", func(t *testing.T) {
		for _, f := range files {
			group, plural, _ := strings.Cut(strings.TrimSuffix(filepath.Base(f), ".yaml"), "_")
			out := p.mustKubectl(t, "", "explain", plural+"."+group+".spec")
			if !strings.Contains(out, "GROUP:      "+group) || !strings.Contains(out, "FIELD: spec <Object>") {
				t.Errorf("explain %s.%s.spec:\n%s", plural, group, out)
			}
		}
		out := p.mustKubectl(t, "", "explain", "certificates.spec.secretName")
		if !strings.Contains(out, "FIELD: secretName <string>") {
			t.Errorf("explain certificates.spec.secretName:\n%s", out)
		}
	})

	t.Run("the samples apply and read back", func(t *testing.T) {
		samples := filepath.Join(repoRoot(t), "..", "shared", "crds", "prometheus-operator", "samples")
		entries, err := os.ReadDir(samples)
		if err != nil {
			t.Fatal(err)
		}
		out := p.mustKubectl(t, "", "apply", "-f", samples)
		if got := strings.Count(out, "\n"); got != len(entries) {
			t.Errorf("applied %d of %d samples:\n%s", got, len(entries), out)
		}
		out = p.mustKubectl(t, "", "get", "prometheus", "prometheus", "-o", "jsonpath={.spec.serviceAccountName}/{.spec.serviceMonitorSelector.matchLabels.team}")
		// The last sample applied (prometheus.yaml) drops the selector the
		// others set: a three-way merge removes what it no longer declares.
		if out != "prometheus/" {
			t.Errorf("prometheus spec = %q", out)
		}
		out = p.mustKubectl(t, "", "get", "servicemonitors,podmonitors")
		for _, want := range []string{"servicemonitor.monitoring.coreos.com/example-app", "podmonitor.monitoring.coreos.com/example-app"} {
			if !strings.Contains(out, want) {
				t.Errorf("missing %s in:\n%s", want, out)
			}
		}
	})

	t.Run("categories select resources across CRDs", func(t *testing.T) {
		out := p.mustKubectl(t, "", "get", "prometheus-operator")
		for _, want := range []string{"prometheus.monitoring.coreos.com/prometheus", "servicemonitor.monitoring.coreos.com/example-app"} {
			if !strings.Contains(out, want) {
				t.Errorf("missing %s in:\n%s", want, out)
			}
		}
	})

	t.Run("printer columns reach kubectl", func(t *testing.T) {
		out := p.mustKubectl(t, "", "get", "prometheus")
		header := strings.Fields(strings.SplitN(out, "\n", 2)[0])
		want := []string{"NAME", "VERSION", "DESIRED", "READY", "RECONCILED", "AVAILABLE", "AGE"}
		if strings.Join(header, " ") != strings.Join(want, " ") {
			t.Errorf("header %v, want %v", header, want)
		}
	})

	t.Run("schema validation rejects a bad sample", func(t *testing.T) {
		bad := "apiVersion: monitoring.coreos.com/v1\nkind: ServiceMonitor\nmetadata: {name: bad}\nspec:\n  endpoints: not-a-list\n"
		out, err := p.kubectl(t, bad, "create", "-f", "-")
		if err == nil || !strings.Contains(out, "spec.endpoints") {
			t.Errorf("want a validation error naming spec.endpoints, got %v:\n%s", err, out)
		}
	})
}
