package openapi

import (
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/cached"
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
	// ServiceAccountIssuerDiscovery says the server serves the service
	// account issuer's discovery documents (/.well-known/openid-configuration
	// and /openid/v1/jwks), which are then described as kube-apiserver
	// describes them.
	ServiceAccountIssuerDiscovery bool
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
	info Info
	// issuerDiscovery: the service account issuer's documents are
	// described.
	issuerDiscovery bool
	types           typeResolver
	kinds           kindIndex
	// v2Definitions are the encoded definitions of Go types in the v2
	// document, the same in all.
	v2Definitions *v2DefinitionCache

	v2 *v2Handler

	mu sync.Mutex
	// groupVersions are the served group versions, with what their
	// documents are built from.
	groupVersions map[schema.GroupVersion]*v3Source
	// v3Docs are the documents registered in v3, by path ("api/v1"): those
	// of groupVersions, of discovery and of /version.
	v3Docs map[string]*v3Source
	// discoveryUsers counts the group versions that need each discovery
	// document of v3Docs ("apis/apps": apps/v1).
	discoveryUsers map[string]int
	// v3Index is the index of v3Docs, encoded on first request after a
	// change; nil until then.
	v3Index    *v3Index
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
	kinds := newKindIndex(cfg.Scheme)
	s := &Service{
		info:            cfg.Info,
		issuerDiscovery: cfg.ServiceAccountIssuerDiscovery,
		v2Definitions:   newV2DefinitionCache(kinds),
		types:           schemeTypes(cfg.Scheme),
		kinds:           kinds,
		v2:              newV2Handler(),
		v3Docs:          map[string]*v3Source{},
		discoveryUsers:  map[string]int{},

		groupVersions: map[schema.GroupVersion]*v3Source{},
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

// Update replaces all the served resources. The resource of each is served
// in the group version of its GVK. It fails, leaving the documents as they
// were, if a resource cannot be described; the documents themselves are
// built when first asked for. Group versions whose resources did not
// change are not described again, and keep their v3 documents, with their
// encodings and hashes, so that clients keep their caches.
func (s *Service) Update(resources []Resource) error {
	byGV := map[schema.GroupVersion][]Resource{}
	for _, r := range resources {
		gv := r.GVK.GroupVersion()
		byGV[gv] = append(byGV[gv], r)
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	changes := map[schema.GroupVersion]*v3Source{}
	for gv, rs := range byGV {
		src, changed, err := s.describeLocked(gv, rs)
		if err != nil {
			return err
		}
		if changed {
			changes[gv] = src
		}
	}
	for gv := range s.groupVersions {
		if _, ok := byGV[gv]; !ok {
			changes[gv] = nil
		}
	}
	if len(changes) > 0 || s.generation == 0 {
		s.applyLocked(changes)
	}
	return nil
}

// SetGroupVersion replaces the resources of one group version, served at
// its path whatever the group versions of their kinds; no resources
// removes it. This is what the servers call when what they serve changes
// (a CustomResourceDefinition is added, changed or removed): only the
// group version that changed is described again, and only its v3
// document and the v2 document will be built again, when asked for. It
// fails, leaving the documents as they were, if a resource cannot be
// described.
func (s *Service) SetGroupVersion(gv schema.GroupVersion, resources []Resource) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(resources) == 0 {
		if _, ok := s.groupVersions[gv]; ok {
			s.applyLocked(map[schema.GroupVersion]*v3Source{gv: nil})
		}
		return nil
	}
	src, changed, err := s.describeLocked(gv, resources)
	if err != nil || !changed {
		return err
	}
	s.applyLocked(map[schema.GroupVersion]*v3Source{gv: src})
	return nil
}

// describeLocked describes the resources of a group version, unless they
// are those it serves already (changed is then false).
func (s *Service) describeLocked(gv schema.GroupVersion, resources []Resource) (src *v3Source, changed bool, err error) {
	if old, ok := s.groupVersions[gv]; ok && reflect.DeepEqual(old.resources, resources) {
		return old, false, nil
	}
	ops, err := groupVersionOperations(gv, resources, s.types)
	if err != nil {
		return nil, false, fmt.Errorf("describing %v: %w", gv, err)
	}
	custom, _ := customResources(resources) // checked by groupVersionOperations
	return &v3Source{ops: ops, flavour: v3Flavour{gv: &gv, customResources: custom}, resources: slices.Clone(resources)}, true, nil
}

// applyLocked serves the group versions that changed (nil for those no
// longer served): their v3 documents, the discovery documents that follow
// from the set of group versions, and a new v2 document. Its work is that
// of the changes, not of everything served: a server with a thousand CRDs
// applies one at a time as they are installed.
func (s *Service) applyLocked(changes map[schema.GroupVersion]*v3Source) {
	s.generation++
	version := strconv.Itoa(s.generation)
	for gv, src := range changes {
		path := v3Path(gv)
		old, wasServed := s.groupVersions[gv]
		if src == nil {
			delete(s.groupVersions, gv)
			s.removeV3Locked(path)
		} else {
			s.groupVersions[gv] = src
			s.publishV3Locked(path, src)
			s.referenceDiscoveryLocked(gv, src)
		}
		// After the new source's references: the discovery documents
		// both need stay as they are, encodings and all.
		if wasServed {
			s.unreferenceDiscoveryLocked(gv, old)
		}
	}
	if _, ok := s.v3Docs["version"]; !ok {
		s.publishV3Locked("version", &v3Source{ops: []operation{versionOperation()}})
		if s.issuerDiscovery {
			for path, op := range issuerDiscoveryOperations() {
				s.publishV3Locked(path, &v3Source{ops: []operation{op}})
			}
		}
	}

	// The v2 document has everything: it is assembled when asked for,
	// from the operations of this generation.
	sources := make([]*v3Source, 0, len(s.v3Docs))
	for _, src := range s.v3Docs {
		sources = append(sources, src)
	}
	s.v2.update(version, &v2Document{info: s.info, sources: sources, defs: s.v2Definitions})
}

// discoveryOperations are the discovery documents a served group version
// needs described, by path: kube-apiserver describes /api, /apis and
// /apis/<group> for the built-in groups, none for those of custom
// resources.
func discoveryOperations(gv schema.GroupVersion, src *v3Source) map[string]func() operation {
	switch {
	case src.flavour.customResources:
		return nil
	case gv.Group == "":
		return map[string]func() operation{"api": legacyRootOperation}
	default:
		return map[string]func() operation{
			"apis":             rootOperation,
			"apis/" + gv.Group: func() operation { return groupOperation(gv.Group) },
		}
	}
}

// referenceDiscoveryLocked counts a served group version as a user of its
// discovery documents, publishing those it is the first user of.
func (s *Service) referenceDiscoveryLocked(gv schema.GroupVersion, src *v3Source) {
	for path, op := range discoveryOperations(gv, src) {
		s.discoveryUsers[path]++
		if _, ok := s.v3Docs[path]; !ok {
			s.publishV3Locked(path, &v3Source{ops: []operation{op()}})
		}
	}
}

// unreferenceDiscoveryLocked forgets a user of discovery documents,
// removing those it was the last user of.
func (s *Service) unreferenceDiscoveryLocked(gv schema.GroupVersion, src *v3Source) {
	for path := range discoveryOperations(gv, src) {
		if s.discoveryUsers[path]--; s.discoveryUsers[path] <= 0 {
			delete(s.discoveryUsers, path)
			s.removeV3Locked(path)
		}
	}
}

// publishV3Locked serves src's document at path. It is built when asked
// for.
func (s *Service) publishV3Locked(path string, src *v3Source) {
	src.served = &servedDocument{path: path, lastModified: time.Now()}
	s.v3Docs[path] = src
	s.v3Index = nil
}

func (s *Service) removeV3Locked(path string) {
	delete(s.v3Docs, path)
	s.v3Index = nil
}

// v3Path is the path of the v3 document of a group version: api/v1,
// apis/apps/v1.
func v3Path(gv schema.GroupVersion) string {
	return strings.TrimPrefix(namingFor(gv).prefix, "/")
}

// v3Source is what a v3 document is built from.
type v3Source struct {
	ops     []operation
	flavour v3Flavour
	// resources are those the operations describe, for the documents of
	// group versions: the document changes when they do, and only then.
	resources []Resource
	// served is the document as served at its path.
	served *servedDocument

	// v2 is the source's part of the v2 document, built on first use.
	v2Once sync.Once
	v2     *v2Part
	v2Err  error
}

func (src *v3Source) v2Part() (*v2Part, error) {
	src.v2Once.Do(func() { src.v2, src.v2Err = newV2Part(src.ops) })
	return src.v2, src.v2Err
}

// ServeHTTP serves /openapi/v2, /openapi/v3 and /openapi/v3/<path>.
func (s *Service) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch path := r.URL.Path; {
	case path == "/openapi/v2":
		s.v2.ServeHTTP(w, r)
	case path == "/openapi/v3":
		s.serveV3Index(w, r)
	case strings.HasPrefix(path, "/openapi/v3/"):
		s.serveV3Document(w, r, strings.TrimPrefix(path, "/openapi/v3/"))
	default:
		http.NotFound(w, r)
	}
}

// OpenAPIV2 returns the Swagger 2.0 document. It is shared: do not modify
// it.
func (s *Service) OpenAPIV2() (*spec.Swagger, error) {
	doc, _, err := s.v2.spec.Get()
	return doc, err
}

// OpenAPIV2Document is the Swagger 2.0 document, with an ETag that
// changes when it does (and only then), for the aggregator to merge the
// documents of remote servers into when it changes. The document is
// shared: do not modify it.
func (s *Service) OpenAPIV2Document() cached.Value[*spec.Swagger] {
	return s.v2.spec
}

// OpenAPIV3 returns the OpenAPI 3.0 document of a group version, or nil
// when it is not served. It is built for the caller.
func (s *Service) OpenAPIV3(gv schema.GroupVersion) (*spec3.OpenAPI, error) {
	s.mu.Lock()
	src, ok := s.v3Docs[v3Path(gv)]
	s.mu.Unlock()
	if !ok {
		return nil, nil
	}
	return buildV3(s.info, src.ops, s.kinds, src.flavour)
}
