package cmd

import (
	"encoding/json"
	"net/http"
	"net/http/pprof"
	"runtime"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/version"

	"github.com/kapi-dev/kapi/pkg/endpoints/discovery"
	"github.com/kapi-dev/kapi/pkg/metrics"
	"github.com/kapi-dev/kapi/pkg/server"
)

// Version is the Kubernetes version kapi serves the API of.
var Version = version.Info{
	Major:        "1",
	Minor:        "37",
	GitVersion:   "v1.37.2-kapi",
	GitTreeState: "clean",
	BuildDate:    "1970-01-01T00:00:00Z",
}

// installSystemEndpoints serves on the outermost server what is not an
// API group: discovery, /version, /metrics and /debug/pprof.
func installSystemEndpoints(s *server.GenericAPIServer, o *Options, advertise string) *metrics.Registry {
	d := &discovery.Handler{Registry: s.Discovery(), ServerAddress: advertise}
	s.Handle("/api", http.HandlerFunc(d.ServeLegacyRoot))
	s.Handle("/api/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		parts := splitPath(r.URL.Path)
		if len(parts) == 2 && d.ServeResources(w, r, schema.GroupVersion{Version: parts[1]}) {
			return
		}
		http.NotFound(w, r)
	}))
	s.Handle("/apis", http.HandlerFunc(d.ServeGroups))
	s.Handle("/apis/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		parts := splitPath(r.URL.Path)
		switch {
		case len(parts) == 2 && d.ServeGroup(w, r, parts[1]):
		case len(parts) == 3 && d.ServeResources(w, r, schema.GroupVersion{Group: parts[1], Version: parts[2]}):
		default:
			http.NotFound(w, r)
		}
	}))

	info := Version
	info.GoVersion, info.Compiler, info.Platform = runtime.Version(), runtime.Compiler, runtime.GOOS+"/"+runtime.GOARCH
	info.EmulationMajor, info.EmulationMinor = info.Major, info.Minor
	info.MinCompatibilityMajor, info.MinCompatibilityMinor = "1", "36"
	versionHandler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := json.MarshalIndent(info, "", "  ")
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	})
	s.Handle("/version", versionHandler)
	s.Handle("/version/", versionHandler)

	reg := metrics.NewRegistry()
	s.Handle("/metrics", reg.Handler())

	if o.Profiling {
		s.Handle("/debug/pprof/", http.HandlerFunc(pprof.Index))
		s.Handle("/debug/pprof/profile", http.HandlerFunc(pprof.Profile))
		s.Handle("/debug/pprof/symbol", http.HandlerFunc(pprof.Symbol))
		s.Handle("/debug/pprof/trace", http.HandlerFunc(pprof.Trace))
		s.Handle("/debug/pprof/cmdline", http.HandlerFunc(pprof.Cmdline))
	}
	return reg
}

func splitPath(p string) []string {
	return strings.Split(strings.Trim(p, "/"), "/")
}
