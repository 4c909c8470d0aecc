package customresource

import (
	"fmt"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/util/jsonpath"

	"github.com/kapi-dev/kapi/pkg/printers"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

// Config is what the storage of one served version of a CRD needs to know.
type Config struct {
	// Resource is the plural resource in the CRD's group.
	Resource schema.GroupResource
	// Singular names the resource in discovery.
	Singular string
	// Kind is the kind in the served version; ListKind its list kind.
	Kind     schema.GroupVersionKind
	ListKind string
	// StorageVersion is the version objects are stored in.
	StorageVersion string

	Namespaced bool
	ShortNames []string
	Categories []string

	Validator Validator
	// Status enables the status subresource.
	Status bool
	// Scale, when set, enables the scale subresource.
	Scale *apiextensionsv1.CustomResourceSubresourceScale
	// Columns are the version's additionalPrinterColumns.
	Columns []apiextensionsv1.CustomResourceColumnDefinition
	// SelectableFields are the version's selectableFields.
	SelectableFields []apiextensionsv1.SelectableField
}

// Storage is the REST storage of one served version of a CRD.
type Storage struct {
	CustomResource *generic.Store
	// Status and Scale are nil when the CRD does not enable them.
	Status *generic.SubresourceREST
	Scale  *ScaleREST
}

// NewStorage returns the storage of the custom resources cfg describes.
// The objects live at /<group>/<plural>[/<namespace>]/<name> below the
// storage prefix, whichever version serves them.
func NewStorage(opts generic.RESTOptions, cfg Config) (*Storage, error) {
	st := strategy{
		// As in kube-apiserver, an update of a custom resource must name
		// the resourceVersion it was computed from.
		DefaultStrategy: generic.DefaultStrategy{Namespaced: cfg.Namespaced, RequireResourceVersionOnUpdate: true},
		statusEnabled:   cfg.Status,
		validator:       cfg.Validator,
		apiVersion:      cfg.Kind.GroupVersion().String(),
	}
	fieldNames, fieldsFunc, err := selectableFields(cfg.SelectableFields)
	if err != nil {
		return nil, err
	}
	tables, err := printers.NewCustomResourceColumns(cfg.Columns)
	if err != nil {
		return nil, err
	}
	kind, listKind := cfg.Kind, cfg.Kind.GroupVersion().WithKind(cfg.ListKind)
	s := &generic.Store{
		NewFunc: func() runtime.Object {
			u := &unstructured.Unstructured{}
			u.SetGroupVersionKind(kind)
			return u
		},
		NewListFunc: func() runtime.Object {
			l := &unstructured.UnstructuredList{}
			l.SetGroupVersionKind(listKind)
			return l
		},
		DefaultQualifiedResource:  cfg.Resource,
		SingularQualifiedResource: schema.GroupResource{Group: cfg.Resource.Group, Resource: cfg.Singular},
		StorageVersionKind:        schema.GroupVersionKind{Group: kind.Group, Version: cfg.StorageVersion, Kind: kind.Kind},
		KeyPrefix:                 "/" + cfg.Resource.Group + "/" + cfg.Resource.Resource,
		SelectableFields:          fieldNames,
		FieldsFunc:                fieldsFunc,
		UnknownFieldSelector: func(field string) error {
			return fmt.Errorf("field label not supported: %s", field)
		},
		CreateStrategy: st,
		UpdateStrategy: st,
		DeleteStrategy: st,
		TableConvertor: tables,
		ShortNamesList: cfg.ShortNames,
		CategoriesList: cfg.Categories,
	}
	if err := opts.Complete(s, kind.GroupVersion()); err != nil {
		return nil, err
	}
	out := &Storage{CustomResource: s}
	if cfg.Status {
		out.Status = generic.NewSubresourceREST(s, statusStrategy{st})
	}
	if cfg.Scale != nil {
		out.Scale = &ScaleREST{store: s, paths: *cfg.Scale}
	}
	return out, nil
}

// Map returns the storage by discovery path: "plural", "plural/status",
// "plural/scale".
func (s *Storage) Map() map[string]rest.Storage {
	plural := s.CustomResource.DefaultQualifiedResource.Resource
	m := map[string]rest.Storage{plural: s.CustomResource}
	if s.Status != nil {
		m[plural+"/status"] = s.Status
	}
	if s.Scale != nil {
		m[plural+"/scale"] = s.Scale
	}
	return m
}

// Destroy releases the storage (its watch cache).
func (s *Storage) Destroy() { s.CustomResource.Destroy() }

// selectableFields compiles the CRD's selectable fields: field selectors
// name them by their JSON path without the leading dot.
func selectableFields(defs []apiextensionsv1.SelectableField) ([]string, generic.FieldsFunc, error) {
	if len(defs) == 0 {
		return nil, nil, nil
	}
	names := make([]string, len(defs))
	paths := make([]*jsonpath.JSONPath, len(defs))
	for i, d := range defs {
		names[i] = strings.TrimPrefix(d.JSONPath, ".")
		p := jsonpath.New(names[i]).AllowMissingKeys(true)
		if err := p.Parse("{" + d.JSONPath + "}"); err != nil {
			return nil, nil, err
		}
		paths[i] = p
	}
	return names, func(obj runtime.Object) fields.Set {
		u, ok := obj.(*unstructured.Unstructured)
		if !ok {
			return nil
		}
		set := make(fields.Set, len(names))
		for i, p := range paths {
			set[names[i]] = fieldValue(p, u.Object)
		}
		return set
	}, nil
}

// fieldValue is the selectable value at a path: strings as they are,
// numbers and booleans in their JSON form, "" when missing.
func fieldValue(p *jsonpath.JSONPath, obj map[string]interface{}) string {
	results, err := p.FindResults(obj)
	if err != nil || len(results) == 0 || len(results[0]) == 0 {
		return ""
	}
	var b strings.Builder
	if err := p.PrintResults(&b, results[0][:1]); err != nil {
		return ""
	}
	return b.String()
}
