package metrics

import (
	"net/http"
	"strings"

	"github.com/kapi-dev/kapi/pkg/endpoints/request"
)

// RequestLabels are the labels kube-apiserver puts on a request's
// metrics. Metrics without a label (dry_run for sizes and long-running
// requests) ignore the field.
type RequestLabels struct {
	// Verb is the HTTP method, upper-cased (HEAD as GET), except that
	// reads of collections are LIST, watches WATCH, server-side applies
	// APPLY, and requests to the attach, exec, log, portforward and proxy
	// subresources CONNECT. Methods kube-apiserver does not report are
	// "other".
	Verb string
	// DryRun is "All" for dry-run requests, "" for others, "invalid" for
	// a dryRun parameter the server rejects.
	DryRun      string
	Group       string
	Version     string
	Resource    string
	Subresource string
	// Scope is "resource" for a request naming an object (or creating
	// one), "namespace" for a collection in a namespace, "cluster" for a
	// collection across the cluster, "" for non-resource requests.
	Scope     string
	Component string
}

// RequestLabelsFor derives the labels of a request. For non-resource
// requests Subresource is the path, as kube-apiserver reports it; callers
// that cannot trust the path to be one the server serves must clear it,
// or anyone could create series at will.
func RequestLabelsFor(r *http.Request, info *request.RequestInfo) RequestLabels {
	scope := requestScope(r, info)
	l := RequestLabels{
		Verb:      reportedVerb(r, info, scope),
		DryRun:    dryRunLabel(r),
		Scope:     scope,
		Component: APIServerComponent,
	}
	if info.IsResourceRequest {
		l.Group, l.Version = info.APIGroup, info.APIVersion
		l.Resource, l.Subresource = info.Resource, info.Subresource
	} else {
		l.Subresource = info.Path
	}
	return l
}

// requestScope is the scope kube-apiserver gives the route that serves
// the request. It depends on the path, not on RequestInfo.Name: a list
// whose fieldSelector names one object is still a namespace or cluster
// list.
func requestScope(r *http.Request, info *request.RequestInfo) string {
	switch {
	case !info.IsResourceRequest:
		return ""
	case len(info.Parts) >= 2 || r.Method == http.MethodPost:
		return "resource"
	case info.Namespace != "":
		return "namespace"
	}
	return "cluster"
}

// reportedVerbs are the verbs kube-apiserver reports; any other becomes
// "other", so that made-up HTTP methods cannot create series.
var reportedVerbs = map[string]bool{
	"APPLY": true, "CONNECT": true, "CREATE": true, "DELETE": true,
	"DELETECOLLECTION": true, "GET": true, "LIST": true, "PATCH": true,
	"POST": true, "PROXY": true, "PUT": true, "UPDATE": true, "WATCH": true,
	"WATCHLIST": true,
}

// reportedVerb is kube-apiserver's verb label: the HTTP method, except
// that reads of collections are LIST, watches (by query or by the legacy
// /watch/ path) WATCH, server-side apply APPLY, and requests to streaming
// subresources CONNECT. Deletes of collections are reported as DELETE and
// creates as POST, as kube-apiserver does.
func reportedVerb(r *http.Request, info *request.RequestInfo, scope string) string {
	method := strings.ToUpper(r.Method)
	if method == http.MethodGet && info.IsResourceRequest && info.Verb == "watch" {
		return "WATCH"
	}
	verb := method
	switch {
	case method == http.MethodGet || method == http.MethodHead:
		verb = "GET"
		if scope != "resource" && scope != "" {
			verb = "LIST"
		}
	case method == http.MethodPatch && r.Header.Get("Content-Type") == "application/apply-patch+yaml":
		verb = "APPLY"
	}
	if info.IsResourceRequest {
		switch info.Subresource {
		case "attach", "exec", "log", "portforward", "proxy":
			verb = "CONNECT"
		}
	}
	if !reportedVerbs[verb] {
		return "other"
	}
	return verb
}

// dryRunLabel is "All" when every dryRun parameter is All, "" when there
// is none, and "invalid" otherwise.
func dryRunLabel(r *http.Request) string {
	// Most requests have no dryRun: avoid parsing their query.
	if !strings.Contains(r.URL.RawQuery, "dryRun") {
		return ""
	}
	values := r.URL.Query()["dryRun"]
	if len(values) == 0 {
		return ""
	}
	for _, v := range values {
		if v != "All" {
			return "invalid"
		}
	}
	return "All"
}
