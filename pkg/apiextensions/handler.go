package apiextensions

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/pkg/api/scheme"
	crdopenapi "github.com/kapi-dev/kapi/pkg/apiextensions/openapi"
	"github.com/kapi-dev/kapi/pkg/apiextensions/serializer"
	"github.com/kapi-dev/kapi/pkg/apis/apiextensions"
	"github.com/kapi-dev/kapi/pkg/endpoints"
	"github.com/kapi-dev/kapi/pkg/endpoints/discovery"
	"github.com/kapi-dev/kapi/pkg/endpoints/handlers"
	"github.com/kapi-dev/kapi/pkg/endpoints/request"
	"github.com/kapi-dev/kapi/pkg/endpoints/responsewriters"
	"github.com/kapi-dev/kapi/pkg/endpoints/warning"
	"github.com/kapi-dev/kapi/pkg/openapi"
	"github.com/kapi-dev/kapi/pkg/registry/customresource"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/storage"
)

// crVerbOrder is the order kube-apiserver lists the verbs of custom
// resources in discovery.
var crVerbOrder = []string{"delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"}

// crdGroupPriority orders CRD groups after the built-in ones in discovery,
// as kube-apiserver's automatic APIServices for CRDs do.
const crdGroupPriority = 1000

// servedCRD serves the custom resources of one CRD, as it was when they
// were built; crd is replaced on every change of the CRD that does not
// need a rebuild (its conditions).
type servedCRD struct {
	crd      atomic.Pointer[apiextensionsv1.CustomResourceDefinition]
	group    string
	storages map[string]*customresource.Storage        // by served version
	handlers map[string]*endpoints.GroupVersionHandler // by served version
	openAPI  map[string][]openapi.Resource             // by served version
	// warnings are the deprecation warnings of deprecated versions.
	warnings map[string]string // by served version
}

// isServed reports whether the CRD's resources are served: once it is
// established.
func (s *servedCRD) isServed() bool {
	crd := s.crd.Load()
	return crd != nil && len(s.handlers) > 0 && apiextensions.IsConditionTrue(crd, apiextensionsv1.Established)
}

// groupVersions are the group versions the CRD serves resources in.
func (s *servedCRD) groupVersions() map[schema.GroupVersion]bool {
	out := make(map[schema.GroupVersion]bool, len(s.handlers))
	for version := range s.handlers {
		out[schema.GroupVersion{Group: s.group, Version: version}] = true
	}
	return out
}

// destroy stops the watch caches of the CRD's storage.
func (s *servedCRD) destroy() {
	for _, st := range s.storages {
		st.Destroy()
	}
}

// crdHandler serves the custom resources of every established CRD. It is
// kept current by the CRD informer; requests find what serves them with
// one map lookup.
type crdHandler struct {
	cfg       Config
	discovery *discovery.Registry
	// setGroupVersion installs or (with nil) removes a group version's
	// handler in the apiextensions server.
	setGroupVersion func(schema.GroupVersion, http.Handler)

	mu sync.Mutex // serializes changes
	// byName is every CRD being served, by CRD name.
	byName map[string]*servedCRD
	// byGroup is byName by API group then CRD name: a change of one CRD
	// republishes the versions of its group only, so that installing a
	// thousand CRDs is not a thousand times the work of all of them.
	byGroup map[string]map[string]*servedCRD
	// routes maps each served group version to its resources. A
	// crdRoutes is replaced, never modified: requests read it without a
	// lock.
	routes sync.Map // schema.GroupVersion -> crdRoutes
}

// crdRoutes are the custom resources of one group version, by plural.
type crdRoutes map[string]*servedCRD

func newCRDHandler(cfg Config, disc *discovery.Registry, set func(schema.GroupVersion, http.Handler)) *crdHandler {
	return &crdHandler{cfg: cfg, discovery: disc, setGroupVersion: set,
		byName: map[string]*servedCRD{}, byGroup: map[string]map[string]*servedCRD{}}
}

// routesOf returns what serves the resources of gv, or nil.
func (h *crdHandler) routesOf(gv schema.GroupVersion) crdRoutes {
	r, _ := h.routes.Load(gv)
	routes, _ := r.(crdRoutes)
	return routes
}

// addLocked and removeLocked keep byName and byGroup together.
func (h *crdHandler) addLocked(name string, served *servedCRD) {
	h.byName[name] = served
	if h.byGroup[served.group] == nil {
		h.byGroup[served.group] = map[string]*servedCRD{}
	}
	h.byGroup[served.group][name] = served
}

func (h *crdHandler) removeLocked(name string, served *servedCRD) {
	delete(h.byName, name)
	delete(h.byGroup[served.group], name)
	if len(h.byGroup[served.group]) == 0 {
		delete(h.byGroup, served.group)
	}
}

// servingEqual reports whether two states of a CRD serve the same way:
// only the spec and the accepted names shape the storage and handlers.
func servingEqual(a, b *apiextensionsv1.CustomResourceDefinition) bool {
	return apiequality.Semantic.DeepEqual(a.Spec, b.Spec) &&
		apiequality.Semantic.DeepEqual(a.Status.AcceptedNames, b.Status.AcceptedNames)
}

// Update serves crd as it is now.
func (h *crdHandler) Update(crd *apiextensionsv1.CustomResourceDefinition) {
	h.mu.Lock()
	defer h.mu.Unlock()
	old := h.byName[crd.Name]
	if old != nil && servingEqual(old.crd.Load(), crd) {
		wasServed := old.isServed()
		old.crd.Store(crd)
		if wasServed != old.isServed() {
			h.publishLocked(old.groupVersions())
		}
		return
	}
	served, err := h.build(crd)
	if err != nil {
		h.cfg.Logger.Error("cannot serve custom resources", "crd", crd.Name, "err", err)
	}
	affected := map[schema.GroupVersion]bool{}
	if old != nil {
		old.destroy()
		h.removeLocked(crd.Name, old)
		h.forgetVersions(old, served)
		maps.Copy(affected, old.groupVersions())
	}
	if served != nil {
		h.addLocked(crd.Name, served)
		maps.Copy(affected, served.groupVersions())
	}
	h.publishLocked(affected)
}

// Remove stops serving a deleted CRD.
func (h *crdHandler) Remove(name string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if old, ok := h.byName[name]; ok {
		old.destroy()
		h.removeLocked(name, old)
		h.forgetVersions(old, nil)
		h.publishLocked(old.groupVersions())
	}
}

// RemoveAll stops serving every CRD and releases their storage.
func (h *crdHandler) RemoveAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	affected := map[schema.GroupVersion]bool{}
	for name, served := range h.byName {
		served.destroy()
		h.removeLocked(name, served)
		h.forgetVersions(served, nil)
		maps.Copy(affected, served.groupVersions())
	}
	h.publishLocked(affected)
}

// forgetVersions removes from the equivalent-resource registry the
// versions old served that now (nil: nothing) does not serve under the
// same resource name.
func (h *crdHandler) forgetVersions(old, now *servedCRD) {
	crd := old.crd.Load()
	if crd == nil {
		return
	}
	var nowCRD *apiextensionsv1.CustomResourceDefinition
	if now != nil {
		nowCRD = now.crd.Load()
	}
	for version := range old.handlers {
		if nowCRD != nil && nowCRD.Spec.Names.Plural == crd.Spec.Names.Plural && now.handlers[version] != nil {
			continue
		}
		h.cfg.EquivalentResources.ForgetVersion(schema.GroupVersionResource{Group: old.group, Version: version, Resource: crd.Spec.Names.Plural})
	}
}

// Storage returns the storage of the CRD's storage version, for the
// cleanup controller, or nil when the CRD is not served.
func (h *crdHandler) Storage(crd *apiextensionsv1.CustomResourceDefinition) *customresource.Storage {
	h.mu.Lock()
	defer h.mu.Unlock()
	served, ok := h.byName[crd.Name]
	if !ok {
		return nil
	}
	for _, st := range served.storages {
		return st
	}
	return nil
}

// build makes the storage and handlers of every served version.
func (h *crdHandler) build(crd *apiextensionsv1.CustomResourceDefinition) (*servedCRD, error) {
	storageVersion, err := apiextensions.StorageVersion(crd)
	if err != nil {
		return nil, err
	}
	names := crd.Status.AcceptedNames
	if names.Kind == "" {
		// Not accepted yet: nothing to serve until the naming controller
		// has decided.
		served := &servedCRD{group: crd.Spec.Group}
		served.crd.Store(crd)
		return served, nil
	}
	schemas, validators, err := h.cfg.Schemas(crd)
	if err != nil {
		return nil, err
	}
	converter, err := h.cfg.Converters(crd)
	if err != nil {
		return nil, err
	}
	codecs := serializer.New(serializer.Config{
		Group: crd.Spec.Group, Kind: names.Kind, ListKind: names.ListKind,
		Schemas: schemas, Converter: converter,
	})
	served := &servedCRD{
		group:    crd.Spec.Group,
		storages: map[string]*customresource.Storage{},
		handlers: map[string]*endpoints.GroupVersionHandler{},
		openAPI:  map[string][]openapi.Resource{},
		warnings: map[string]string{},
	}
	served.crd.Store(crd)
	// One type converter knows every version, for the field managers of
	// them all.
	typeConverter := crdopenapi.TypeConverter(crd, h.cfg.Logger)
	for _, v := range crd.Spec.Versions {
		if !v.Served {
			continue
		}
		gv := schema.GroupVersion{Group: crd.Spec.Group, Version: v.Name}
		cfg := customresource.Config{
			Resource:         schema.GroupResource{Group: crd.Spec.Group, Resource: crd.Spec.Names.Plural},
			Singular:         names.Singular,
			Kind:             gv.WithKind(names.Kind),
			ListKind:         names.ListKind,
			StorageVersion:   storageVersion,
			Namespaced:       crd.Spec.Scope == apiextensionsv1.NamespaceScoped,
			ShortNames:       names.ShortNames,
			Categories:       names.Categories,
			Validator:        validators[v.Name],
			Columns:          v.AdditionalPrinterColumns,
			SelectableFields: v.SelectableFields,
		}
		if v.Subresources != nil {
			cfg.Status = v.Subresources.Status != nil
			cfg.Scale = v.Subresources.Scale
		}
		opts := h.cfg.RESTOptions
		opts.StorageFactory = codecStorage{backend: h.cfg.Storage, codec: codecs.StorageCodec(v.Name, storageVersion)}
		st, err := customresource.NewStorage(opts, cfg)
		if err != nil {
			served.destroy()
			return nil, fmt.Errorf("version %s: %w", v.Name, err)
		}
		served.storages[v.Name] = st
		agv := &endpoints.APIGroupVersion{
			GroupVersion:     gv,
			Storage:          st.Map(),
			Scheme:           scheme.Scheme,
			Serializer:       codecs.Serializer(),
			StrictSerializer: codecs.StrictSerializer(),
			ParameterCodec:   scheme.ParameterCodec,
			Serving:          h.cfg.Serving,
			Logger:           h.cfg.Logger,
			Typer:            codecs,
			Creater:          codecs,
			Convertor:        codecs,
			Defaulter:        codecs,
			VerbOrder:        crVerbOrder,
			TypeConverter:    typeConverter,
			RouteByVerb:      true,
		}
		gvh, err := agv.Install()
		if err != nil {
			served.destroy()
			return nil, fmt.Errorf("version %s: %w", v.Name, err)
		}
		served.handlers[v.Name] = gvh
		served.openAPI[v.Name] = h.openAPIResources(crd, v.Name)
		if w := deprecationWarning(crd, v); w != "" {
			served.warnings[v.Name] = w
		}
	}
	return served, nil
}

// publishLocked recomputes the routes, discovery and OpenAPI documents of
// the affected group versions, from the CRDs of their groups only: with
// many CRDs installed, a change of one must not look at all the others.
func (h *crdHandler) publishLocked(affected map[schema.GroupVersion]bool) {
	for gv := range affected {
		routes := crdRoutes{}
		for _, served := range h.byGroup[gv.Group] {
			if _, ok := served.handlers[gv.Version]; ok && served.isServed() {
				routes[served.crd.Load().Spec.Names.Plural] = served
			}
		}
		wasServed := h.routesOf(gv) != nil
		if len(routes) == 0 {
			h.routes.Delete(gv)
			if wasServed {
				h.setGroupVersion(gv, nil)
			}
			h.discovery.Remove(gv)
			h.setOpenAPI(gv, nil)
			continue
		}
		h.routes.Store(gv, routes)
		if !wasServed {
			h.setGroupVersion(gv, groupVersionDispatcher{h: h, gv: gv})
		}
		var resources []metav1.APIResource
		var docs []openapi.Resource
		for _, plural := range slices.Sorted(maps.Keys(routes)) {
			crd := routes[plural]
			resources = append(resources, crd.handlers[gv.Version].Discovery()...)
			docs = append(docs, crd.openAPI[gv.Version]...)
		}
		h.discovery.Set(discovery.GroupVersion{GroupVersion: gv, Resources: resources, GroupPriority: crdGroupPriority})
		h.setOpenAPI(gv, docs)
	}
}

// setOpenAPI publishes (or, with no resources, removes) a group version's
// OpenAPI description.
func (h *crdHandler) setOpenAPI(gv schema.GroupVersion, docs []openapi.Resource) {
	if h.cfg.OpenAPI == nil {
		return
	}
	var err error
	if len(docs) == 0 {
		err = h.cfg.OpenAPI.Remove(gv)
	} else {
		err = h.cfg.OpenAPI.Set(gv, docs)
	}
	if err != nil {
		h.cfg.Logger.Error("cannot update OpenAPI", "groupVersion", gv, "err", err)
	}
}

// openAPIResources describes a served version of a CRD for OpenAPI, with
// the schema the CRD gives.
func (h *crdHandler) openAPIResources(crd *apiextensionsv1.CustomResourceDefinition, version string) []openapi.Resource {
	r, err := crdopenapi.Resource(crd, version)
	if err != nil {
		h.cfg.Logger.Error("cannot describe custom resources in OpenAPI", "crd", crd.Name, "version", version, "err", err)
		return nil
	}
	return []openapi.Resource{r}
}

// groupVersionDispatcher serves one group version of custom resources by
// finding the CRD of the requested resource.
type groupVersionDispatcher struct {
	h  *crdHandler
	gv schema.GroupVersion
}

func (d groupVersionDispatcher) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	info, ok := request.RequestInfoFrom(r.Context())
	if !ok {
		responsewriters.WriteErrorStatus(w, r, apierrors.NewInternalError(fmt.Errorf("no request info")))
		return
	}
	served := d.h.routesOf(d.gv)[info.Resource]
	if served == nil {
		// kube-apiserver passes a resource no CRD defines to the end of
		// the chain: the plain-text 404.
		http.NotFound(w, r)
		return
	}
	// Every answer for a deprecated version says so, its errors too.
	if w := served.warnings[d.gv.Version]; w != "" {
		warning.AddWarning(r.Context(), w)
	}
	crd := served.crd.Load()
	if info.Verb == "create" && apiextensions.IsConditionTrue(crd, apiextensionsv1.Terminating) {
		err := apierrors.NewMethodNotSupported(schema.GroupResource{Group: d.gv.Group, Resource: info.Resource}, info.Verb)
		err.ErrStatus.Message = fmt.Sprintf("%v not allowed while custom resource definition is terminating", info.Verb)
		handlers.WriteError(w, r, scheme.Codecs, err)
		return
	}
	served.handlers[d.gv.Version].ServeHTTP(w, r)
}

// codecStorage makes the storage of a custom resource version with its
// own codec.
type codecStorage struct {
	backend CodecStorageFactory
	codec   runtime.Codec
}

func (c codecStorage) NewStorage(resource schema.GroupResource, _ schema.GroupVersion, _ string, newFunc, newListFunc func() runtime.Object) (storage.Interface, error) {
	return c.backend.NewStorageWithCodec(resource, c.codec, newFunc, newListFunc), nil
}

var _ generic.StorageFactory = codecStorage{}
