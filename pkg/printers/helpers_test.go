package printers

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// testNow is when the tests render their tables.
var testNow = time.Date(2026, time.November, 22, 12, 0, 0, 0, time.UTC)

// ago is the time d before testNow.
func ago(d time.Duration) metav1.Time {
	return metav1.NewTime(testNow.Add(-d))
}

// agoPtr is ago for optional times.
func agoPtr(d time.Duration) *metav1.Time {
	t := ago(d)
	return &t
}

// convert renders obj at testNow, with headers.
func convert(t *testing.T, obj runtime.Object) *metav1.Table {
	t.Helper()
	table, err := New(WithClock(func() time.Time { return testNow })).ConvertToTable(context.Background(), obj, nil)
	if err != nil {
		t.Fatalf("ConvertToTable: %v", err)
	}
	return table
}

// rowCells renders a single object at testNow and returns the cells of
// its row.
func rowCells(t *testing.T, obj runtime.Object) []any {
	t.Helper()
	table := convert(t, obj)
	if len(table.Rows) != 1 {
		t.Fatalf("got %d rows, want 1", len(table.Rows))
	}
	return table.Rows[0].Cells
}

// columnNames lists the names of the columns of a table, with a * after
// those shown only by kubectl get -o wide.
func columnNames(table *metav1.Table) []string {
	var names []string
	for _, c := range table.ColumnDefinitions {
		name := c.Name
		if c.Priority > 0 {
			name += "*"
		}
		names = append(names, name)
	}
	return names
}

func ptr[T any](v T) *T { return &v }
