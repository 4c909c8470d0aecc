package printers

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/pkg/endpoints/request"
)

// NewDefaultTableConvertor returns the convertor of resources without a
// printer of their own: columns Name and Created At (an RFC 3339 date in
// UTC, which clients show as an age). It renders any object with metadata,
// typed or unstructured; an object without metadata is refused with a 406
// naming the request's resource, or resource when the context carries no
// request info.
func NewDefaultTableConvertor(resource schema.GroupResource) TableConvertor {
	return defaultTableConvertor{resource: resource}
}

type defaultTableConvertor struct {
	resource schema.GroupResource
}

var defaultColumns = []metav1.TableColumnDefinition{
	nameColumn,
	{Name: "Created At", Type: "date", Description: objectMetaDoc["creationTimestamp"]},
}

// ConvertToTable implements TableConvertor. Unlike the printers of the
// built-in kinds, it ignores tableOptions of a type other than
// *metav1.TableOptions, as kube-apiserver does.
func (c defaultTableConvertor) ConvertToTable(ctx context.Context, obj runtime.Object, tableOptions runtime.Object) (*metav1.Table, error) {
	table := &metav1.Table{}
	addRow := func(item runtime.Object) error {
		m, err := meta.Accessor(item)
		if err != nil {
			return errNotAcceptable{resource: c.requestResource(ctx)}
		}
		table.Rows = append(table.Rows, metav1.TableRow{
			Cells:  []any{m.GetName(), m.GetCreationTimestamp().UTC().Format(time.RFC3339)},
			Object: runtime.RawExtension{Object: item},
		})
		return nil
	}
	var err error
	if meta.IsListType(obj) {
		err = meta.EachListItem(obj, addRow)
	} else {
		err = addRow(obj)
	}
	if err != nil {
		return nil, err
	}
	copyListMeta(table, obj)
	if opts, ok := tableOptions.(*metav1.TableOptions); !ok || opts == nil || !opts.NoHeaders {
		table.ColumnDefinitions = append([]metav1.TableColumnDefinition(nil), defaultColumns...)
	}
	return table, nil
}

func (c defaultTableConvertor) requestResource(ctx context.Context) schema.GroupResource {
	if info, ok := request.RequestInfoFrom(ctx); ok && info != nil {
		return schema.GroupResource{Group: info.APIGroup, Resource: info.Resource}
	}
	return c.resource
}
