// Package endpoints turns the REST storage of an API group version into
// HTTP handlers and discovery entries. Routing is by the parsed
// RequestInfo: group version, then resource (and subresource), then verb.
package endpoints

import (
	"fmt"
	"log/slog"
	"net/http"
	"sort"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/util/managedfields"

	"github.com/kapi-dev/kapi/pkg/admission"
	"github.com/kapi-dev/kapi/pkg/endpoints/discovery"
	"github.com/kapi-dev/kapi/pkg/endpoints/fieldmanager"
	"github.com/kapi-dev/kapi/pkg/endpoints/handlers"
	"github.com/kapi-dev/kapi/pkg/endpoints/request"
	"github.com/kapi-dev/kapi/pkg/endpoints/responsewriters"
	"github.com/kapi-dev/kapi/pkg/endpoints/warning"
	"github.com/kapi-dev/kapi/pkg/openapi"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

// Serving is how every group version of the delegation chain is served,
// whichever server installs it: through the one admission chain, with
// the same request limits. It is built once and handed to each server.
type Serving struct {
	Admission admission.Interface
	// EquivalentResources, if set, learns the kind each resource serves,
	// for the admission webhooks and policies of matchPolicy Equivalent.
	EquivalentResources *admission.EquivalentResourceRegistry
	// MinRequestTimeout is --min-request-timeout: watches last between
	// it and twice it, unless they ask for less.
	MinRequestTimeout time.Duration
	// MaxRequestBodyBytes is --max-resource-write-bytes.
	MaxRequestBodyBytes int64
}

// APIGroupVersion is the REST storage of one group version and what its
// handlers need.
type APIGroupVersion struct {
	GroupVersion schema.GroupVersion
	// Storage maps "resource" and "resource/subresource" to storage.
	Storage map[string]rest.Storage

	Scheme           *runtime.Scheme
	Serializer       runtime.NegotiatedSerializer
	StrictSerializer runtime.NegotiatedSerializer
	ParameterCodec   runtime.ParameterCodec

	Serving

	// Typer, Creater, Convertor and Defaulter replace the scheme for
	// objects it does not know (custom resources). Nil means Scheme.
	Typer     runtime.ObjectTyper
	Creater   runtime.ObjectCreater
	Convertor runtime.ObjectConvertor
	Defaulter runtime.ObjectDefaulter
	// VerbOrder, if set, is the order of the verbs in discovery; they are
	// sorted otherwise.
	VerbOrder []string
	// RouteByVerb routes requests as kube-apiserver's custom resource
	// handler does rather than as its built-in routes: by the verb the
	// RequestInfo derives from the path and method, whatever the method
	// (see serveByVerb).
	RouteByVerb bool

	// TypeConverter knows the structure of the served kinds, for the
	// field managers that record managedFields and merge server-side
	// apply patches. Nil means that of the Go types of Scheme (see
	// fieldmanager.SchemeTypeConverter), unless Typer is set: kinds
	// without Go type (custom resources) need theirs given.
	TypeConverter managedfields.TypeConverter
	// Logger receives what the group version's machinery logs (a type
	// converter that cannot be built); nil discards it.
	Logger *slog.Logger
}

// typeConverter is the group version's type converter, or nil when its
// writes are not tracked.
func (g *APIGroupVersion) typeConverter() managedfields.TypeConverter {
	if g.TypeConverter != nil {
		return g.TypeConverter
	}
	if g.Typer == nil && g.Scheme != nil {
		return fieldmanager.SchemeTypeConverter(g.Scheme, g.Logger)
	}
	return nil
}

func (g *APIGroupVersion) typer() runtime.ObjectTyper {
	if g.Typer != nil {
		return g.Typer
	}
	return g.Scheme
}

// verbHandlers are the handlers of one resource or subresource path.
type verbHandlers struct {
	namespaced bool
	byVerb     map[string]http.Handler
	// connect, if set, serves every request of the path (exec, proxy):
	// its methods decide the route, and the path may go on after the
	// subresource when the connecter takes a subpath.
	connect *connectRoute
}

// connectRoute is the route of a rest.Connecter.
type connectRoute struct {
	methods methodSet
	subpath bool
	handler http.Handler
}

// GroupVersionHandler serves the resources of one group version.
type GroupVersionHandler struct {
	gv          schema.GroupVersion
	routeByVerb bool
	resources   map[string]*verbHandlers
	discovery   []metav1.APIResource
	openapi     []openapi.Resource
}

// Install builds the handlers and discovery entries of a group version.
func (g *APIGroupVersion) Install() (*GroupVersionHandler, error) {
	h := &GroupVersionHandler{gv: g.GroupVersion, routeByVerb: g.RouteByVerb, resources: map[string]*verbHandlers{}}
	paths := make([]string, 0, len(g.Storage))
	for p := range g.Storage {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, path := range paths {
		vh, res, err := g.installResource(path, g.Storage[path])
		if err != nil {
			return nil, fmt.Errorf("installing %s/%s: %w", g.GroupVersion, path, err)
		}
		h.resources[path] = vh
		h.discovery = append(h.discovery, res)
	}
	h.openapi = g.openAPIResources(h.discovery)
	return h, nil
}

// Discovery returns the group version's discovery entries.
func (h *GroupVersionHandler) Discovery() []metav1.APIResource { return h.discovery }

// OpenAPI returns the group version's resources as the OpenAPI documents
// describe them.
func (h *GroupVersionHandler) OpenAPI() []openapi.Resource { return h.openapi }

// openAPIResources describes the installed resources for OpenAPI, from
// the same facts discovery publishes.
func (g *APIGroupVersion) openAPIResources(entries []metav1.APIResource) []openapi.Resource {
	var out []openapi.Resource
	index := map[string]int{}
	for _, e := range entries {
		kind := g.GroupVersion.WithKind(e.Kind)
		if e.Group != "" || e.Version != "" {
			kind = schema.GroupVersionKind{Group: e.Group, Version: e.Version, Kind: e.Kind}
		}
		parent, sub, isSub := strings.Cut(e.Name, "/")
		if isSub {
			if i, ok := index[parent]; ok {
				out[i].Subresources = append(out[i].Subresources, g.openAPISubresource(sub, kind, e.Verbs, g.Storage[e.Name]))
			}
			continue
		}
		r := openapi.Resource{GVK: kind, Resource: e.Name, Namespaced: e.Namespaced, Verbs: e.Verbs}
		if list := kind.GroupVersion().WithKind(kind.Kind + "List"); g.typer().Recognizes(list) {
			r.ListGVK = list
		}
		if d, ok := g.Storage[e.Name].(rest.DeletedObjectReturner); ok {
			r.DeleteReturnsObject = d.ReturnsDeletedObject()
		}
		index[e.Name] = len(out)
		out = append(out, r)
	}
	return out
}

// openAPISubresource describes a subresource as the installer serves it: a
// connecter by its methods and options (pods/exec), a getter with options
// by the kind of its options and what it produces (pods/log).
func (g *APIGroupVersion) openAPISubresource(name string, kind schema.GroupVersionKind, verbs []string, storage rest.Storage) openapi.Subresource {
	sub := openapi.Subresource{Name: name, GVK: kind, Verbs: verbs}
	if c, ok := storage.(rest.Connecter); ok {
		sub.Verbs = nil
		sub.ConnectMethods = c.ConnectMethods()
		_, sub.ConnectSubpath, _ = c.NewConnectOptions()
		return sub
	}
	if o, ok := storage.(rest.GetterWithOptions); ok {
		opts, _, _ := o.NewGetOptions()
		if kinds, _, err := g.typer().ObjectKinds(opts); err == nil {
			sub.GetOptions = g.GroupVersion.WithKind(kinds[0].Kind)
		}
	}
	if p, ok := storage.(rest.MIMETypesProducer); ok {
		sub.Produces = p.ProducesMIMETypes()
	}
	return sub
}

func (g *APIGroupVersion) installResource(path string, storage rest.Storage) (*verbHandlers, metav1.APIResource, error) {
	resource, subresource, _ := strings.Cut(path, "/")
	hubGVKs, _, err := g.typer().ObjectKinds(storage.New())
	if err != nil {
		return nil, metav1.APIResource{}, err
	}
	hub := hubGVKs[0]
	kind := g.GroupVersion.WithKind(hub.Kind)
	hubGV := hub.GroupVersion()
	if p, ok := storage.(rest.GroupVersionKindProvider); ok {
		kind = p.GroupVersionKind(g.GroupVersion)
		hubGV = kind.GroupVersion()
	}
	namespaced := false
	if s, ok := storage.(rest.Scoper); ok {
		namespaced = s.NamespaceScoped()
	}
	var tables rest.TableConvertor
	if t, ok := storage.(rest.TableConvertor); ok {
		tables = t
	}
	scope := &handlers.RequestScope{
		Serializer:          g.Serializer,
		StrictSerializer:    g.StrictSerializer,
		ParameterCodec:      g.ParameterCodec,
		Creater:             orDefault[runtime.ObjectCreater](g.Creater, g.Scheme),
		Convertor:           orDefault[runtime.ObjectConvertor](g.Convertor, g.Scheme),
		Defaulter:           orDefault[runtime.ObjectDefaulter](g.Defaulter, g.Scheme),
		Typer:               g.typer(),
		Resource:            g.GroupVersion.WithResource(resource),
		Kind:                kind,
		HubGroupVersion:     hubGV,
		Subresource:         subresource,
		Namespaced:          namespaced,
		TableConvertor:      tables,
		Admission:           g.Admission,
		MaxRequestBodyBytes: g.MaxRequestBodyBytes,
		TypeConverter:       g.typeConverter(),
	}
	g.EquivalentResources.RegisterKindFor(scope.Resource, subresource, kind)
	if p, ok := storage.(rest.StorageKeyPrefixer); ok && subresource == "" {
		g.EquivalentResources.RegisterStorage(scope.Resource.GroupResource(), p.StorageKeyPrefix())
	}
	if scope.FieldManager, err = g.fieldManager(storage, scope); err != nil {
		return nil, metav1.APIResource{}, err
	}

	vh := &verbHandlers{namespaced: namespaced, byVerb: map[string]http.Handler{}}
	getter, isGetter := storage.(rest.Getter)
	lister, isLister := storage.(rest.Lister)
	watcher, isWatcher := storage.(rest.Watcher)
	if isGetter {
		vh.byVerb["get"] = handlers.GetResource(getter, scope)
	}
	if isLister {
		var w rest.Watcher
		if isWatcher {
			w = watcher
		}
		// One handler serves both verbs: the RequestInfo says which.
		list := handlers.ListResource(lister, w, scope, g.MinRequestTimeout)
		vh.byVerb["list"] = list
		if isWatcher {
			vh.byVerb["watch"] = list
		}
	}
	if c, ok := storage.(rest.Creater); ok {
		vh.byVerb["create"] = handlers.CreateResource(c, scope)
	}
	if u, ok := storage.(rest.Updater); ok {
		vh.byVerb["update"] = handlers.UpdateResource(u, scope)
		if p, ok := storage.(rest.Patcher); ok {
			// Strategic merge needs the Go type's patch strategies.
			_, unstructured := storage.New().(runtime.Unstructured)
			vh.byVerb["patch"] = handlers.PatchResource(p, scope, !unstructured)
		}
	}
	if d, ok := storage.(rest.GracefulDeleter); ok {
		vh.byVerb["delete"] = handlers.DeleteResource(d, scope)
	}
	if g, ok := storage.(rest.GetterWithOptions); ok {
		vh.byVerb["get"] = handlers.GetResourceWithOptions(g, scope)
	}
	if c, ok := storage.(rest.Connecter); ok {
		route := &connectRoute{handler: handlers.ConnectResource(c, scope)}
		_, route.subpath, _ = c.NewConnectOptions()
		for _, m := range c.ConnectMethods() {
			route.methods |= methodBit[m]
			// The verbs discovery lists are those the methods are
			// authorized as; HEAD and OPTIONS add none.
			if verb := connectVerbs[m]; verb != "" {
				vh.byVerb[verb] = route.handler
			}
		}
		vh.connect = route
	}
	if d, ok := storage.(rest.CollectionDeleter); ok {
		vh.byVerb["deletecollection"] = handlers.DeleteCollection(d, scope)
	}

	if d, ok := storage.(rest.Deprecated); ok && d.DeprecationWarning() != "" {
		for verb, h := range vh.byVerb {
			vh.byVerb[verb] = withWarning(h, d.DeprecationWarning())
		}
	}

	res := metav1.APIResource{Name: path, Namespaced: namespaced, Kind: kind.Kind}
	if kind.GroupVersion() != g.GroupVersion {
		res.Group, res.Version = kind.Group, kind.Version
	}
	for verb := range vh.byVerb {
		res.Verbs = append(res.Verbs, verb)
	}
	sortVerbs(res.Verbs, g.VerbOrder)
	if subresource == "" {
		if p, ok := storage.(rest.SingularNameProvider); ok {
			res.SingularName = p.GetSingularName()
		}
		if res.SingularName == "" {
			res.SingularName = strings.ToLower(kind.Kind)
		}
		if p, ok := storage.(rest.ShortNamesProvider); ok {
			res.ShortNames = p.ShortNames()
		}
		if p, ok := storage.(rest.CategoriesProvider); ok {
			res.Categories = p.Categories()
		}
		if isGetter || isLister {
			storageKind := hub
			if p, ok := storage.(rest.StorageKindProvider); ok {
				storageKind = p.StorageKind()
			}
			// An empty kind is a resource that is not stored
			// (componentstatuses): discovery gives it no hash.
			if !storageKind.Empty() {
				res.StorageVersionHash = discovery.StorageVersionHash(storageKind)
			}
		}
	}
	return vh, res, nil
}

// fieldManager returns the field manager of an endpoint that writes, or
// nil. It ignores the fields the storage resets (the status of the
// resource, the spec on /status).
func (g *APIGroupVersion) fieldManager(storage rest.Storage, scope *handlers.RequestScope) (*managedfields.FieldManager, error) {
	tc := g.typeConverter()
	_, creates := storage.(rest.Creater)
	_, updates := storage.(rest.Updater)
	if tc == nil || !creates && !updates {
		return nil, nil
	}
	cfg := fieldmanager.Config{
		TypeConverter: tc,
		Convertor:     scope.Convertor,
		Defaulter:     scope.Defaulter,
		Creater:       scope.Creater,
		Typer:         scope.Typer,
		Kind:          scope.Kind,
		Hub:           scope.HubGroupVersion,
		Subresource:   scope.Subresource,
	}
	if p, ok := storage.(rest.ResetFieldsProvider); ok {
		cfg.ResetFields = p.GetResetFields()
	}
	return fieldmanager.New(cfg)
}

// orDefault is v unless it is nil.
func orDefault[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// sortVerbs orders verbs by order, unknown ones last, or alphabetically
// without an order.
func sortVerbs(verbs, order []string) {
	if len(order) == 0 {
		sort.Strings(verbs)
		return
	}
	rank := func(v string) int {
		for i, o := range order {
			if o == v {
				return i
			}
		}
		return len(order)
	}
	sort.SliceStable(verbs, func(i, j int) bool { return rank(verbs[i]) < rank(verbs[j]) })
}

// ServeHTTP serves a resource request of the group version. It answers
// as kube-apiserver's routes do: a path no route has (an unknown
// resource, a name where the resource takes none, a namespaced object
// addressed outside any namespace, segments after the subresource) is a
// 404 NotFound, and a method the path's route does not take (PUT on a
// collection, POST on an object, HEAD anywhere) a 405 MethodNotAllowed.
func (h *GroupVersionHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	info, ok := request.RequestInfoFrom(r.Context())
	if !ok {
		responsewriters.WriteErrorStatus(w, r, apierrors.NewInternalError(fmt.Errorf("no request info")))
		return
	}
	if h.routeByVerb {
		h.serveByVerb(w, r, info)
		return
	}
	path := info.Resource
	if info.Subresource != "" {
		path += "/" + info.Subresource
	}
	vh, ok := h.resources[path]
	if !ok {
		NotFound(w, r)
		return
	}
	if vh.connect != nil {
		vh.serveConnect(w, r, info)
		return
	}
	methods := vh.routeMethods(info)
	switch {
	case methods == 0:
		NotFound(w, r)
		return
	case !methods.has(r.Method):
		MethodNotAllowed(w, r)
		return
	}
	handler, ok := vh.byVerb[info.Verb]
	if !ok {
		// The route takes the method but not as this verb: a GET of a
		// collection with ?watch=true on a resource that cannot watch.
		MethodNotAllowed(w, r)
		return
	}
	handler.ServeHTTP(w, r)
}

// serveByVerb serves a request as kube-apiserver's custom resource handler
// does. A resource the group version does not have, a namespaced object
// addressed outside a namespace (other than by list or watch) or a
// cluster-scoped one inside a namespace is passed on to the end of the
// chain: the plain-text 404. An unknown subresource is a NotFound of the
// object. Then the verb decides, whatever the method: HEAD gets, POST on
// an object path creates, any method on a /watch/ path watches; a verb
// the resource does not have is a 405 naming it, and an update or patch
// without a name a 400.
func (h *GroupVersionHandler) serveByVerb(w http.ResponseWriter, r *http.Request, info *request.RequestInfo) {
	vh, ok := h.resources[info.Resource]
	if !ok {
		http.NotFound(w, r)
		return
	}
	inNamespace := info.Namespace != ""
	acrossNamespaces := info.Verb == "list" || info.Verb == "watch"
	if !vh.namespaced && inNamespace || vh.namespaced && !inNamespace && !acrossNamespaces {
		http.NotFound(w, r)
		return
	}
	gr := schema.GroupResource{Group: h.gv.Group, Resource: info.Resource}
	if info.Subresource != "" {
		if vh, ok = h.resources[info.Resource+"/"+info.Subresource]; !ok {
			handlers.WriteError(w, r, statusCodecs, apierrors.NewNotFound(gr, info.Name))
			return
		}
	}
	handler, ok := vh.byVerb[info.Verb]
	switch {
	case !ok:
		handlers.WriteError(w, r, statusCodecs, apierrors.NewMethodNotSupported(gr, info.Verb))
	case info.Name == "" && (info.Verb == "update" || info.Verb == "patch"):
		handlers.WriteError(w, r, statusCodecs, apierrors.NewBadRequest("name must be provided"))
	default:
		handler.ServeHTTP(w, r)
	}
}

// routeMethods returns the HTTP methods of the route that a request's
// path matches, as kube-apiserver registers routes from a resource's
// verbs; none means no route has this path. The routes are:
//
//	collection in a namespace, or of a cluster-scoped resource: GET (list, watch), POST, DELETE (deletecollection)
//	collection across namespaces:                               GET (list, watch)
//	object, or an object's subresource:                         GET, PUT, PATCH, DELETE (and POST for subresources that create, pods/binding)
//	legacy /watch/ paths, of a collection or an object:         GET
//
// Namespaced objects are addressed inside a namespace only, cluster-scoped
// resources outside any. The namespaces resource is cluster-scoped: its
// name is the path's namespace.
func (vh *verbHandlers) routeMethods(info *request.RequestInfo) methodSet {
	has := func(verb string) bool { _, ok := vh.byVerb[verb]; return ok }
	namespaced, inNamespace := vh.namespaced, info.Namespace != ""
	if info.APIGroup == "" && info.Resource == "namespaces" {
		namespaced, inNamespace = false, false
	}
	if !namespaced && inNamespace {
		return 0
	}
	var methods methodSet
	add := func(method string, ok bool) {
		if ok {
			methods |= methodBit[method]
		}
	}
	named := len(info.Parts) >= 2
	switch {
	case len(info.Parts) > 3, info.Verb == "proxy":
		// Nothing comes after a subresource; the legacy proxy paths are
		// gone from kube-apiserver.
	case named && namespaced && !inNamespace:
		// A namespaced object outside any namespace.
	case info.Verb == "watch" && legacyWatchPath(info):
		add(http.MethodGet, len(info.Parts) <= 2 && has("watch"))
	case !named:
		add(http.MethodGet, has("list"))
		add(http.MethodPost, has("create") && (inNamespace || !namespaced))
		add(http.MethodDelete, has("deletecollection") && (inNamespace || !namespaced))
	default:
		add(http.MethodGet, has("get"))
		add(http.MethodPut, has("update"))
		add(http.MethodPatch, has("patch"))
		add(http.MethodDelete, has("delete"))
		add(http.MethodPost, info.Subresource != "" && has("create"))
	}
	return methods
}

// serveConnect routes a request of a connecter's path, as kube-apiserver
// registers a connecter: one route for the object's subresource (and one
// for any path after it, when the connecter takes a subpath), taking the
// connecter's methods.
func (vh *verbHandlers) serveConnect(w http.ResponseWriter, r *http.Request, info *request.RequestInfo) {
	inNamespace := info.Namespace != ""
	switch {
	case info.Verb == "proxy", len(info.Parts) < 3, vh.namespaced != inNamespace,
		len(info.Parts) > 3 && !vh.connect.subpath:
		NotFound(w, r)
	case !vh.connect.methods.has(r.Method):
		MethodNotAllowed(w, r)
	default:
		vh.connect.handler.ServeHTTP(w, r)
	}
}

// connectVerbs are the verbs a connecter's methods are authorized as.
var (
	connectVerbs = map[string]string{
		http.MethodGet: "get", http.MethodPost: "create", http.MethodPut: "update",
		http.MethodPatch: "patch", http.MethodDelete: "delete",
	}
)

// methodSet is a set of the HTTP methods routes take, one bit each: it is
// computed for every request, and costs no allocation.
type methodSet uint8

var methodBit = map[string]methodSet{
	http.MethodGet:    1 << 0,
	http.MethodPost:   1 << 1,
	http.MethodPut:    1 << 2,
	http.MethodPatch:  1 << 3,
	http.MethodDelete: 1 << 4,
	// Only connecters (the proxies) take these.
	http.MethodHead:    1 << 5,
	http.MethodOptions: 1 << 6,
}

// has reports whether the set holds method; no set holds a method routes
// never take (HEAD, OPTIONS, unknown ones).
func (s methodSet) has(method string) bool { return s&methodBit[method] != 0 }

// legacyWatchPath reports whether a watch request's path has the legacy
// watch segment after its version (/api/v1/watch/..., /apis/<group>/
// <version>/watch/...), rather than a ?watch parameter: the two are
// different routes, the first taking GET only.
func legacyWatchPath(info *request.RequestInfo) bool {
	segments := strings.Split(strings.Trim(info.Path, "/"), "/")
	i := 2 // api, <version>
	if info.APIPrefix != "api" {
		i = 3 // apis, <group>, <version>
	}
	return len(segments) > i && segments[i] == "watch"
}

// statusCodecs encode the Status of a routing error in whatever the
// client accepts (JSON, YAML, protobuf), as kube-apiserver negotiates it.
// They know the meta types only, and are never changed after start.
var statusCodecs = func() serializer.CodecFactory {
	scheme := runtime.NewScheme()
	metav1.AddToGroupVersion(scheme, schema.GroupVersion{Version: "v1"})
	return serializer.NewCodecFactory(scheme)
}()

// NotFound is kube-apiserver's 404 for a path under an API it serves
// (/api, /apis/<group>) that no route matches.
func NotFound(w http.ResponseWriter, r *http.Request) {
	handlers.WriteError(w, r, statusCodecs, &apierrors.StatusError{ErrStatus: metav1.Status{
		Status:  metav1.StatusFailure,
		Message: "the server could not find the requested resource",
		Reason:  metav1.StatusReasonNotFound,
		Details: &metav1.StatusDetails{},
		Code:    http.StatusNotFound,
	}})
}

// MethodNotAllowed is kube-apiserver's 405 for a method the route of a
// path does not take.
func MethodNotAllowed(w http.ResponseWriter, r *http.Request) {
	handlers.WriteError(w, r, statusCodecs, &apierrors.StatusError{ErrStatus: metav1.Status{
		Status:  metav1.StatusFailure,
		Message: "the server does not allow this method on the requested resource",
		Reason:  metav1.StatusReasonMethodNotAllowed,
		Details: &metav1.StatusDetails{},
		Code:    http.StatusMethodNotAllowed,
	}})
}

// withWarning adds a warning to every response of h.
func withWarning(h http.Handler, text string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		warning.AddWarning(r.Context(), text)
		h.ServeHTTP(w, r)
	})
}
