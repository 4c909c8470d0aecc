package printers

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// undescribedColumns are the columns kube-apiserver gives no description.
var undescribedColumns = map[string]bool{"RuntimeClass/Handler": true}

// TestEveryKind: every kind with a printer renders a row with a cell per
// column, and the list of the kind the same columns over its rows.
func TestEveryKind(t *testing.T) {
	for _, k := range builtinKinds() {
		obj := reflect.New(reflect.TypeOf(k.object).Elem()).Interface().(runtime.Object)
		t.Run(reflect.TypeOf(obj).Elem().Name(), func(t *testing.T) {
			table := convert(t, obj)
			if len(table.Rows) != 1 {
				t.Fatalf("got %d rows for an object, want 1", len(table.Rows))
			}
			want := len(table.ColumnDefinitions)
			if _, ok := obj.(*networkingv1.IPAddress); ok {
				// kube-apiserver's IPAddress rows carry an age cell
				// that no column announces.
				want++
			}
			if got := len(table.Rows[0].Cells); got != want {
				t.Errorf("got %d cells, want %d", got, want)
			}
			for i, c := range table.ColumnDefinitions {
				if c.Priority != 0 && c.Priority != 1 {
					t.Errorf("column %q has priority %d", c.Name, c.Priority)
				}
				if c.Description == "" && !undescribedColumns[reflect.TypeOf(obj).Elem().Name()+"/"+c.Name] {
					t.Errorf("column %d, %q, has no description", i, c.Name)
				}
			}
			if k.list == nil {
				return
			}
			list := reflect.New(reflect.TypeOf(k.list).Elem()).Interface().(runtime.Object)
			listTable := convert(t, list)
			if diff := cmp.Diff(table.ColumnDefinitions, listTable.ColumnDefinitions); diff != "" {
				t.Errorf("list columns differ from the object's (-object +list):\n%s", diff)
			}
			if listTable.Rows == nil || len(listTable.Rows) != 0 {
				t.Errorf("got rows %#v for an empty list, want an empty slice", listTable.Rows)
			}
		})
	}
}

func TestTableOptions(t *testing.T) {
	tests := []struct {
		name        string
		options     runtime.Object
		wantColumns int
		wantErr     bool
	}{
		{name: "no options", options: nil, wantColumns: 3},
		{name: "default options", options: &metav1.TableOptions{}, wantColumns: 3},
		{name: "nil options", options: (*metav1.TableOptions)(nil), wantColumns: 3},
		{name: "no headers", options: &metav1.TableOptions{NoHeaders: true}, wantColumns: 0},
		{name: "options of another type", options: &metav1.ListOptions{}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "default"}}
			table, err := New().ConvertToTable(context.Background(), ns, tt.options)
			if tt.wantErr {
				if err == nil {
					t.Fatal("got no error")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := len(table.ColumnDefinitions); got != tt.wantColumns {
				t.Errorf("got %d columns, want %d", got, tt.wantColumns)
			}
			if len(table.Rows) != 1 || len(table.Rows[0].Cells) != 3 {
				t.Errorf("got rows %v, want one row of 3 cells whatever the headers", table.Rows)
			}
		})
	}
}

func TestListMeta(t *testing.T) {
	remaining := int64(42)
	tests := []struct {
		name string
		obj  runtime.Object
		want metav1.ListMeta
	}{{
		name: "a page of a list",
		obj: &corev1.ConfigMapList{ListMeta: metav1.ListMeta{
			ResourceVersion: "1234", Continue: "token", RemainingItemCount: &remaining, SelfLink: "/ignored",
		}},
		want: metav1.ListMeta{ResourceVersion: "1234", Continue: "token", RemainingItemCount: &remaining},
	}, {
		name: "a single object",
		obj:  &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm", ResourceVersion: "99"}},
		want: metav1.ListMeta{ResourceVersion: "99"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, convert(t, tt.obj).ListMeta); diff != "" {
				t.Errorf("list meta (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRowObjects: each row carries the object it renders, not a copy, in
// the order of the list.
func TestRowObjects(t *testing.T) {
	list := &corev1.ConfigMapList{Items: []corev1.ConfigMap{
		{ObjectMeta: metav1.ObjectMeta{Name: "b"}},
		{ObjectMeta: metav1.ObjectMeta{Name: "a"}},
	}}
	table := convert(t, list)
	if len(table.Rows) != 2 {
		t.Fatalf("got %d rows, want 2", len(table.Rows))
	}
	for i, row := range table.Rows {
		if row.Object.Object != &list.Items[i] || row.Object.Raw != nil {
			t.Errorf("row %d holds %#v, want the list's item %d", i, row.Object, i)
		}
		if row.Cells[0] != list.Items[i].Name {
			t.Errorf("row %d is named %v, want %s", i, row.Cells[0], list.Items[i].Name)
		}
	}

	single := &corev1.ConfigMap{}
	if got := convert(t, single).Rows[0].Object.Object; got != single {
		t.Errorf("the row of a single object holds %#v, want the object", got)
	}
}

// TestColumnsAreTheCallersToChange: a table's column definitions are
// its own.
func TestColumnsAreTheCallersToChange(t *testing.T) {
	first := convert(t, &corev1.ConfigMapList{})
	first.ColumnDefinitions[0].Name = "changed"
	if got := convert(t, &corev1.ConfigMapList{}).ColumnDefinitions[0].Name; got != "Name" {
		t.Errorf("a change to a table's columns showed in the next table: %q", got)
	}
}

// TestOneClockReadingPerTable: every age of a table is computed against
// the same instant.
func TestOneClockReadingPerTable(t *testing.T) {
	readings := 0
	clock := func() time.Time {
		readings++
		return testNow.Add(time.Duration(readings) * time.Hour)
	}
	list := &corev1.NamespaceList{Items: []corev1.Namespace{
		{ObjectMeta: metav1.ObjectMeta{Name: "a", CreationTimestamp: ago(0)}},
		{ObjectMeta: metav1.ObjectMeta{Name: "b", CreationTimestamp: ago(0)}},
	}}
	table, err := New(WithClock(clock)).ConvertToTable(context.Background(), list, nil)
	if err != nil {
		t.Fatal(err)
	}
	if readings != 1 {
		t.Errorf("the clock was read %d times, want once", readings)
	}
	for _, row := range table.Rows {
		if row.Cells[2] != "60m" {
			t.Errorf("row %v: age %v, want 60m", row.Cells[0], row.Cells[2])
		}
	}
}

func TestAge(t *testing.T) {
	tests := []struct {
		created metav1.Time
		want    string
	}{
		{metav1.Time{}, "<unknown>"},
		{ago(0), "0s"},
		{ago(-time.Second), "0s"},        // a clock a little behind the creator's
		{ago(-time.Minute), "<invalid>"}, // a clock far behind
		{ago(119 * time.Second), "119s"},
		{ago(9*time.Minute + 30*time.Second), "9m30s"},
		{ago(5 * time.Hour), "5h"},
		{ago(3*24*time.Hour + 4*time.Hour), "3d4h"},
		{ago(400 * 24 * time.Hour), "400d"},
	}
	for _, tt := range tests {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ns", CreationTimestamp: tt.created}}
		if got := rowCells(t, ns)[2]; got != tt.want {
			t.Errorf("created %v before now: age %v, want %s", testNow.Sub(tt.created.Time), got, tt.want)
		}
	}
}

// TestKindsWithoutPrinter get the default columns.
func TestKindsWithoutPrinter(t *testing.T) {
	c := New()
	limits := &corev1.LimitRangeList{Items: []corev1.LimitRange{{ObjectMeta: metav1.ObjectMeta{Name: "limits", CreationTimestamp: ago(time.Hour)}}}}
	if c.Handles(limits) || c.Handles(&limits.Items[0]) {
		t.Error("Handles(LimitRange) = true, want false")
	}
	if !c.Handles(&corev1.Pod{}) || !c.Handles(&corev1.PodList{}) {
		t.Error("Handles(Pod) = false, want true")
	}

	table, err := c.ConvertToTable(context.Background(), limits, nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"Name", "Created At"}, columnNames(table)); diff != "" {
		t.Errorf("columns (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]any{"limits", "2026-11-22T11:00:00Z"}, table.Rows[0].Cells); diff != "" {
		t.Errorf("cells (-want +got):\n%s", diff)
	}
}

func TestZeroConvertorIsReady(t *testing.T) {
	var c Convertor
	table, err := c.ConvertToTable(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "default"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(table.Rows) != 1 || table.Rows[0].Cells[0] != "default" {
		t.Errorf("got rows %v", table.Rows)
	}
}

// BenchmarkPodList renders a page of 500 running pods, as kubectl get
// pods asks for.
func BenchmarkPodList(b *testing.B) {
	list := &corev1.PodList{Items: make([]corev1.Pod, 500)}
	for i := range list.Items {
		p := pod(corev1.PodRunning, "app", "sidecar")
		p.Status.ContainerStatuses = []corev1.ContainerStatus{running("app", true), restarted(running("sidecar", true), 2, time.Hour)}
		p.Status.PodIPs = []corev1.PodIP{{IP: "10.0.0.1"}}
		list.Items[i] = *p
	}
	c := New()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.ConvertToTable(context.Background(), list, nil); err != nil {
			b.Fatal(err)
		}
	}
}
