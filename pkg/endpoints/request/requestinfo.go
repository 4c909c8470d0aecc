package request

import (
	"fmt"
	"net/http"
	"strings"

	"k8s.io/apimachinery/pkg/api/validate/content"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metainternalversionscheme "k8s.io/apimachinery/pkg/apis/meta/internalversion/scheme"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
)

// RequestInfo is what the path, method and query of a request say about
// it. Resource requests address the Kubernetes API
// (/api/v1/..., /apis/<group>/<version>/...); everything else (/healthz,
// /version, /openapi/v2, discovery roots) is a non-resource request whose
// Verb is the lower-cased HTTP method.
type RequestInfo struct {
	// IsResourceRequest is true for requests under /api/<version>/ or
	// /apis/<group>/<version>/ that name a resource.
	IsResourceRequest bool
	// Path is the URL path.
	Path string
	// Verb is the Kubernetes verb: get, list, watch, create, update, patch,
	// delete, deletecollection, or proxy for the legacy /proxy/ prefix
	// (resource requests; "" for an HTTP method with no verb), or the
	// lower-cased HTTP method (non-resource requests).
	Verb string

	APIPrefix   string // "api" or "apis"
	APIGroup    string // "" for the core group
	APIVersion  string
	Namespace   string
	Resource    string
	Subresource string
	// Name is the object the request names: from the path, or, for a list
	// or watch, from a fieldSelector that requires metadata.name to equal
	// one value. A list with such a selector is still a list: handlers
	// tell a named path from a selected name by len(Parts) >= 2.
	Name string
	// Parts are the path segments after the version, namespace segments
	// removed: [resource, name, subresource...]. For the namespaces
	// resource itself they are [namespaces, name, subresource].
	Parts []string

	// FieldSelector and LabelSelector are the raw fieldSelector and
	// labelSelector query parameters of list, watch and deletecollection
	// requests (not of the legacy /watch/ paths), for authorizers that
	// judge selectors. They are not validated here.
	FieldSelector string
	LabelSelector string
}

// RequestInfoResolver derives the RequestInfo of a request.
type RequestInfoResolver interface {
	// NewRequestInfo parses r. On error the returned info holds what
	// was understood before the failure.
	NewRequestInfo(r *http.Request) (*RequestInfo, error)
}

// RequestInfoFactory parses requests as kube-apiserver does. Paths have
// the forms
//
//	/<prefix>/<version>/[<verb>/][namespaces/<ns>/]<resource>[/<name>[/<subresource>...]]  groupless prefixes ("api")
//	/<prefix>/<group>/<version>/...                                                     other prefixes ("apis")
//
// where <verb> is one of the legacy path verbs watch and proxy. The
// namespaces resource is special: /api/v1/namespaces/<ns> names the
// namespace itself, and status and finalize after it are its
// subresources rather than resources inside it.
type RequestInfoFactory struct {
	// APIPrefixes are the first path segments of the API, without slashes.
	APIPrefixes sets.Set[string]
	// GrouplessAPIPrefixes are the prefixes whose paths have no group
	// segment (the legacy core group).
	GrouplessAPIPrefixes sets.Set[string]
}

// NewRequestInfoFactory returns the factory for kube-apiserver's paths:
// /api (groupless) and /apis.
func NewRequestInfoFactory() *RequestInfoFactory {
	return &RequestInfoFactory{
		APIPrefixes:          sets.New("api", "apis"),
		GrouplessAPIPrefixes: sets.New("api"),
	}
}

// Path segments with a meaning of their own.
const (
	// legacy verbs that come before the resource: /api/v1/watch/pods.
	pathVerbWatch = "watch"
	pathVerbProxy = "proxy"
)

// isNamespaceSubresource tells, in /namespaces/<ns>/<x>, a subresource of
// the namespace (x) from a resource inside the namespace.
func isNamespaceSubresource(segment string) bool {
	return segment == "status" || segment == "finalize"
}

// NewRequestInfo implements RequestInfoResolver.
func (f *RequestInfoFactory) NewRequestInfo(r *http.Request) (*RequestInfo, error) {
	// A request is a non-resource request until its path proves otherwise.
	info := &RequestInfo{
		Path: r.URL.Path,
		Verb: strings.ToLower(r.Method),
	}

	parts := splitPath(r.URL.Path)
	// The shortest resource path is /api/<version>/<resource>.
	if len(parts) < 3 || !f.APIPrefixes.Has(parts[0]) {
		return info, nil
	}
	// Like kube-apiserver, the prefix is recorded even when the path turns
	// out to be a discovery document such as /apis/<group>/<version>.
	info.APIPrefix, parts = parts[0], parts[1:]
	if !f.GrouplessAPIPrefixes.Has(info.APIPrefix) {
		if len(parts) < 3 {
			return info, nil
		}
		info.APIGroup, parts = parts[0], parts[1:]
	}
	info.IsResourceRequest = true
	info.APIVersion, parts = parts[0], parts[1:]

	verbInPath := parts[0] == pathVerbWatch || parts[0] == pathVerbProxy
	if verbInPath {
		if len(parts) < 2 {
			return info, fmt.Errorf("unable to determine kind and namespace from url, %v", r.URL)
		}
		info.Verb, parts = parts[0], parts[1:]
	} else {
		info.Verb = verbForMethod(r.Method)
	}

	if parts[0] == "namespaces" && len(parts) > 1 {
		info.Namespace = parts[1]
		// /namespaces/<ns>/<resource>/... addresses a resource inside the
		// namespace; /namespaces/<ns>[/status|/finalize] the namespace.
		if len(parts) > 2 && !isNamespaceSubresource(parts[2]) {
			parts = parts[2:]
		}
	}
	info.Parts = parts

	info.Resource = parts[0]
	if len(parts) > 1 {
		info.Name = parts[1]
	}
	// Everything after /proxy/<resource>/<name>/ is the proxied path, not
	// a subresource.
	if len(parts) > 2 && info.Verb != pathVerbProxy {
		info.Subresource = parts[2]
	}

	switch {
	case info.Verb == "get" && info.Name == "":
		listVerbAndName(r, info)
	case info.Verb == "delete" && info.Name == "":
		info.Verb = "deletecollection"
	}

	// Selectors of the legacy /watch/ paths are not authorized by
	// selector, as in kube-apiserver: only the collection form of those
	// paths honors them.
	if !verbInPath {
		switch info.Verb {
		case "list", "watch", "deletecollection":
			q := r.URL.Query()
			info.FieldSelector = q.Get("fieldSelector")
			info.LabelSelector = q.Get("labelSelector")
		}
	}
	return info, nil
}

// verbForMethod is the verb of a resource request whose path has no verb.
// Collection verbs (list, watch, deletecollection) are decided later,
// once the path is known to name no object.
func verbForMethod(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead:
		return "get"
	case http.MethodPost:
		return "create"
	case http.MethodPut:
		return "update"
	case http.MethodPatch:
		return "patch"
	case http.MethodDelete:
		return "delete"
	}
	return ""
}

// listVerbAndName decides between list and watch for a GET of a
// collection, and takes the name from a fieldSelector that pins
// metadata.name to one valid name, so that authorization can grant a list
// or watch of a single object to someone allowed to get only that object.
//
// The query is decoded as ListOptions, exactly as the list handler will
// decode it. If that fails (a bad selector, limit or timeoutSeconds) no
// name is taken, but watch=<anything but 0 or false> still means watch:
// the request is authorized as what it asks for and the handler reports
// the bad parameter.
func listVerbAndName(r *http.Request, info *RequestInfo) {
	query := r.URL.Query()
	var opts metainternalversion.ListOptions
	if err := metainternalversionscheme.ParameterCodec.DecodeParameters(query, metav1.SchemeGroupVersion, &opts); err != nil {
		opts = metainternalversion.ListOptions{Watch: watchRequested(query["watch"])}
	}
	info.Verb = "list"
	if opts.Watch {
		info.Verb = "watch"
	}
	if opts.FieldSelector == nil {
		return
	}
	if name, ok := opts.FieldSelector.RequiresExactMatch("metadata.name"); ok && len(content.IsPathSegmentName(name)) == 0 {
		info.Name = name
	}
}

// watchRequested interprets a watch query parameter the way query
// parameters become booleans in ListOptions: present with any first value
// other than "0" or "false" (case-insensitive), including an empty one.
func watchRequested(values []string) bool {
	if len(values) == 0 {
		return false
	}
	v := strings.ToLower(values[0])
	return v != "0" && v != "false"
}

// splitPath returns the segments of a URL path, ignoring leading and
// trailing slashes.
func splitPath(path string) []string {
	path = strings.Trim(path, "/")
	if path == "" {
		return nil
	}
	return strings.Split(path, "/")
}

// LongRunningCheck reports whether a request may legitimately run for a
// long time. Long-running requests are exempt from the request timeout
// and from max-in-flight limits.
type LongRunningCheck func(info *RequestInfo) bool

// IsLongRunning is kube-apiserver's LongRunningCheck: watches, the legacy
// /proxy/ verb, the attach, exec, portforward, proxy and log subresources
// (streams that last as long as the client wants), and profiling under
// /debug/pprof/ (a CPU profile runs for as long as it is asked to).
func IsLongRunning(info *RequestInfo) bool {
	switch info.Verb {
	case "watch", pathVerbProxy:
		return true
	}
	if info.IsResourceRequest {
		switch info.Subresource {
		case "attach", "exec", "portforward", "proxy", "log":
			return true
		}
		return false
	}
	return strings.HasPrefix(info.Path, "/debug/pprof/")
}
