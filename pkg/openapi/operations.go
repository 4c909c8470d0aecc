package openapi

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"
	"unicode"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/version"
)

// operation is one HTTP method on one path: what both the v2 and the v3
// documents say about it. Operations follow kube-apiserver's installer: the
// same paths, operation ids, descriptions, parameters and responses, so
// that generated clients and kubectl see the same API.
type operation struct {
	method      string
	path        string
	id          string
	tag         string
	description string
	// action and gvk are the x-kubernetes-action and
	// x-kubernetes-group-version-kind extensions; empty for discovery.
	action string
	gvk    *schema.GroupVersionKind

	params       []parameter
	body         model // the request body; zero for none
	bodyRequired bool
	consumes     []string
	produces     []string
	responses    []response
}

// parameter is a path or query parameter. The body is not one (see
// operation.body).
type parameter struct {
	name        string
	in          string // "path" or "query"
	description string
	typ         string // string, integer, number or boolean
	required    bool
}

type response struct {
	code        int
	description string
	// body is the model of the response; zero for a string.
	body model
}

// The media types of kube-apiserver's serializers, in its order.
var (
	mediaTypes       = []string{"application/json", "application/yaml", "application/vnd.kubernetes.protobuf"}
	streamMediaTypes = []string{"application/json;stream=watch", "application/vnd.kubernetes.protobuf;stream=watch"}
	allMediaTypes    = append(append([]string(nil), mediaTypes...), streamMediaTypes...)
	patchMediaTypes  = []string{"application/json-patch+json", "application/merge-patch+json", "application/strategic-merge-patch+json", "application/apply-patch+yaml"}
	anyMediaType     = []string{"*/*"}
)

// The options types whose fields are query parameters.
var (
	getOptionsType    = reflect.TypeFor[metav1.GetOptions]()
	listOptionsType   = reflect.TypeFor[metav1.ListOptions]()
	createOptionsType = reflect.TypeFor[metav1.CreateOptions]()
	updateOptionsType = reflect.TypeFor[metav1.UpdateOptions]()
	patchOptionsType  = reflect.TypeFor[metav1.PatchOptions]()
	deleteOptionsType = reflect.TypeFor[metav1.DeleteOptions]()
)

// The models of the requests and responses that are not a resource's own.
var (
	deleteOptionsModel = goModel(deleteOptionsType)
	statusModel        = goModel(reflect.TypeFor[metav1.Status]())
	watchEventModel    = goModel(reflect.TypeFor[metav1.WatchEvent]())
	patchModel         = goModel(reflect.TypeFor[metav1.Patch]())
	apiResourceList    = goModel(reflect.TypeFor[metav1.APIResourceList]())
	apiVersionsModel   = goModel(reflect.TypeFor[metav1.APIVersions]())
	apiGroupListModel  = goModel(reflect.TypeFor[metav1.APIGroupList]())
	apiGroupModel      = goModel(reflect.TypeFor[metav1.APIGroup]())
	versionInfoModel   = goModel(reflect.TypeFor[version.Info]())
)

// What many operations have in common.
var (
	unauthorized   = response{code: 401, description: "Unauthorized"}
	prettyParam    = parameter{name: "pretty", in: "query", typ: "string", description: "If 'true', then the output is pretty printed. Defaults to 'false' unless the user-agent indicates a browser or command-line HTTP tool (curl and wget)."}
	namespaceParam = parameter{name: "namespace", in: "path", typ: "string", required: true, description: "object name and auth scope, such as for teams and projects"}
	subpathParam   = parameter{name: "path", in: "path", typ: "string", required: true, description: "path to the resource"}
	// deleteCollectionIgnores are the list options a delete collection does not
	// take.
	deleteCollectionIgnores = []string{"watch", "allowWatchBookmarks"}
)

// typeResolver returns the Go type of a kind.
type typeResolver func(schema.GroupVersionKind) (reflect.Type, error)

// gvNaming is how operation ids and tags name a group version: CoreV1 and
// core_v1, RbacAuthorizationV1 and rbacAuthorization_v1.
type gvNaming struct {
	prefix string // the path prefix: /api/v1 or /apis/<group>/<version>
	id     string
	tag    string
}

func namingFor(gv schema.GroupVersion) gvNaming {
	group := groupName(gv.Group)
	n := gvNaming{
		prefix: "/apis/" + gv.Group + "/" + gv.Version,
		id:     identifier(group, true) + identifier(gv.Version, true),
		tag:    identifier(group, false) + "_" + identifier(gv.Version, false),
	}
	if gv.Group == "" {
		n.prefix = "/api/" + gv.Version
	}
	return n
}

// groupName is the name of a group in identifiers: "core" for the legacy
// group, without the .k8s.io suffix of the built-in groups.
func groupName(group string) string {
	if group == "" {
		return "core"
	}
	return strings.TrimSuffix(group, ".k8s.io")
}

// identifier camel-cases s: characters other than letters and digits are
// dropped and start a new word ("flowcontrol.apiserver" becomes
// "flowcontrolApiserver"). A leading digit is dropped too.
func identifier(s string, capitalizeFirst bool) string {
	var b strings.Builder
	upper := capitalizeFirst
	for i, r := range s {
		if unicode.IsLetter(r) || r == '_' || (i > 0 && unicode.IsDigit(r)) {
			if upper {
				r = unicode.ToUpper(r)
			}
			b.WriteRune(r)
			upper = false
			continue
		}
		upper = true
	}
	return b.String()
}

// title upper-cases the first letter: "ephemeralcontainers" becomes
// "Ephemeralcontainers" in operation ids.
func title(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// article is the article kube-apiserver puts before a kind in descriptions:
// "a Pod", "an Eviction", and none before a plural such as "Endpoints".
func article(kind string) string {
	if strings.HasSuffix(kind, "s") && !strings.HasSuffix(kind, "ss") {
		return " "
	}
	if strings.ContainsRune("aeiouAEIOU", rune(kind[0])) {
		return " an "
	}
	return " a "
}

// groupVersionOperations returns the operations of one group version: its
// resource list and every operation on its resources. A group version of
// custom resources has no resource list: kube-apiserver describes only
// the resources of CustomResourceDefinitions.
func groupVersionOperations(gv schema.GroupVersion, resources []Resource, types typeResolver) ([]operation, error) {
	n := namingFor(gv)
	if custom, err := customResources(resources); err != nil {
		return nil, err
	} else if custom {
		var ops []operation
		for i := range resources {
			rops, err := customResourceOperations(n, &resources[i], types)
			if err != nil {
				return nil, err
			}
			ops = append(ops, rops...)
		}
		return ops, nil
	}
	ops := []operation{{
		method:      "GET",
		path:        n.prefix + "/",
		id:          "get" + n.id + "APIResources",
		tag:         n.tag,
		description: "get available resources",
		consumes:    mediaTypes,
		produces:    mediaTypes,
		responses:   []response{{code: 200, description: "OK", body: apiResourceList}, unauthorized},
	}}
	for i := range resources {
		rops, err := resourceOperations(n, &resources[i], types)
		if err != nil {
			return nil, err
		}
		ops = append(ops, rops...)
	}
	return ops, nil
}

// customResources tells whether resources, all of one group version, are
// custom resources. They must all be, or none.
func customResources(resources []Resource) (bool, error) {
	custom := 0
	for i := range resources {
		if resources[i].Schema != nil {
			custom++
		}
	}
	if custom > 0 && custom < len(resources) {
		return false, fmt.Errorf("a group version serves custom resources and resources with Go types")
	}
	return custom > 0, nil
}

// resourceOperations returns the operations on a resource and its
// subresources, as kube-apiserver's installer registers them.
func resourceOperations(n gvNaming, r *Resource, types typeResolver) ([]operation, error) {
	if err := r.validate(); err != nil {
		return nil, err
	}
	objType, err := types(r.GVK)
	if err != nil {
		return nil, err
	}
	obj, list := goModel(objType), model{}
	if r.has("list") {
		listType, err := types(r.ListGVK)
		if err != nil {
			return nil, err
		}
		list = goModel(listType)
	}

	kind := r.GVK.Kind
	scope := ""
	collection := n.prefix + "/" + r.Resource
	var scopeParams []parameter
	if r.Namespaced {
		scope = "Namespaced"
		collection = n.prefix + "/namespaces/{namespace}/" + r.Resource
		scopeParams = []parameter{namespaceParam}
	}
	item := collection + "/{name}"
	watchPath := func(p string) string { return n.prefix + "/watch" + strings.TrimPrefix(p, n.prefix) }
	nameParam := parameter{name: "name", in: "path", typ: "string", required: true, description: "name of the " + kind}
	itemParams := append(append([]parameter(nil), scopeParams...), nameParam)
	op := func(o operation) operation { return n.resourceOperation(o, r.GVK) }
	ok := func(m model) response { return response{code: 200, description: "OK", body: m} }
	created := func(m model) response { return response{code: 201, description: "Created", body: m} }
	accepted := func(m model) response { return response{code: 202, description: "Accepted", body: m} }

	var ops []operation
	listDescription := "list objects of kind " + kind
	if r.has("watch") {
		listDescription = "list or watch objects of kind " + kind
	}
	if r.has("list") {
		params := withParams(scopeParams, prettyParam, queryParams(listOptionsType))
		ops = append(ops, op(operation{
			method: "GET", path: collection, id: "list" + n.id + scope + kind, description: listDescription,
			action: "list", params: params, produces: allMediaTypes, responses: []response{ok(list)},
		}))
		if r.Namespaced {
			ops = append(ops, op(operation{
				method: "GET", path: n.prefix + "/" + r.Resource, id: "list" + n.id + kind + "ForAllNamespaces", description: listDescription,
				action: "list", params: withParams(nil, prettyParam, queryParams(listOptionsType)), produces: allMediaTypes, responses: []response{ok(list)},
			}))
		}
	}
	if r.has("list") && r.has("watch") {
		const deprecated = ". deprecated: use the 'watch' parameter with a list operation instead."
		ops = append(ops, op(operation{
			method: "GET", path: watchPath(collection), id: "watch" + n.id + scope + kind + "List",
			description: "watch individual changes to a list of " + kind + deprecated,
			action:      "watchlist", params: withParams(scopeParams, prettyParam, queryParams(listOptionsType)),
			produces: allMediaTypes, responses: []response{ok(watchEventModel)},
		}))
		if r.Namespaced {
			ops = append(ops, op(operation{
				method: "GET", path: n.prefix + "/watch/" + r.Resource, id: "watch" + n.id + kind + "ListForAllNamespaces",
				description: "watch individual changes to a list of " + kind + deprecated,
				action:      "watchlist", params: withParams(nil, prettyParam, queryParams(listOptionsType)),
				produces: allMediaTypes, responses: []response{ok(watchEventModel)},
			}))
		}
	}
	if r.has("create") {
		ops = append(ops, op(operation{
			method: "POST", path: collection, id: "create" + n.id + scope + kind, description: "create" + article(kind) + kind,
			action: "post", params: withParams(scopeParams, prettyParam, queryParams(createOptionsType)),
			body: obj, bodyRequired: true, produces: mediaTypes, responses: []response{ok(obj), created(obj), accepted(obj)},
		}))
	}
	if r.has("deletecollection") {
		ops = append(ops, op(operation{
			method: "DELETE", path: collection, id: "delete" + n.id + "Collection" + scope + kind, description: "delete collection of " + kind,
			action: "deletecollection",
			params: withParams(scopeParams, prettyParam, queryParams(deleteOptionsType), queryParams(listOptionsType, deleteCollectionIgnores...)),
			body:   deleteOptionsModel, produces: mediaTypes, responses: []response{ok(statusModel)},
		}))
	}
	if r.has("get") {
		ops = append(ops, op(operation{
			method: "GET", path: item, id: "read" + n.id + scope + kind, description: "read the specified " + kind,
			action: "get", params: withParams(itemParams, prettyParam), produces: mediaTypes, responses: []response{ok(obj)},
		}))
	}
	if r.has("update") {
		ops = append(ops, op(operation{
			method: "PUT", path: item, id: "replace" + n.id + scope + kind, description: "replace the specified " + kind,
			action: "put", params: withParams(itemParams, prettyParam, queryParams(updateOptionsType)),
			body: obj, bodyRequired: true, produces: mediaTypes, responses: []response{ok(obj), created(obj)},
		}))
	}
	if r.has("patch") {
		ops = append(ops, op(operation{
			method: "PATCH", path: item, id: "patch" + n.id + scope + kind, description: "partially update the specified " + kind,
			action: "patch", params: withParams(itemParams, prettyParam, queryParams(patchOptionsType)),
			body: patchModel, bodyRequired: true, consumes: patchMediaTypes, produces: mediaTypes, responses: []response{ok(obj), created(obj)},
		}))
	}
	if r.has("delete") {
		deleted := statusModel
		if r.DeleteReturnsObject {
			deleted = obj
		}
		ops = append(ops, op(operation{
			method: "DELETE", path: item, id: "delete" + n.id + scope + kind, description: "delete" + article(kind) + kind,
			action: "delete", params: withParams(itemParams, prettyParam, queryParams(deleteOptionsType)),
			body: deleteOptionsModel, produces: mediaTypes, responses: []response{ok(deleted), accepted(deleted)},
		}))
	}
	if r.has("watch") {
		ops = append(ops, op(operation{
			method: "GET", path: watchPath(item), id: "watch" + n.id + scope + kind,
			description: "watch changes to an object of kind " + kind + ". deprecated: use the 'watch' parameter with a list operation instead, filtered to a single item with the 'fieldSelector' parameter.",
			action:      "watch", params: withParams(itemParams, prettyParam, queryParams(listOptionsType)),
			produces: allMediaTypes, responses: []response{ok(watchEventModel)},
		}))
	}

	for i := range r.Subresources {
		sub := &r.Subresources[i]
		subOps, err := subresourceOperations(n, r, sub, item, scope, scopeParams, types)
		if err != nil {
			return nil, err
		}
		ops = append(ops, subOps...)
	}
	return ops, nil
}

func subresourceOperations(n gvNaming, r *Resource, sub *Subresource, parentItem, scope string, scopeParams []parameter, types typeResolver) ([]operation, error) {
	objType, err := types(sub.GVK)
	if err != nil {
		return nil, err
	}
	obj := goModel(objType)
	// Operations are named after the parent's kind; the name parameter and
	// the extension after the subresource's.
	kind := r.GVK.Kind
	id := func(verb string) string { return verb + n.id + scope + kind + title(sub.Name) }
	path := parentItem + "/" + sub.Name
	nameParam := parameter{name: "name", in: "path", typ: "string", required: true, description: "name of the " + sub.GVK.Kind}
	itemParams := append(append([]parameter(nil), scopeParams...), nameParam)
	op := func(o operation) operation { return n.resourceOperation(o, sub.GVK) }

	if len(sub.ConnectMethods) > 0 {
		// The subresource's kind is that of its options.
		options := queryParams(objType)
		var ops []operation
		for _, method := range sub.ConnectMethods {
			o := operation{
				method:      strings.ToUpper(method),
				id:          "connect" + n.id + title(strings.ToLower(method)) + scope + kind + title(sub.Name),
				description: "connect " + strings.ToUpper(method) + " requests to " + sub.Name + " of " + kind,
				action:      "connect", produces: anyMediaType,
				responses: []response{{code: 200, description: "OK"}},
			}
			o.path, o.params = path, withParams(itemParams, options)
			ops = append(ops, op(o))
			if sub.ConnectSubpath {
				o.path, o.id, o.params = path+"/{path}", o.id+"WithPath", withParams(itemParams, []parameter{subpathParam}, options)
				ops = append(ops, op(o))
			}
		}
		return ops, nil
	}

	ok := response{code: 200, description: "OK", body: obj}
	var ops []operation
	if sub.has("get") {
		o := operation{
			method: "GET", path: path, id: id("read"), description: "read " + sub.Name + " of the specified " + kind,
			action: "get", params: withParams(itemParams, prettyParam), produces: mediaTypes, responses: []response{ok},
		}
		if sub.GetOptions.Kind != "" {
			t, err := types(sub.GetOptions)
			if err != nil {
				return nil, err
			}
			o.params = withParams(o.params, queryParams(t))
		}
		if len(sub.Produces) > 0 {
			o.produces = append(append([]string(nil), sub.Produces...), mediaTypes...)
			o.responses = []response{{code: 200, description: "OK"}}
		}
		ops = append(ops, op(o))
	}
	if sub.has("update") {
		ops = append(ops, op(operation{
			method: "PUT", path: path, id: id("replace"), description: "replace " + sub.Name + " of the specified " + kind,
			action: "put", params: withParams(itemParams, prettyParam, queryParams(updateOptionsType)),
			body: obj, bodyRequired: true, produces: mediaTypes,
			responses: []response{ok, {code: 201, description: "Created", body: obj}},
		}))
	}
	if sub.has("patch") {
		ops = append(ops, op(operation{
			method: "PATCH", path: path, id: id("patch"), description: "partially update " + sub.Name + " of the specified " + kind,
			action: "patch", params: withParams(itemParams, prettyParam, queryParams(patchOptionsType)),
			body: patchModel, bodyRequired: true, consumes: patchMediaTypes, produces: mediaTypes,
			responses: []response{ok, {code: 201, description: "Created", body: obj}},
		}))
	}
	if sub.has("create") {
		ops = append(ops, op(operation{
			method: "POST", path: path, id: id("create"), description: "create " + sub.Name + " of" + article(kind) + kind,
			action: "post", params: withParams(itemParams, prettyParam, queryParams(createOptionsType)),
			body: obj, bodyRequired: true, produces: mediaTypes,
			responses: []response{ok, {code: 201, description: "Created", body: obj}, {code: 202, description: "Accepted", body: obj}},
		}))
	}
	if sub.has("delete") {
		ops = append(ops, op(operation{
			method: "DELETE", path: path, id: id("delete"), description: "delete " + sub.Name + " of" + article(kind) + kind,
			action: "delete", params: withParams(itemParams, prettyParam, queryParams(deleteOptionsType)),
			body: deleteOptionsModel, produces: mediaTypes,
			responses: []response{{code: 200, description: "OK", body: statusModel}, {code: 202, description: "Accepted", body: statusModel}},
		}))
	}
	return ops, nil
}

// resourceOperation completes an operation on a resource of kind gvk with
// what they all have: the group version's tag, the kind, a body of any media
// type unless said otherwise, and the 401 kube-apiserver answers to
// unauthenticated requests.
func (n gvNaming) resourceOperation(o operation, gvk schema.GroupVersionKind) operation {
	o.tag = n.tag
	o.gvk = &gvk
	if o.consumes == nil {
		o.consumes = anyMediaType
	}
	o.responses = append(o.responses, unauthorized)
	return o
}

// withParams concatenates parameter lists into a new one.
func withParams(base []parameter, more ...any) []parameter {
	out := append([]parameter(nil), base...)
	for _, m := range more {
		switch m := m.(type) {
		case parameter:
			out = append(out, m)
		case []parameter:
			out = append(out, m...)
		default:
			panic(fmt.Sprintf("withParams: %T", m))
		}
	}
	return out
}

// queryParams turns the fields of an options type into query parameters,
// as kube-apiserver does: top-level fields of simple types (and slices of
// them), named by their json tags and described by the type's SwaggerDoc.
// The result is shared: do not modify it.
func queryParams(t reflect.Type, exclude ...string) []parameter {
	cached, ok := optionParams.Load(t)
	if !ok {
		cached, _ = optionParams.LoadOrStore(t, fieldParams(t))
	}
	params := cached.([]parameter)
	if len(exclude) == 0 {
		return params
	}
	var kept []parameter
	for _, p := range params {
		if !contains(exclude, p.name) {
			kept = append(kept, p)
		}
	}
	return kept
}

// optionParams caches the parameters of options types, which every
// operation repeats.
var optionParams sync.Map // reflect.Type -> []parameter

func fieldParams(t reflect.Type) []parameter {
	docs := typeDocs(t)
	var params []parameter
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" || !f.IsExported() {
			continue
		}
		typ := paramType(f.Type)
		if typ == "" {
			continue
		}
		params = append(params, parameter{name: name, in: "query", description: docs[name], typ: typ})
	}
	return params
}

// paramType is the OpenAPI type of a query parameter; "" for fields that
// cannot be one (structs, pointers to structs). A repeated parameter has the
// type of its items.
func paramType(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice:
		return paramType(t.Elem())
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.String:
		return "string"
	}
	return ""
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// The operations of discovery itself and of /version.

func legacyRootOperation() operation {
	return operation{
		method: "GET", path: "/api/", id: "getCoreAPIVersions", tag: "core", description: "get available API versions",
		consumes: mediaTypes, produces: mediaTypes,
		responses: []response{{code: 200, description: "OK", body: apiVersionsModel}, unauthorized},
	}
}

func rootOperation() operation {
	return operation{
		method: "GET", path: "/apis/", id: "getAPIVersions", tag: "apis", description: "get available API versions",
		consumes: mediaTypes, produces: mediaTypes,
		responses: []response{{code: 200, description: "OK", body: apiGroupListModel}, unauthorized},
	}
}

func groupOperation(group string) operation {
	name := groupName(group)
	return operation{
		method: "GET", path: "/apis/" + group + "/", id: "get" + identifier(name, true) + "APIGroup", tag: identifier(name, false),
		description: "get information of a group", consumes: mediaTypes, produces: mediaTypes,
		responses: []response{{code: 200, description: "OK", body: apiGroupModel}, unauthorized},
	}
}

func versionOperation() operation {
	return operation{
		method: "GET", path: "/version/", id: "getCodeVersion", tag: "version", description: "get the version information for this server",
		consumes: []string{"application/json"}, produces: []string{"application/json"},
		responses: []response{{code: 200, description: "OK", body: versionInfoModel}, unauthorized},
	}
}

// issuerDiscoveryOperations are the service account issuer's discovery
// documents, which kube-apiserver describes as two documents of their own
// in /openapi/v3 and as paths of /openapi/v2, by v3 path.
func issuerDiscoveryOperations() map[string]operation {
	return map[string]operation{
		".well-known/openid-configuration": {
			method: "GET", path: "/.well-known/openid-configuration/", id: "getServiceAccountIssuerOpenIDConfiguration", tag: "WellKnown",
			description: "get service account issuer OpenID configuration, also known as the 'OIDC discovery doc'",
			produces:    []string{"application/json"},
			responses:   []response{{code: 200, description: "OK"}, unauthorized},
		},
		"openid/v1/jwks": {
			method: "GET", path: "/openid/v1/jwks/", id: "getServiceAccountIssuerOpenIDKeyset", tag: "openid",
			description: "get service account issuer OpenID JSON Web Key Set (contains public token verification keys)",
			produces:    []string{"application/jwk-set+json"},
			responses:   []response{{code: 200, description: "OK"}, unauthorized},
		},
	}
}

// The operations of a path share its path parameters and the parameters
// they all have, declared once on the path in both OpenAPI versions.

// byPath groups operations by path.
func byPath(ops []operation) map[string][]operation {
	m := map[string][]operation{}
	for _, o := range ops {
		m[o.path] = append(m[o.path], o)
	}
	return m
}

// commonParams returns the parameters every operation of a path has. They
// are declared once, on the path.
func commonParams(ops []operation) []parameter {
	type key struct{ name, in string }
	count := map[key]int{}
	for _, o := range ops {
		for _, p := range o.params {
			count[key{p.name, p.in}]++
		}
	}
	var common []parameter
	for _, p := range ops[0].params {
		if count[key{p.name, p.in}] == len(ops) {
			common = append(common, p)
		}
	}
	sortParams(common)
	return common
}

func isCommon(p parameter, common []parameter) bool {
	for _, c := range common {
		if c.name == p.name && c.in == p.in {
			return true
		}
	}
	return false
}

// sortParams orders parameters by name, then location.
func sortParams(params []parameter) {
	sort.SliceStable(params, func(i, j int) bool {
		if params[i].name != params[j].name {
			return params[i].name < params[j].name
		}
		return params[i].in < params[j].in
	})
}

// ownParams returns the parameters of an operation that are not declared on
// its path, sorted.
func ownParams(o operation, common []parameter) []parameter {
	var own []parameter
	for _, p := range o.params {
		if !isCommon(p, common) {
			own = append(own, p)
		}
	}
	sortParams(own)
	return own
}
