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

// replicaSetsCRD is cluster-scoped, with status and scale subresources,
// printer columns and a selectable field.
const replicaSetsCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: pools.example.com
spec:
  group: example.com
  scope: Cluster
  names: {plural: pools, singular: pool, kind: Pool, shortNames: [pl], categories: [all]}
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
      scale:
        specReplicasPath: .spec.replicas
        statusReplicasPath: .status.replicas
        labelSelectorPath: .status.selector
    selectableFields:
    - jsonPath: .spec.tier
    additionalPrinterColumns:
    - {name: Replicas, type: integer, jsonPath: .spec.replicas}
    - {name: Tier, type: string, jsonPath: .spec.tier}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              replicas: {type: integer, minimum: 0}
              tier: {type: string}
          status:
            type: object
            properties:
              replicas: {type: integer}
              selector: {type: string}
`

// TestKubectlCustomResourceSubresources: kubectl scale, printer columns,
// selectable fields and the "all" category on a cluster-scoped CRD.
func TestKubectlCustomResourceSubresources(t *testing.T) {
	p := startKapiBinary(t, t.TempDir())
	p.mustKubectl(t, replicaSetsCRD, "create", "-f", "-")
	p.mustKubectl(t, "", "wait", "--for", "condition=Established", "crd/pools.example.com", "--timeout=60s")
	p.mustKubectl(t, "apiVersion: example.com/v1\nkind: Pool\nmetadata: {name: gold}\nspec: {replicas: 1, tier: gold}\n---\n"+
		"apiVersion: example.com/v1\nkind: Pool\nmetadata: {name: silver}\nspec: {replicas: 2, tier: silver}\n", "create", "-f", "-")

	t.Run("kubectl scale writes specReplicasPath", func(t *testing.T) {
		out := p.mustKubectl(t, "", "scale", "pool/gold", "--replicas=5")
		if !strings.Contains(out, "pool.example.com/gold scaled") {
			t.Fatalf("scale: %s", out)
		}
		if got := p.mustKubectl(t, "", "get", "pool", "gold", "-o", "jsonpath={.spec.replicas}/{.metadata.generation}"); got != "5/2" {
			t.Errorf("replicas/generation = %s, want 5/2", got)
		}
		out = p.mustKubectl(t, "", "get", "--raw", "/apis/example.com/v1/pools/gold/scale")
		if !strings.Contains(out, `"kind":"Scale"`) || !strings.Contains(out, `"replicas":5`) {
			t.Errorf("scale subresource: %s", out)
		}
		if _, err := p.kubectl(t, "", "scale", "pool/gold", "--replicas=-1"); err == nil {
			t.Error("a negative scale was accepted")
		}
	})

	t.Run("printer columns and the all category", func(t *testing.T) {
		out := p.mustKubectl(t, "", "get", "pools")
		if header := strings.Fields(strings.SplitN(out, "\n", 2)[0]); strings.Join(header, " ") != "NAME REPLICAS TIER" {
			t.Errorf("header %v", header)
		}
		if !strings.Contains(p.mustKubectl(t, "", "get", "all"), "pool.example.com/silver") {
			t.Error("pools are not in kubectl get all")
		}
	})

	t.Run("selectable fields select", func(t *testing.T) {
		out := p.mustKubectl(t, "", "get", "pl", "--field-selector", "spec.tier=silver", "-o", "name")
		if strings.TrimSpace(out) != "pool.example.com/silver" {
			t.Errorf("spec.tier=silver selected %q", out)
		}
		out, err := p.kubectl(t, "", "get", "pl", "--field-selector", "spec.replicas=1")
		if err == nil || !strings.Contains(out, `field label not supported: spec.replicas`) {
			t.Errorf("an undeclared field selector: %v %s", err, out)
		}
	})
}
