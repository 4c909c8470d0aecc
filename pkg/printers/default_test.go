package printers

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/pkg/endpoints/request"
)

func TestDefaultTableConvertor(t *testing.T) {
	created := metav1.NewTime(time.Date(2026, time.November, 22, 4, 41, 56, 0, time.FixedZone("CET", 3600)))
	widget := func(name string) unstructured.Unstructured {
		u := unstructured.Unstructured{}
		u.SetAPIVersion("example.com/v1")
		u.SetKind("Widget")
		u.SetName(name)
		u.SetCreationTimestamp(created)
		return u
	}
	remaining := int64(7)
	tests := []struct {
		name      string
		obj       runtime.Object
		wantCells [][]any
		wantMeta  metav1.ListMeta
	}{{
		name:      "a typed object, its creation time in UTC",
		obj:       &corev1.LimitRange{ObjectMeta: metav1.ObjectMeta{Name: "limits", ResourceVersion: "5", CreationTimestamp: created}},
		wantCells: [][]any{{"limits", "2026-11-22T03:41:56Z"}},
		wantMeta:  metav1.ListMeta{ResourceVersion: "5"},
	}, {
		name:      "an object never stored has the zero time",
		obj:       &corev1.LimitRange{ObjectMeta: metav1.ObjectMeta{Name: "new"}},
		wantCells: [][]any{{"new", "0001-01-01T00:00:00Z"}},
	}, {
		name: "an unstructured object",
		obj: func() runtime.Object {
			u := widget("w1")
			u.SetResourceVersion("12")
			return &u
		}(),
		wantCells: [][]any{{"w1", "2026-11-22T03:41:56Z"}},
		wantMeta:  metav1.ListMeta{ResourceVersion: "12"},
	}, {
		name: "an unstructured list",
		obj: func() runtime.Object {
			l := &unstructured.UnstructuredList{Items: []unstructured.Unstructured{widget("w1"), widget("w2")}}
			l.SetResourceVersion("13")
			l.SetContinue("next")
			l.SetRemainingItemCount(&remaining)
			return l
		}(),
		wantCells: [][]any{{"w1", "2026-11-22T03:41:56Z"}, {"w2", "2026-11-22T03:41:56Z"}},
		wantMeta:  metav1.ListMeta{ResourceVersion: "13", Continue: "next", RemainingItemCount: &remaining},
	}, {
		name:     "an empty list",
		obj:      &corev1.LimitRangeList{ListMeta: metav1.ListMeta{ResourceVersion: "14"}},
		wantMeta: metav1.ListMeta{ResourceVersion: "14"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			table, err := NewDefaultTableConvertor(schema.GroupResource{Resource: "limitranges"}).ConvertToTable(context.Background(), tt.obj, nil)
			if err != nil {
				t.Fatal(err)
			}
			want := []metav1.TableColumnDefinition{
				{Name: "Name", Type: "string", Format: "name", Description: objectMetaDoc["name"]},
				{Name: "Created At", Type: "date", Description: objectMetaDoc["creationTimestamp"]},
			}
			if diff := cmp.Diff(want, table.ColumnDefinitions); diff != "" {
				t.Errorf("columns (-want +got):\n%s", diff)
			}
			var cells [][]any
			for _, row := range table.Rows {
				cells = append(cells, row.Cells)
				if row.Object.Object == nil {
					t.Errorf("row %v has no object", row.Cells)
				}
			}
			if diff := cmp.Diff(tt.wantCells, cells); diff != "" {
				t.Errorf("cells (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantMeta, table.ListMeta); diff != "" {
				t.Errorf("list meta (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDefaultTableConvertorOptions(t *testing.T) {
	tests := []struct {
		name        string
		options     runtime.Object
		wantColumns int
	}{
		{"no options", nil, 2},
		{"headers", &metav1.TableOptions{}, 2},
		{"no headers", &metav1.TableOptions{NoHeaders: true}, 0},
		// Unlike the printers', options of another type are ignored.
		{"options of another type", &metav1.ListOptions{}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj := &corev1.LimitRange{ObjectMeta: metav1.ObjectMeta{Name: "limits"}}
			table, err := NewDefaultTableConvertor(schema.GroupResource{}).ConvertToTable(context.Background(), obj, tt.options)
			if err != nil {
				t.Fatal(err)
			}
			if got := len(table.ColumnDefinitions); got != tt.wantColumns {
				t.Errorf("got %d columns, want %d", got, tt.wantColumns)
			}
		})
	}
}

// TestObjectWithoutMetadata: an object that has no metadata cannot be
// put in a table: 406 Not Acceptable, naming the resource of the request.
func TestObjectWithoutMetadata(t *testing.T) {
	withRequest := request.WithRequestInfo(context.Background(), &request.RequestInfo{APIGroup: "example.com", Resource: "things"})
	tests := []struct {
		name      string
		convertor TableConvertor
		ctx       context.Context
		obj       runtime.Object
		want      string
	}{{
		name:      "named by the request",
		convertor: NewDefaultTableConvertor(schema.GroupResource{Group: "fallback.io", Resource: "others"}),
		ctx:       withRequest,
		obj:       &metav1.Status{},
		want:      "the resource things.example.com does not support being converted to a Table",
	}, {
		name:      "named by the convertor when the request is unknown",
		convertor: NewDefaultTableConvertor(schema.GroupResource{Group: "fallback.io", Resource: "others"}),
		ctx:       context.Background(),
		obj:       &metav1.Status{},
		want:      "the resource others.fallback.io does not support being converted to a Table",
	}, {
		name:      "through the convertor of the built-in kinds",
		convertor: New(),
		ctx:       withRequest,
		obj:       &metav1.Status{},
		want:      "the resource things.example.com does not support being converted to a Table",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.convertor.ConvertToTable(tt.ctx, tt.obj, nil)
			var status apierrors.APIStatus
			if !errors.As(err, &status) {
				t.Fatalf("got %v, want an API status error", err)
			}
			want := metav1.Status{Status: metav1.StatusFailure, Code: http.StatusNotAcceptable, Reason: metav1.StatusReasonNotAcceptable, Message: tt.want}
			if diff := cmp.Diff(want, status.Status()); diff != "" {
				t.Errorf("status (-want +got):\n%s", diff)
			}
		})
	}
}
