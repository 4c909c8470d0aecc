package app

import (
	"encoding/json"
	"net/http"
	"net/http/pprof"
	"runtime"

	"k8s.io/apimachinery/pkg/version"

	"github.com/kapi-dev/kapi/pkg/endpoints"
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
func installSystemEndpoints(s *server.GenericAPIServer, profiling bool, advertise string) *metrics.Registry {
	d := &discovery.Handler{Registry: s.Discovery(), ServerAddress: advertise}
	s.InstallDiscovery(d)

	info := Version
	info.GoVersion, info.Compiler, info.Platform = runtime.Version(), runtime.Compiler, runtime.GOOS+"/"+runtime.GOARCH
	info.EmulationMajor, info.EmulationMinor = info.Major, info.Minor
	info.MinCompatibilityMajor, info.MinCompatibilityMinor = "1", "36"
	versionHandler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			// kube-apiserver serves /version as a GET-only web service.
			endpoints.MethodNotAllowed(w, r)
			return
		}
		body, _ := json.MarshalIndent(info, "", "  ")
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	})
	s.Handle("/version", versionHandler)
	s.Handle("/version/", versionHandler)

	reg := metrics.NewRegistry()
	s.Handle("/metrics", reg.Handler())

	if profiling {
		s.Handle("/debug/pprof/", http.HandlerFunc(pprof.Index))
		s.Handle("/debug/pprof/profile", http.HandlerFunc(pprof.Profile))
		s.Handle("/debug/pprof/symbol", http.HandlerFunc(pprof.Symbol))
		s.Handle("/debug/pprof/trace", http.HandlerFunc(pprof.Trace))
		s.Handle("/debug/pprof/cmdline", http.HandlerFunc(pprof.Cmdline))
	}
	return reg
}
