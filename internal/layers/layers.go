// Package layers writes down the layers of kapi, from the commands down
// to the API types, and its test fails when a package imports a package
// of a higher layer. docs/architecture.md explains the layers; this table
// is the one place they are defined.
//
// A package may import any package of a lower layer, and the packages of
// its own component (a server's or a library's own subpackages); never a
// package of a higher layer, nor another component of its own layer (the
// servers of the delegation chain know nothing of each other). A
// package's place is given by the longest path prefix that names it, so
// pkg/endpoints/request can sit below pkg/endpoints. Test files are not
// checked: a test may start a whole server.
package layers

// Layers lists the layers from the top down.
var Layers = []Layer{
	{Name: "entry points", Components: []Component{
		{Name: "commands and tests", Prefixes: []string{"cmd", "pkg/cmd", "pkg/testserver", "test", "hack"}},
	}},
	{Name: "assembly", Components: []Component{
		{Name: "assembly", Prefixes: []string{"pkg/app"}},
	}},
	{Name: "servers of the delegation chain", Components: []Component{
		{Name: "aggregator", Prefixes: []string{"pkg/aggregator"}},
		{Name: "controlplane", Prefixes: []string{"pkg/controlplane"}},
		{Name: "apiextensions", Prefixes: []string{"pkg/apiextensions"}},
	}},
	{Name: "generic server and the plugins of the request path", Components: []Component{
		{Name: "generic server and filters", Prefixes: []string{"pkg/server"}},
		{Name: "authenticators", Prefixes: []string{"pkg/authentication"}},
		{Name: "authorizers", Prefixes: []string{"pkg/authorization"}},
		{Name: "admission plugins", Prefixes: []string{"pkg/admission/plugin"}},
		// Controllers kapi runs in-process (kube-controller-manager runs
		// them upstream); they know the API only through client-go.
		{Name: "in-process controllers", Prefixes: []string{"pkg/controller"}},
		{Name: "encryption at rest", Prefixes: []string{"pkg/encryption"}},
	}},
	{Name: "endpoints", Components: []Component{
		{Name: "endpoints", Prefixes: []string{"pkg/endpoints"}},
		{Name: "audit", Prefixes: []string{"pkg/audit"}},
		// API priority and fairness: classification, queues and seats,
		// below the filter that applies them (pkg/server/filters).
		{Name: "priority and fairness", Prefixes: []string{"pkg/flowcontrol"}},
	}},
	{Name: "resources and their descriptions", Components: []Component{
		{Name: "registry", Prefixes: []string{"pkg/registry", "pkg/printers"}},
		{Name: "openapi", Prefixes: []string{"pkg/openapi"}},
	}},
	{Name: "storage", Components: []Component{
		{Name: "storage", Prefixes: []string{"pkg/storage"}},
	}},
	{Name: "request context and the contracts of the plugins", Components: []Component{
		{Name: "request context", Prefixes: []string{
			"pkg/endpoints/request", "pkg/endpoints/warning", "pkg/endpoints/auditcontext",
			"pkg/authentication/user", "pkg/authentication/authenticator",
			"pkg/authorization/authorizer", "pkg/admission", "pkg/metrics",
		}},
	}},
	{Name: "clients", Components: []Component{
		// Typed clients and informers of the server's own API, over
		// its scheme, for the controllers, hooks and plugins above.
		{Name: "client", Prefixes: []string{"pkg/client"}},
	}},
	{Name: "API types and leaf libraries", Components: []Component{
		// kube-apiserver's base CEL environment and its libraries are a
		// leaf: CRD rules, DRA's device selectors, webhooks' match
		// conditions and admission policies all extend it.
		{Name: "api", Prefixes: []string{"pkg/api", "pkg/apis", "pkg/cel"}},
		{Name: "certs", Prefixes: []string{"pkg/certs"}},
		// How a Service reference becomes an address: for the webhooks,
		// the aggregator and services/proxy alike.
		{Name: "service resolution", Prefixes: []string{"pkg/serviceresolver"}},
		{Name: "service-account tokens", Prefixes: []string{"pkg/serviceaccount"}},
		{Name: "version", Prefixes: []string{"pkg/version"}},
		{Name: "feature gates", Prefixes: []string{"pkg/features"}},
		{Name: "test support", Prefixes: []string{"internal"}},
	}},
}

// A Layer is a set of components; the layers above it may import them.
type Layer struct {
	Name       string
	Components []Component
}

// A Component is the packages below some path prefixes, relative to the
// module, which may import each other.
type Component struct {
	Name     string
	Prefixes []string
}

// Place is where a package sits: its layer's index (0 is the top) and its
// component.
type Place struct {
	Layer     int
	Component string
	prefix    string
}

// Find returns the place of a package, given by its path relative to the
// module, or false if no prefix names it.
func Find(pkg string) (Place, bool) {
	var best Place
	found := false
	for i, l := range Layers {
		for _, c := range l.Components {
			for _, p := range c.Prefixes {
				if !under(pkg, p) || (found && len(p) <= len(best.prefix)) {
					continue
				}
				best, found = Place{Layer: i, Component: c.Name, prefix: p}, true
			}
		}
	}
	return best, found
}

// Allowed says whether a package at from may import one at to.
func Allowed(from, to Place) bool {
	return to.Layer > from.Layer || to.Component == from.Component
}

func under(pkg, prefix string) bool {
	return pkg == prefix || len(pkg) > len(prefix) && pkg[:len(prefix)] == prefix && pkg[len(prefix)] == '/'
}
