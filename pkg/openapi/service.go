package openapi

import (
	"fmt"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/cached"
	"k8s.io/kube-openapi/pkg/handler3"
	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// Info is the info section of every document.
type Info struct {
	// Title is "Kubernetes" for kube-apiserver.
	Title string
	// Version is the server's major.minor version, such as "1.37".
	Version string
}

// Config configures a Service.
type Config struct {
	Info Info
	// Scheme knows the Go types of the served kinds, and the kinds of the
	// types (for x-kubernetes-group-version-kind). It must be complete when
	// the Service is made.
	Scheme *runtime.Scheme
}

// Service builds and serves the OpenAPI documents of the served resources:
// /openapi/v2, one Swagger 2.0 document of everything, and /openapi/v3, an
// index of one OpenAPI 3.0 document per group version.
//
// Documents are built when first asked for, not when the resources are set,
// so that setting them costs nothing at start-up; the definitions of the
// Go types, which never change, are built once per process and shared by
// all documents.
type Service struct {
	info  Info
	types typeResolver
	kinds kindIndex

	v2 *v2Handler
	v3 *handler3.OpenAPIService

	mu sync.Mutex
	// v3Docs are the documents registered in v3, by path ("api/v1").
	v3Docs     map[string]*v3Source
	generation int
}

// NewService returns a Service that serves no resource until Update.
func NewService(cfg Config) *Service {
	if cfg.Info.Title == "" {
		cfg.Info.Title = "Kubernetes"
	}
	if cfg.Info.Version == "" {
		cfg.Info.Version = "unversioned"
	}
	s := &Service{
		info:   cfg.Info,
		types:  schemeTypes(cfg.Scheme),
		kinds:  newKindIndex(cfg.Scheme),
		v2:     newV2Handler(),
		v3:     handler3.NewOpenAPIService(),
		v3Docs: map[string]*v3Source{},
	}
	if err := s.Update(nil); err != nil {
		panic(err) // Update fails on resources only.
	}
	return s
}

// schemeTypes resolves kinds to the Go types the scheme creates for them.
func schemeTypes(s *runtime.Scheme) typeResolver {
	return func(gvk schema.GroupVersionKind) (reflect.Type, error) {
		obj, err := s.New(gvk)
		if err != nil {
			return nil, fmt.Errorf("no Go type for %v: %w", gvk, err)
		}
		t := reflect.TypeOf(obj)
		if t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
			return nil, fmt.Errorf("the type of %v, %v, is not a pointer to a struct", gvk, t)
		}
		return t.Elem(), nil
	}
}

// Update replaces the served resources. The resource of each is served in
// the group version of its GVK. It fails, leaving the documents as they
// were, if a resource cannot be described; the documents themselves are
// built when first asked for. The v3 documents of group versions whose
// resources did not change are kept, with their encodings and hashes, so
// that clients keep their caches.
func (s *Service) Update(resources []Resource) error {
	byGV := map[schema.GroupVersion][]Resource{}
	for _, r := range resources {
		gv := r.GVK.GroupVersion()
		byGV[gv] = append(byGV[gv], r)
	}

	// The v3 documents by path, and all operations for v2.
	docs := map[string]*v3Source{"version": {ops: []operation{versionOperation()}}}
	all := []operation{versionOperation()}
	groups := map[string]bool{}
	for gv, rs := range byGV {
		ops, err := groupVersionOperations(gv, rs, s.types)
		if err != nil {
			return fmt.Errorf("describing %v: %w", gv, err)
		}
		path := strings.TrimPrefix(namingFor(gv).prefix, "/")
		docs[path] = &v3Source{ops: ops, gv: &gv, resources: rs}
		all = append(all, ops...)
		groups[gv.Group] = true
	}
	for group := range groups {
		if group == "" {
			docs["api"] = &v3Source{ops: []operation{legacyRootOperation()}}
			all = append(all, legacyRootOperation())
			continue
		}
		op := groupOperation(group)
		docs["apis/"+group] = &v3Source{ops: []operation{op}}
		all = append(all, op)
	}
	if len(groups) > 1 || (len(groups) == 1 && !groups[""]) {
		docs["apis"] = &v3Source{ops: []operation{rootOperation()}}
		all = append(all, rootOperation())
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	s.generation++
	version := strconv.Itoa(s.generation)
	s.v2.update(version, func() (*spec.Swagger, error) { return buildV2(s.info, all, s.kinds) })
	for path, doc := range docs {
		if old, ok := s.v3Docs[path]; ok && reflect.DeepEqual(old.resources, doc.resources) {
			continue
		}
		doc.document = cached.Once(cached.Func(func() (*spec3.OpenAPI, string, error) {
			built, err := buildV3(s.info, doc.ops, s.kinds, doc.gv)
			return built, version, err
		}))
		s.v3.UpdateGroupVersionLazy(path, doc.document)
		s.v3Docs[path] = doc
	}
	for path := range s.v3Docs {
		if _, ok := docs[path]; !ok {
			s.v3.DeleteGroupVersion(path)
			delete(s.v3Docs, path)
		}
	}
	return nil
}

// v3Source is what a v3 document is built from.
type v3Source struct {
	ops []operation
	// gv is the group version of the document, nil for the others
	// (/version and discovery).
	gv *schema.GroupVersion
	// resources are those the operations describe: the document changes
	// when they do, and only then.
	resources []Resource
	// document is built on first use.
	document cached.Value[*spec3.OpenAPI]
}

// ServeHTTP serves /openapi/v2, /openapi/v3 and /openapi/v3/<path>.
func (s *Service) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch path := r.URL.Path; {
	case path == "/openapi/v2":
		s.v2.ServeHTTP(w, r)
	case path == "/openapi/v3":
		s.v3.HandleDiscovery(w, r)
	case strings.HasPrefix(path, "/openapi/v3/"):
		// handler3 answers an empty 200 for documents it does not have.
		if !s.hasV3(strings.TrimPrefix(path, "/openapi/v3/")) {
			http.NotFound(w, r)
			return
		}
		s.v3.HandleGroupVersion(w, r)
	default:
		http.NotFound(w, r)
	}
}

func (s *Service) hasV3(path string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.v3Docs[path]
	return ok
}

// OpenAPIV2 returns the Swagger 2.0 document. It is shared: do not modify
// it.
func (s *Service) OpenAPIV2() (*spec.Swagger, error) {
	doc, _, err := s.v2.spec.Get()
	return doc, err
}

// OpenAPIV3 returns the OpenAPI 3.0 document of a group version, or nil
// when it is not served. It is shared: do not modify it.
func (s *Service) OpenAPIV3(gv schema.GroupVersion) (*spec3.OpenAPI, error) {
	s.mu.Lock()
	src, ok := s.v3Docs[strings.TrimPrefix(namingFor(gv).prefix, "/")]
	s.mu.Unlock()
	if !ok {
		return nil, nil
	}
	doc, _, err := src.document.Get()
	return doc, err
}
