// Package server is the generic API server: a unit that serves some API
// groups and non-resource paths, has post-start hooks, pre-shutdown hooks
// and health checks, and hands every request it does not own to the next
// server of the delegation chain. The outermost server wraps the chain in
// the filter chain once and serves it over TLS.
package server

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/pkg/endpoints"
	"github.com/kapi-dev/kapi/pkg/endpoints/discovery"
	"github.com/kapi-dev/kapi/pkg/endpoints/request"
	"github.com/kapi-dev/kapi/pkg/server/healthz"
)

// DelegationTarget is the next server of a delegation chain.
type DelegationTarget interface {
	// UnprotectedHandler serves a request that already went through the
	// filter chain.
	UnprotectedHandler() http.Handler
	// PostStartHooks, PreShutdownHooks and HealthChecks are the server's
	// own; the outermost server runs those of the whole chain.
	PostStartHooks() []PostStartHook
	PreShutdownHooks() []PreShutdownHook
	HealthChecks() HealthChecks
	NextDelegate() DelegationTarget
}

// HealthChecks are a server's checks for each health endpoint.
type HealthChecks struct {
	Healthz, Livez, Readyz []healthz.Checker
}

// PostStartHookFunc runs once the server is serving. It should return
// when its work is set up; long-running work belongs in goroutines that
// stop when ctx.Context is done.
type PostStartHookFunc func(ctx PostStartHookContext) error

// PostStartHookContext is what a post-start hook gets.
type PostStartHookContext struct {
	// Context is cancelled when the server shuts down.
	context.Context
	// Loopback lets the hook call the server as a privileged user.
	Loopback LoopbackConfig
}

// PostStartHook is a named post-start hook; /readyz reports each as
// poststarthook/<name> until it has returned.
type PostStartHook struct {
	Name string
	Fn   PostStartHookFunc
}

// PreShutdownHook runs when shutdown starts, before the server stops
// accepting requests.
type PreShutdownHook struct {
	Name string
	Fn   func() error
}

// GenericAPIServer is one link of the delegation chain.
type GenericAPIServer struct {
	name     string
	delegate DelegationTarget

	// discovery and openAPI are shared by every server of the chain.
	discovery *discovery.Registry
	openAPI   *OpenAPIResources

	mu     sync.RWMutex
	groups map[schema.GroupVersion]http.Handler
	// apiRoots are the paths at which this server's installed group
	// versions are rooted: /api and /api/<version> for the core group,
	// /apis/<group> and /apis/<group>/<version> for the others. As
	// kube-apiserver's web services do, the server claims every path
	// below them: what it has no handler for is a 404 Status, not the
	// next server's business.
	apiRoots         map[string]bool
	paths            map[string]http.Handler // exact non-resource paths
	prefixes         map[string]http.Handler // non-resource path prefixes ending in "/"
	postStartHooks   []PostStartHook
	preShutdownHooks []PreShutdownHook
	health           HealthChecks
}

// New returns a server named name (for logs) that passes what it does not
// own to delegate.
func New(name string, delegate DelegationTarget, disc *discovery.Registry) *GenericAPIServer {
	return &GenericAPIServer{
		name:      name,
		delegate:  delegate,
		discovery: disc,
		groups:    map[schema.GroupVersion]http.Handler{},
		apiRoots:  map[string]bool{},
		paths:     map[string]http.Handler{},
		prefixes:  map[string]http.Handler{},
	}
}

// Name is the server's name.
func (s *GenericAPIServer) Name() string { return s.name }

// Discovery is the discovery registry the chain shares.
func (s *GenericAPIServer) Discovery() *discovery.Registry { return s.discovery }

// UseOpenAPI makes the server describe the group versions it installs in
// the chain's OpenAPI documents.
func (s *GenericAPIServer) UseOpenAPI(o *OpenAPIResources) { s.openAPI = o }

// InstallAPIGroupVersion serves a group version and advertises it in
// discovery and OpenAPI. priority orders groups in discovery (higher
// first).
func (s *GenericAPIServer) InstallAPIGroupVersion(g *endpoints.APIGroupVersion, groupPriority, versionPriority int) error {
	h, err := g.Install()
	if err != nil {
		return err
	}
	if s.openAPI != nil {
		if err := s.openAPI.Set(g.GroupVersion, h.OpenAPI()); err != nil {
			return err
		}
	}
	s.SetGroupVersionHandler(g.GroupVersion, h)
	s.claimAPIRoots(g.GroupVersion)
	s.discovery.Set(discovery.GroupVersion{
		GroupVersion:    g.GroupVersion,
		Resources:       h.Discovery(),
		GroupPriority:   groupPriority,
		VersionPriority: versionPriority,
	})
	return nil
}

// claimAPIRoots records the roots of an installed group version.
// Custom resources' group versions, served through SetGroupVersionHandler,
// claim nothing: kube-apiserver answers an unknown version of a CRD's
// group with its plain-text 404.
func (s *GenericAPIServer) claimAPIRoots(gv schema.GroupVersion) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if gv.Group == "" {
		s.apiRoots["/api"] = true
		s.apiRoots["/api/"+gv.Version] = true
		return
	}
	s.apiRoots["/apis/"+gv.Group] = true
	s.apiRoots["/apis/"+gv.Group+"/"+gv.Version] = true
}

// claims reports whether path is at or below one of the server's API
// roots.
func (s *GenericAPIServer) claims(path string) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for root := range s.apiRoots {
		if path == root || strings.HasPrefix(path, root+"/") {
			return true
		}
	}
	return false
}

// SetGroupVersionHandler serves gv with h (nil removes it).
func (s *GenericAPIServer) SetGroupVersionHandler(gv schema.GroupVersion, h http.Handler) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if h == nil {
		delete(s.groups, gv)
		return
	}
	s.groups[gv] = h
}

// Handle serves a non-resource path. A pattern ending in "/" serves the
// subtree below it. A nil h removes the pattern's handler.
func (s *GenericAPIServer) Handle(pattern string, h http.Handler) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.paths
	if strings.HasSuffix(pattern, "/") {
		m = s.prefixes
	}
	if h == nil {
		delete(m, pattern)
		return
	}
	m[pattern] = h
}

// AddPostStartHook registers a hook; names must be unique in the chain.
func (s *GenericAPIServer) AddPostStartHook(name string, fn PostStartHookFunc) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.postStartHooks = append(s.postStartHooks, PostStartHook{Name: name, Fn: fn})
}

// AddPreShutdownHook registers a hook run when shutdown starts.
func (s *GenericAPIServer) AddPreShutdownHook(name string, fn func() error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.preShutdownHooks = append(s.preShutdownHooks, PreShutdownHook{Name: name, Fn: fn})
}

// AddHealthChecks adds checks to /healthz, /livez and /readyz.
func (s *GenericAPIServer) AddHealthChecks(checks ...healthz.Checker) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.health.Healthz = append(s.health.Healthz, checks...)
	s.health.Livez = append(s.health.Livez, checks...)
	s.health.Readyz = append(s.health.Readyz, checks...)
}

// AddHealthzAndReadyzChecks adds checks to /healthz and /readyz, not
// /livez: a failing dependency (a KMS plugin) makes the server unready,
// never a candidate for a restart.
func (s *GenericAPIServer) AddHealthzAndReadyzChecks(checks ...healthz.Checker) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.health.Healthz = append(s.health.Healthz, checks...)
	s.health.Readyz = append(s.health.Readyz, checks...)
}

// AddReadyzChecks adds checks to /readyz only.
func (s *GenericAPIServer) AddReadyzChecks(checks ...healthz.Checker) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.health.Readyz = append(s.health.Readyz, checks...)
}

func (s *GenericAPIServer) PostStartHooks() []PostStartHook {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return append([]PostStartHook(nil), s.postStartHooks...)
}

func (s *GenericAPIServer) PreShutdownHooks() []PreShutdownHook {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return append([]PreShutdownHook(nil), s.preShutdownHooks...)
}

func (s *GenericAPIServer) HealthChecks() HealthChecks {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.health
}

func (s *GenericAPIServer) NextDelegate() DelegationTarget { return s.delegate }

// UnprotectedHandler serves what this server owns and delegates the rest.
func (s *GenericAPIServer) UnprotectedHandler() http.Handler {
	return http.HandlerFunc(s.serve)
}

func (s *GenericAPIServer) serve(w http.ResponseWriter, r *http.Request) {
	if h := s.handlerFor(r); h != nil {
		h.ServeHTTP(w, r)
		return
	}
	s.passOn(w, r)
}

// passOn serves a request none of the server's handlers took: a 404
// Status below the server's API roots, the next server's answer
// otherwise.
func (s *GenericAPIServer) passOn(w http.ResponseWriter, r *http.Request) {
	if s.claims(r.URL.Path) {
		endpoints.NotFound(w, r)
		return
	}
	if s.delegate == nil {
		http.NotFound(w, r)
		return
	}
	s.delegate.UnprotectedHandler().ServeHTTP(w, r)
}

// handlerFor finds this server's handler for a request, or nil.
func (s *GenericAPIServer) handlerFor(r *http.Request) http.Handler {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if info, ok := request.RequestInfoFrom(r.Context()); ok && info.IsResourceRequest {
		return s.groups[schema.GroupVersion{Group: info.APIGroup, Version: info.APIVersion}]
	}
	if h, ok := s.paths[r.URL.Path]; ok {
		return h
	}
	longest := ""
	for p := range s.prefixes {
		if strings.HasPrefix(r.URL.Path, p) && len(p) > len(longest) {
			longest = p
		}
	}
	if longest != "" {
		return s.prefixes[longest]
	}
	return nil
}

// NotFoundServer ends a delegation chain: kube-apiserver's plain-text 404.
type NotFoundServer struct{}

func (NotFoundServer) UnprotectedHandler() http.Handler    { return http.NotFoundHandler() }
func (NotFoundServer) PostStartHooks() []PostStartHook     { return nil }
func (NotFoundServer) PreShutdownHooks() []PreShutdownHook { return nil }
func (NotFoundServer) HealthChecks() HealthChecks          { return HealthChecks{} }
func (NotFoundServer) NextDelegate() DelegationTarget      { return nil }

// chain returns every server of the delegation chain starting at d.
func chain(d DelegationTarget) []DelegationTarget {
	var out []DelegationTarget
	for ; d != nil; d = d.NextDelegate() {
		out = append(out, d)
	}
	return out
}

// checkUniqueHooks fails on a post-start hook name used twice in the chain.
func checkUniqueHooks(servers []DelegationTarget) error {
	seen := map[string]bool{}
	for _, srv := range servers {
		for _, h := range srv.PostStartHooks() {
			if seen[h.Name] {
				return fmt.Errorf("post-start hook %q is registered twice", h.Name)
			}
			seen[h.Name] = true
		}
	}
	return nil
}
