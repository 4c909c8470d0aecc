package validatingadmissionpolicystatus

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/kapi-dev/kapi/pkg/cel/schemas"
	"github.com/kapi-dev/kapi/pkg/openapi"
)

// ErrSchemaNotFound is the error of a kind whose schema is not known:
// its expressions are not checked against it, and nothing is logged.
var ErrSchemaNotFound = errors.New("schema not found")

// SchemaResolver finds the schema of the objects of a kind.
type SchemaResolver interface {
	ResolveSchema(gvk schema.GroupVersionKind) (schemas.Schema, error)
}

// refPrefix is how OpenAPI v3 documents refer to their schemas.
const refPrefix = "#/components/schemas/"

const gvkExtension = "x-kubernetes-group-version-kind"

// NewSchemaResolver resolves the kinds of scheme from their OpenAPI
// definitions (the ones kapi serves, built from the Go types), and any
// other kind (custom resources) from the OpenAPI v3 document of its
// group version that disc reads from the server, as
// kube-controller-manager resolves them.
func NewSchemaResolver(scheme *runtime.Scheme, disc discovery.DiscoveryInterface) SchemaResolver {
	return &resolver{scheme: scheme, discovery: disc}
}

type resolver struct {
	scheme    *runtime.Scheme
	discovery discovery.DiscoveryInterface

	once    sync.Once
	defs    map[string]*spec.Schema
	byKind  map[schema.GroupVersionKind]string
	defsErr error
}

// definitions builds the definitions of every type of the scheme once.
func (r *resolver) definitions() (map[string]*spec.Schema, map[schema.GroupVersionKind]string, error) {
	r.once.Do(func() {
		var objs []runtime.Object
		seen := map[reflect.Type]bool{}
		for _, t := range r.scheme.AllKnownTypes() {
			if seen[t] || t.Kind() != reflect.Struct {
				continue
			}
			seen[t] = true
			if obj, ok := reflect.New(t).Interface().(runtime.Object); ok {
				objs = append(objs, obj)
			}
		}
		r.defs, r.defsErr = openapi.Definitions(r.scheme, objs...)
		r.byKind = map[schema.GroupVersionKind]string{}
		for name, d := range r.defs {
			for _, gvk := range kindsOf(d) {
				r.byKind[gvk] = name
			}
		}
	})
	return r.defs, r.byKind, r.defsErr
}

func kindsOf(s *spec.Schema) []schema.GroupVersionKind {
	var gvks []schema.GroupVersionKind
	if err := s.Extensions.GetObject(gvkExtension, &gvks); err != nil {
		return nil
	}
	return gvks
}

func (r *resolver) ResolveSchema(gvk schema.GroupVersionKind) (schemas.Schema, error) {
	defs, byKind, err := r.definitions()
	if err != nil {
		return nil, err
	}
	if name, ok := byKind[gvk]; ok {
		return schemas.OpenAPI(defs[name], func(ref string) (*spec.Schema, bool) {
			s, ok := defs[strings.TrimPrefix(ref, refPrefix)]
			return s, ok
		}), nil
	}
	return r.fromDiscovery(gvk)
}

// fromDiscovery reads the schema of gvk in the OpenAPI v3 document of
// its group version.
func (r *resolver) fromDiscovery(gvk schema.GroupVersionKind) (schemas.Schema, error) {
	paths, err := r.discovery.OpenAPIV3().Paths()
	if err != nil {
		return nil, err
	}
	path := "apis/" + gvk.Group + "/" + gvk.Version
	if gvk.Group == "" {
		path = "api/" + gvk.Version
	}
	gv, ok := paths[path]
	if !ok {
		return nil, fmt.Errorf("cannot resolve group version %q: %w", gvk.GroupVersion(), ErrSchemaNotFound)
	}
	data, err := gv.Schema(runtime.ContentTypeJSON)
	if err != nil {
		return nil, err
	}
	var doc struct {
		Components struct {
			Schemas map[string]*spec.Schema `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	for _, s := range doc.Components.Schemas {
		for _, k := range kindsOf(s) {
			if k == gvk {
				return schemas.OpenAPI(s, func(ref string) (*spec.Schema, bool) {
					s, ok := doc.Components.Schemas[strings.TrimPrefix(ref, refPrefix)]
					return s, ok
				}), nil
			}
		}
	}
	return nil, fmt.Errorf("cannot resolve group version kind %q: %w", gvk, ErrSchemaNotFound)
}
