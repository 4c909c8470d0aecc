package printers

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

func TestLeaseAndScale(t *testing.T) {
	tests := []struct {
		name        string
		obj         runtime.Object
		wantColumns []string
		wantCells   []any
	}{{
		name:        "a lease held",
		obj:         &coordinationv1.Lease{ObjectMeta: objectMeta("kube-scheduler"), Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr("node-1_4f2a")}},
		wantColumns: []string{"Name", "Holder", "Age"},
		wantCells:   []any{"kube-scheduler", "node-1_4f2a", "3h"},
	}, {
		name:        "a lease free",
		obj:         &coordinationv1.Lease{ObjectMeta: objectMeta("free")},
		wantColumns: []string{"Name", "Holder", "Age"},
		wantCells:   []any{"free", "", "3h"},
	}, {
		name: "the scale of a deployment",
		obj: &autoscalingv1.Scale{
			ObjectMeta: objectMeta("web"),
			Spec:       autoscalingv1.ScaleSpec{Replicas: 5},
			Status:     autoscalingv1.ScaleStatus{Replicas: 3, Selector: "app=web"},
		},
		wantColumns: []string{"Name", "Desired", "Available", "Age"},
		wantCells:   []any{"web", int64(5), int64(3), "3h"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			table := convert(t, tt.obj)
			if diff := cmp.Diff(tt.wantColumns, columnNames(table)); diff != "" {
				t.Errorf("columns (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantCells, table.Rows[0].Cells); diff != "" {
				t.Errorf("cells (-want +got):\n%s", diff)
			}
		})
	}
}

// The scale subresource's Name column, alone of all, has no name format.
func TestScaleNameColumnHasNoFormat(t *testing.T) {
	want := metav1.TableColumnDefinition{Name: "Name", Type: "string", Description: objectMetaDoc["name"]}
	if got := convert(t, &autoscalingv1.Scale{}).ColumnDefinitions[0]; got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
}
