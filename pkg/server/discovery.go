package server

import (
	"net/http"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/pkg/endpoints"
	"github.com/kapi-dev/kapi/pkg/endpoints/discovery"
)

// InstallDiscovery serves the discovery documents of the whole chain on
// s, which should be the outermost server, with kube-apiserver's paths
// and methods:
//
//	/api, /api/<version>, /apis/<group>/<version>   GET only (others: 405 Status), as kube-apiserver's web services
//	/apis, /apis/<group>                             any method, as kube-aggregator's handlers
//	/apis/<group>/<version> of custom resources      any method, as apiextensions-apiserver's handler
//
// each with or without a trailing slash. Aggregated discovery is offered
// at /api and /apis only. A path that names no served group or version is
// passed on, to get the 404 of the server that claims it (a Status below
// a built-in group) or the plain-text 404 at the end of the chain.
func (s *GenericAPIServer) InstallDiscovery(d *discovery.Handler) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { s.serveDiscovery(d, w, r) })
	for _, p := range []string{"/api", "/api/", "/apis", "/apis/"} {
		s.Handle(p, h)
	}
}

func (s *GenericAPIServer) serveDiscovery(d *discovery.Handler, w http.ResponseWriter, r *http.Request) {
	path := r.URL.Path
	trailingSlash := strings.HasSuffix(path, "/")
	parts := strings.Split(strings.TrimSuffix(strings.TrimPrefix(path, "/"), "/"), "/")
	for _, p := range parts {
		if p == "" {
			// An empty segment (/api//v1) names nothing.
			s.passOn(w, r)
			return
		}
	}
	getOnly := func(serve func()) {
		if r.Method != http.MethodGet {
			endpoints.MethodNotAllowed(w, r)
			return
		}
		serve()
	}
	switch {
	case parts[0] == "api" && len(parts) == 1:
		getOnly(func() { d.ServeLegacyRoot(w, r) })
	case parts[0] == "api" && len(parts) == 2 && d.Registry.Has(schema.GroupVersion{Version: parts[1]}):
		getOnly(func() { d.ServeResources(w, r, schema.GroupVersion{Version: parts[1]}) })
	case parts[0] == "apis" && len(parts) == 1:
		// kube-aggregator serves aggregated discovery at /apis only;
		// /apis/ has the legacy document alone.
		if trailingSlash {
			d.ServeLegacyGroups(w, r)
		} else {
			d.ServeGroups(w, r)
		}
	case parts[0] == "apis" && len(parts) == 2 && d.Registry.HasGroup(parts[1]):
		d.ServeGroup(w, r, parts[1])
	case parts[0] == "apis" && len(parts) == 3 && d.Registry.Has(schema.GroupVersion{Group: parts[1], Version: parts[2]}):
		gv := schema.GroupVersion{Group: parts[1], Version: parts[2]}
		if !s.chainClaims("/apis/" + gv.Group + "/" + gv.Version) {
			d.ServeResources(w, r, gv)
			return
		}
		getOnly(func() { d.ServeResources(w, r, gv) })
	default:
		s.passOn(w, r)
	}
}

// chainClaims reports whether a server of the chain from s claims path
// (see GenericAPIServer.claims).
func (s *GenericAPIServer) chainClaims(path string) bool {
	for _, d := range chain(s) {
		if g, ok := d.(*GenericAPIServer); ok && g.claims(path) {
			return true
		}
	}
	return false
}
