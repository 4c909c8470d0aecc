package printers

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	nodev1 "k8s.io/api/node/v1"
)

// A RuntimeClass shows its handler, as kubectl get runtimeclass does
// against kube-apiserver.
func TestRuntimeClass(t *testing.T) {
	table := convert(t, &nodev1.RuntimeClass{ObjectMeta: objectMeta("gvisor"), Handler: "runsc"})
	if diff := cmp.Diff([]string{"Name", "Handler", "Age"}, columnNames(table)); diff != "" {
		t.Errorf("columns (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]any{"gvisor", "runsc", "3h"}, table.Rows[0].Cells); diff != "" {
		t.Errorf("cells (-want +got):\n%s", diff)
	}
}
