package printers

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/util/jsonpath"
)

// CustomResourceColumns renders custom resources with the
// additionalPrinterColumns of their CRD version, after a Name column. A
// version without columns gets an Age column, as kube-apiserver shows.
type CustomResourceColumns struct {
	headers []metav1.TableColumnDefinition
	columns []customColumn
	now     func() time.Time
}

type customColumn struct {
	typ  string
	path *jsonpath.JSONPath
}

// defaultCustomColumns are the columns of a CRD version that declares none.
var defaultCustomColumns = []apiextensionsv1.CustomResourceColumnDefinition{{
	Name: "Age", Type: "date", JSONPath: ".metadata.creationTimestamp", Description: objectMetaDoc["creationTimestamp"],
}}

// NewCustomResourceColumns compiles the columns' JSON paths.
func NewCustomResourceColumns(defs []apiextensionsv1.CustomResourceColumnDefinition) (*CustomResourceColumns, error) {
	if len(defs) == 0 {
		defs = defaultCustomColumns
	}
	c := &CustomResourceColumns{headers: []metav1.TableColumnDefinition{nameColumn}}
	for _, d := range defs {
		p := jsonpath.New(d.Name).AllowMissingKeys(true)
		if err := p.Parse(relaxedJSONPath(d.JSONPath)); err != nil {
			return nil, fmt.Errorf("column %q: %w", d.Name, err)
		}
		desc := d.Description
		if desc == "" {
			desc = "Custom resource definition column (in JSONPath format): " + d.JSONPath
		}
		c.headers = append(c.headers, metav1.TableColumnDefinition{
			Name: d.Name, Type: d.Type, Format: d.Format, Description: desc, Priority: d.Priority,
		})
		c.columns = append(c.columns, customColumn{typ: d.Type, path: p})
	}
	return c, nil
}

// relaxedJSONPath accepts ".spec.x" as kubectl's custom columns do.
func relaxedJSONPath(p string) string {
	if len(p) > 0 && p[0] == '{' {
		return p
	}
	return "{" + p + "}"
}

// ConvertToTable renders one custom resource or a list of them.
func (c *CustomResourceColumns) ConvertToTable(_ context.Context, obj runtime.Object, tableOptions runtime.Object) (*metav1.Table, error) {
	noHeaders, err := noHeaders(tableOptions)
	if err != nil {
		return nil, err
	}
	items := []runtime.Object{obj}
	if meta.IsListType(obj) {
		if items, err = meta.ExtractList(obj); err != nil {
			return nil, err
		}
	}
	now := time.Now()
	if c.now != nil {
		now = c.now()
	}
	table := &metav1.Table{Rows: make([]metav1.TableRow, 0, len(items))}
	for _, item := range items {
		row, err := c.row(item, now)
		if err != nil {
			return nil, err
		}
		table.Rows = append(table.Rows, row)
	}
	if !noHeaders {
		table.ColumnDefinitions = append([]metav1.TableColumnDefinition(nil), c.headers...)
	}
	copyListMeta(table, obj)
	return table, nil
}

func (c *CustomResourceColumns) row(obj runtime.Object, now time.Time) (metav1.TableRow, error) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return metav1.TableRow{}, err
	}
	u, ok := obj.(runtime.Unstructured)
	if !ok {
		return metav1.TableRow{}, fmt.Errorf("custom resource columns cannot render %T", obj)
	}
	content := u.UnstructuredContent()
	cells := make([]interface{}, 0, 1+len(c.columns))
	cells = append(cells, m.GetName())
	var buf bytes.Buffer
	for _, col := range c.columns {
		results, err := col.path.FindResults(content)
		if err != nil || len(results) == 0 || len(results[0]) == 0 {
			cells = append(cells, nil)
			continue
		}
		value := results[0][0].Interface()
		if col.typ == "string" {
			buf.Reset()
			if err := col.path.PrintResults(&buf, []reflect.Value{reflect.ValueOf(value)}); err != nil {
				cells = append(cells, nil)
				continue
			}
			cells = append(cells, buf.String())
			continue
		}
		cells = append(cells, customCell(col.typ, value, now))
	}
	return metav1.TableRow{Cells: cells, Object: runtime.RawExtension{Object: obj}}, nil
}

// customCell converts a JSON value to the cell of a column type, or nil
// when it does not fit.
func customCell(typ string, value interface{}, now time.Time) interface{} {
	switch typ {
	case "integer":
		switch v := value.(type) {
		case int64:
			return v
		case float64:
			return int64(v)
		}
	case "number":
		switch v := value.(type) {
		case int64:
			return float64(v)
		case float64:
			return v
		}
	case "boolean":
		if b, ok := value.(bool); ok {
			return b
		}
	case "date":
		if s, ok := value.(string); ok {
			var t metav1.Time
			if err := t.UnmarshalQueryParameter(s); err != nil {
				return nil
			}
			return since(t, now)
		}
	}
	return nil
}
