package printers

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	"sigs.k8s.io/yaml"
)

// TestBootstrapFlowSchemas renders the flow schemas of a fresh
// kube-apiserver: in the order requests are matched against them, not in
// the (name) order of the list.
func TestBootstrapFlowSchemas(t *testing.T) {
	var list flowcontrolv1.FlowSchemaList
	if err := yaml.Unmarshal(readFile(t, "bootstrap/flowschemas.yaml"), &list); err != nil {
		t.Fatal(err)
	}
	var got [][]any
	for _, row := range convert(t, &list).Rows {
		got = append(got, append(row.Cells[:4:4], row.Cells[5]))
	}
	want := [][]any{
		{"exempt", "exempt", int64(1), "<none>", "False"},
		{"probes", "exempt", int64(2), "<none>", "False"},
		{"system-leader-election", "leader-election", int64(100), "ByUser", "False"},
		{"system-node-high", "node-high", int64(400), "ByUser", "False"},
		{"system-nodes", "system", int64(500), "ByUser", "False"},
		{"kube-controller-manager", "workload-high", int64(800), "ByNamespace", "False"},
		{"kube-scheduler", "workload-high", int64(800), "ByNamespace", "False"},
		{"kube-system-service-accounts", "workload-high", int64(900), "ByNamespace", "False"},
		{"service-accounts", "workload-low", int64(9000), "ByUser", "False"},
		{"global-default", "global-default", int64(9900), "ByUser", "False"},
		{"catch-all", "catch-all", int64(10000), "ByUser", "False"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Name, PriorityLevel, MatchingPrecedence, DistinguisherMethod, MissingPL (-want +got):\n%s", diff)
	}
}

func TestFlowSchemaNotYetChecked(t *testing.T) {
	fs := &flowcontrolv1.FlowSchema{ObjectMeta: objectMeta("new")}
	fs.Spec.PriorityLevelConfiguration.Name = "pl"
	want := []any{"new", "pl", int64(0), "<none>", "3h", "?"}
	if diff := cmp.Diff(want, rowCells(t, fs)); diff != "" {
		t.Errorf("cells (-want +got):\n%s", diff)
	}
}

func TestBootstrapPriorityLevels(t *testing.T) {
	var list flowcontrolv1.PriorityLevelConfigurationList
	if err := yaml.Unmarshal(readFile(t, "bootstrap/prioritylevelconfigurations.yaml"), &list); err != nil {
		t.Fatal(err)
	}
	table, err := New(WithClock(fixedClock(t, "2026-11-22T03:42:42Z"))).ConvertToTable(t.Context(), &list, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got [][]any
	for _, row := range table.Rows {
		got = append(got, row.Cells)
	}
	want := [][]any{
		// A limited level that rejects rather than queues.
		{"catch-all", "Limited", int64(5), "<none>", "<none>", "<none>", "60s"},
		{"exempt", "Exempt", "<none>", "<none>", "<none>", "<none>", "60s"},
		{"global-default", "Limited", int64(20), int64(128), int64(6), int64(50), "60s"},
		{"leader-election", "Limited", int64(10), int64(16), int64(4), int64(50), "60s"},
		{"node-high", "Limited", int64(40), int64(64), int64(6), int64(50), "60s"},
		{"system", "Limited", int64(30), int64(64), int64(6), int64(50), "60s"},
		{"workload-high", "Limited", int64(40), int64(128), int64(6), int64(50), "60s"},
		{"workload-low", "Limited", int64(100), int64(128), int64(6), int64(50), "60s"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("cells (-want +got):\n%s", diff)
	}
}
