// Package fieldmanager connects the handlers to apimachinery's field
// manager (k8s.io/apimachinery/pkg/util/managedfields), which records in
// metadata.managedFields who set which field, and merges server-side apply
// patches. It gives the field manager what it needs: a type converter,
// which knows the structure of the kinds (how lists and maps merge, from
// the OpenAPI definitions of the Go types or from the schema of a
// CustomResourceDefinition), the fields a subresource resets, and the name
// of the manager of a request.
package fieldmanager

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"unicode"
	"unicode/utf8"

	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/kapi-dev/kapi/pkg/api/scheme"
)

// Config is what the field manager of one endpoint (a resource or a
// subresource, in one version) is made from.
type Config struct {
	TypeConverter managedfields.TypeConverter
	Convertor     runtime.ObjectConvertor
	Defaulter     runtime.ObjectDefaulter
	Creater       runtime.ObjectCreater
	// Typer tells the version of typed objects, to spare them the deep
	// copies of conversions to the version they are in (see
	// versionedCopies). Nil leaves every conversion to Convertor.
	Typer runtime.ObjectTyper
	// Kind is the kind the endpoint serves, in the version addressed; the
	// managedFields entries it writes carry its version.
	Kind schema.GroupVersionKind
	// Hub is the version the handlers give objects to the field manager
	// in: the storage version.
	Hub schema.GroupVersion
	// Subresource is "" for the resource itself. The managers of a
	// subresource are recorded apart ("subresource": "status").
	Subresource string
	// ResetFields are the fields the endpoint's writes reset, by version
	// (the status for the resource, the spec and metadata for /status):
	// nobody owns them through this endpoint, and they never conflict.
	ResetFields map[fieldpath.APIVersion]*fieldpath.Set
}

// New returns the field manager of an endpoint.
//
// It is apimachinery's CRD field manager for every kind, built-in or not:
// the two differ only in the version managedFields are converted through,
// which kube-apiserver's built-in kinds have internal and kapi's, like
// custom resources, have real, their storage version.
func New(cfg Config) (*managedfields.FieldManager, error) {
	if cfg.TypeConverter == nil {
		return nil, fmt.Errorf("no type converter for %v", cfg.Kind)
	}
	var reset map[fieldpath.APIVersion]fieldpath.Filter
	if len(cfg.ResetFields) > 0 {
		reset = fieldpath.NewExcludeFilterSetMap(cfg.ResetFields)
	}
	convertor := cfg.Convertor
	if cfg.Typer != nil {
		copies := versionedCopies{next: cfg.Convertor, typer: cfg.Typer, creater: cfg.Creater}
		if obj, err := cfg.Creater.New(cfg.Kind); err == nil {
			if _, ok := obj.(runtime.Unstructured); ok {
				copies.unstructuredKind = cfg.Kind
			}
		}
		convertor = copies
	}
	if cfg.Kind.Group != cfg.Hub.Group {
		convertor = acrossGroups{convertor, cfg.Hub.Group}
	}
	return managedfields.NewDefaultCRDFieldManager(cfg.TypeConverter, convertor, cfg.Defaulter, cfg.Creater,
		cfg.Kind, cfg.Hub, cfg.Subresource, reset)
}

// ManagerName is the manager a write is recorded under: the fieldManager
// the client gave, or else the product of its User-Agent, the part before
// the first "/" ("kubectl", "curl", "Go-http-client"), without the
// characters that cannot be printed and cut to the longest manager name
// kube-apiserver accepts.
func ManagerName(fieldManager, userAgent string) string {
	if fieldManager != "" {
		return fieldManager
	}
	product, _, _ := strings.Cut(userAgent, "/")
	var b bytes.Buffer
	for _, r := range product {
		if !unicode.IsPrint(r) {
			continue
		}
		if b.Len()+utf8.RuneLen(r) > metav1validation.FieldManagerMaxLength {
			break
		}
		b.WriteRune(r)
	}
	return b.String()
}

// acrossGroups is the convertor of an endpoint whose kind is stored in
// another group (events.k8s.io/v1 Event, stored as a core/v1 Event). The
// field manager converts to a group version, which a scheme does only
// within a group: the conversion is asked for the same kind in that group
// version instead, as the handlers ask for it.
//
// The field manager converts through the hub in two ways: objects between
// the endpoint's version and the hub (those it is given and those it
// returns), and objects to the version of each managedFields entry, through
// the hub. kube-apiserver's conversions of managedFields stay within the
// endpoint's group, so that it cannot convert to an entry of the hub's
// group (an events.k8s.io/v1 write forgets the managers that wrote through
// core/v1), and it drops those entries. Such a conversion is the only one
// from the hub's group to the hub's group, and it fails here as
// kube-apiserver's does, with a not-registered error.
type acrossGroups struct {
	runtime.ObjectConvertor
	hubGroup string
}

func (c acrossGroups) ConvertToVersion(in runtime.Object, target runtime.GroupVersioner) (runtime.Object, error) {
	if gv, ok := target.(schema.GroupVersion); ok {
		if gv.Group == c.hubGroup && in.GetObjectKind().GroupVersionKind().Group == c.hubGroup {
			return nil, runtime.NewNotRegisteredErrForTarget("kapi", reflect.TypeOf(in), target)
		}
		target = scheme.KindVersioner{GroupVersion: gv}
	}
	return c.ObjectConvertor.ConvertToVersion(in, target)
}
