package printers

import (
	"context"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TableConvertor renders an object, or a list of objects, as a Table.
// tableOptions is a *metav1.TableOptions or nil.
type TableConvertor interface {
	ConvertToTable(ctx context.Context, obj runtime.Object, tableOptions runtime.Object) (*metav1.Table, error)
}

// Option configures a Convertor.
type Option func(*Convertor)

// WithClock makes the Convertor compute ages against now instead of
// time.Now. It is meant for tests.
func WithClock(now func() time.Time) Option {
	return func(c *Convertor) { c.now = now }
}

// Convertor renders the built-in kinds kapi serves the way kube-apiserver
// does. Objects of other kinds get the columns of NewDefaultTableConvertor,
// which is what kube-apiserver shows for resources without a printer.
//
// A Convertor is safe for concurrent use. Its zero value is ready to use,
// like New().
type Convertor struct {
	// now is the clock, time.Now when nil.
	now func() time.Time
}

var _ TableConvertor = &Convertor{}

// New returns the Convertor of the built-in kinds.
func New(opts ...Option) *Convertor {
	c := &Convertor{}
	for _, opt := range opts {
		opt(c)
	}
	return c
}

// Handles reports whether obj, an object or a list, is of a kind with its
// own printer rather than the default columns.
func (c *Convertor) Handles(obj runtime.Object) bool {
	_, ok := printersByType[reflect.TypeOf(obj)]
	return ok
}

// ConvertToTable implements TableConvertor. tableOptions must be nil or a
// *metav1.TableOptions.
func (c *Convertor) ConvertToTable(ctx context.Context, obj runtime.Object, tableOptions runtime.Object) (*metav1.Table, error) {
	p, ok := printersByType[reflect.TypeOf(obj)]
	if !ok {
		return defaultTableConvertor{}.ConvertToTable(ctx, obj, tableOptions)
	}
	noHeaders, err := noHeaders(tableOptions)
	if err != nil {
		return nil, err
	}

	items := []runtime.Object{obj}
	if p.list {
		if items, err = meta.ExtractList(obj); err != nil {
			return nil, err
		}
		if p.order != nil {
			slices.SortStableFunc(items, p.order)
		}
	}

	clock := time.Now
	if c.now != nil {
		clock = c.now
	}
	at := clock()
	table := &metav1.Table{Rows: make([]metav1.TableRow, len(items))}
	for i, item := range items {
		if table.Rows[i], err = p.row(item, at); err != nil {
			return nil, err
		}
	}
	if !noHeaders {
		table.ColumnDefinitions = slices.Clone(p.columns)
	}
	copyListMeta(table, obj)
	return table, nil
}

// noHeaders reads TableOptions.NoHeaders. Like kube-apiserver's printer
// storage, it refuses options of any other type.
func noHeaders(tableOptions runtime.Object) (bool, error) {
	switch opts := tableOptions.(type) {
	case nil:
		return false, nil
	case *metav1.TableOptions:
		return opts != nil && opts.NoHeaders, nil
	default:
		return false, fmt.Errorf("unrecognized type %T for table options, can't display tabular output", tableOptions)
	}
}

// copyListMeta gives the table the list's resourceVersion, continue token
// and remaining item count, or the resourceVersion of a single object.
func copyListMeta(table *metav1.Table, obj runtime.Object) {
	if list, err := meta.ListAccessor(obj); err == nil {
		table.ResourceVersion = list.GetResourceVersion()
		table.Continue = list.GetContinue()
		table.RemainingItemCount = list.GetRemainingItemCount()
		return
	}
	if common, err := meta.CommonAccessor(obj); err == nil {
		table.ResourceVersion = common.GetResourceVersion()
	}
}

// rowFunc renders one object as a row, Object included.
type rowFunc func(obj runtime.Object, now time.Time) (metav1.TableRow, error)

// printer renders one kind, or the list of that kind.
type printer struct {
	columns []metav1.TableColumnDefinition
	row     rowFunc
	// list is true when the printer is looked up by the list type; row
	// then renders the list's items, in the given order if any.
	list  bool
	order func(a, b runtime.Object) int
}

// kind ties the Go types of a kind and of its list (nil when the kind has
// no list, like Scale) to its columns and to the function that renders
// one object.
type kind struct {
	object  runtime.Object
	list    runtime.Object
	columns []metav1.TableColumnDefinition
	row     rowFunc
	// order, when set, sorts the rows of a list; they are otherwise in
	// the order of the list.
	order func(a, b runtime.Object) int
}

func newKind(object, list runtime.Object, columns []metav1.TableColumnDefinition, row rowFunc) kind {
	return kind{object: object, list: list, columns: columns, row: row}
}

// ordered sets the order of the rows of the lists of k.
func ordered(k kind, order func(a, b runtime.Object) int) kind {
	k.order = order
	return k
}

// printersByType is filled once at start-up and only read afterwards.
var printersByType = map[reflect.Type]*printer{}

func init() {
	for _, k := range builtinKinds() {
		register(k)
	}
}

func register(k kind) {
	for _, obj := range []runtime.Object{k.object, k.list} {
		if obj == nil {
			continue
		}
		t := reflect.TypeOf(obj)
		if _, dup := printersByType[t]; dup {
			panic(fmt.Sprintf("printers: %v registered twice", t))
		}
		printersByType[t] = &printer{columns: k.columns, row: k.row, list: obj == k.list, order: k.order}
	}
	for i, c := range k.columns {
		if c.Name == "" || c.Type == "" {
			panic(fmt.Sprintf("printers: column %d of %T has no name or type", i, k.object))
		}
	}
}

// rowOf adapts a function that renders a T as a row (cells and
// conditions) into a rowFunc.
func rowOf[T runtime.Object](render func(obj T, now time.Time) metav1.TableRow) rowFunc {
	return adapt(func(obj T, now time.Time) (metav1.TableRow, error) {
		return render(obj, now), nil
	})
}

// cellsOf adapts a function that renders the cells of a T into a rowFunc.
func cellsOf[T runtime.Object](render func(obj T, now time.Time) []any) rowFunc {
	return adapt(func(obj T, now time.Time) (metav1.TableRow, error) {
		return metav1.TableRow{Cells: render(obj, now)}, nil
	})
}

// fallibleCellsOf is cellsOf for a function that can fail.
func fallibleCellsOf[T runtime.Object](render func(obj T, now time.Time) ([]any, error)) rowFunc {
	return adapt(func(obj T, now time.Time) (metav1.TableRow, error) {
		c, err := render(obj, now)
		return metav1.TableRow{Cells: c}, err
	})
}

// adapt turns a function that renders a T into a rowFunc, which checks
// the type of the object and sets the row's Object.
func adapt[T runtime.Object](render func(obj T, now time.Time) (metav1.TableRow, error)) rowFunc {
	return func(obj runtime.Object, now time.Time) (metav1.TableRow, error) {
		typed, ok := obj.(T)
		if !ok {
			var want T
			return metav1.TableRow{}, fmt.Errorf("cannot print %T in a table of %T", obj, want)
		}
		r, err := render(typed, now)
		if err != nil {
			return metav1.TableRow{}, err
		}
		r.Object = runtime.RawExtension{Object: obj}
		return r, nil
	}
}

// errNotAcceptable is the 406 kube-apiserver answers when an object has
// no metadata to put in a table.
type errNotAcceptable struct {
	resource schema.GroupResource
}

func (e errNotAcceptable) Error() string {
	return fmt.Sprintf("the resource %s does not support being converted to a Table", e.resource)
}

// Status makes the error a metav1.Status for the response writer.
func (e errNotAcceptable) Status() metav1.Status {
	return metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    http.StatusNotAcceptable,
		Reason:  metav1.StatusReasonNotAcceptable,
		Message: e.Error(),
	}
}
